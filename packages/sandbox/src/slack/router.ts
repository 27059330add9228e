/** The offline Slack's routes: a method and a path pattern to a handler, with the pattern's params. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OfflineSlack } from './server.js';

export interface RouteContext {
  url: URL;
  params: Record<string, string>;
  slack: OfflineSlack;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => void | Promise<void>;

/** A fallback for requests no route matched: return true when it answered. */
export type ExtraRoutes = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Omit<RouteContext, 'params'>,
) => boolean | Promise<boolean>;

interface Route {
  method: string;
  parts: string[];
  handler: RouteHandler;
}

/** A tiny router: `add('GET', '/channels/:id', handler)`; `*` as the last segment matches the rest. */
export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: RouteHandler): this {
    this.routes.push({ method: method.toUpperCase(), parts: pattern.split('/').filter(Boolean), handler });
    return this;
  }

  match(method: string, pathname: string): { handler: RouteHandler; params: Record<string, string> } | undefined {
    const segments = pathname.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method && !(route.method === 'GET' && method === 'HEAD')) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < route.parts.length; i++) {
        const part = route.parts[i] ?? '';
        if (part === '*' && i === route.parts.length - 1) {
          params['*'] = segments.slice(i).map(decodeURIComponent).join('/');
          return { handler: route.handler, params };
        }
        const seg = segments[i];
        if (seg === undefined) {
          ok = false;
          break;
        }
        if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(seg);
        else if (part !== seg) {
          ok = false;
          break;
        }
      }
      if (ok && segments.length === route.parts.length) return { handler: route.handler, params };
    }
    return undefined;
  }
}
