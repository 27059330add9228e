import { randomUUID } from 'node:crypto';
import type { Middleware, AnyMiddlewareArgs } from '@slack/bolt';
import { lazyChild, type Logger } from '../log.js';
import { teamOf } from '../tenancy/team.js';
import type { Tenant } from '../tenancy/tenants.js';
import type { ResponseUrls } from './respond.js';

/** What the app's first middleware puts on every request's Bolt `context` (listeners read `args.context`). */
export interface RequestContext {
  /** The request's own logger: every line carries its request id. */
  log: Logger;
  /** Answers through response_urls (Slack's hosts only). */
  responses: ResponseUrls;
  /** The workspace the request comes from (Slack's signed body). */
  team: string;
  /** Its tenant (analytics account, Slack lookups, rules); a workspace with no analytics connected is told how to connect. */
  tenant: () => Promise<Tenant>;
}

/** A workspace's tenant, by its team id. */
export type TenantOf = (team: string) => Promise<Tenant>;

/** The request's `context` as the app's first middleware filled it (for code given a context Bolt typed loosely). */
export function requestContext(context: object): RequestContext {
  const c = context as Partial<RequestContext>;
  if (!c.log || !c.responses) throw new Error('the request context middleware did not run');
  return c as RequestContext;
}

/** The global middleware that gives every request an id, its logger, the way to answer it, and its tenant. */
export function requestContextMiddleware(
  log: Logger,
  responses: ResponseUrls,
  tenantOf: TenantOf,
): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, next }) => {
    const requestLog = lazyChild(log, () => ({ requestId: randomUUID() }));
    const b = body as {
      command?: string;
      type?: string;
      actions?: { action_id?: string }[];
      view?: { callback_id?: string };
      user_id?: string;
      user?: { id?: string };
    };
    requestLog.debug(
      {
        kind: b.command ?? b.type,
        action: b.actions?.[0]?.action_id ?? b.view?.callback_id,
        user: b.user_id ?? b.user?.id,
      },
      'slack request',
    );
    const team = teamOf(body);
    const added: RequestContext = { log: requestLog, responses, team, tenant: () => tenantOf(team) };
    Object.assign(context, added);
    await next();
  };
}
