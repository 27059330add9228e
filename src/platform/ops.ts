/**
 * The operators' listener, apart from the port that takes Slack's requests: GET /metrics
 * and GET /readyz, on loopback unless told otherwise, and only to the bearer of a token
 * when one is set. Readiness is probed at most once per cache window, however many ask,
 * and an answer to a caller without the token says which check failed, never why: the
 * why goes to the log (and to the token's bearer).
 */
import { within } from './within.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { Logger } from './log.js';

/** How long a readiness answer is reused; concurrent callers share the probe under way. */
export const READY_CACHE_MS = 5_000;
const CHECK_TIMEOUT_MS = 3_000;

/** A failed check that says more than "down" (e.g. "skewed"); its message is the detail. */
export class CheckFailed extends Error {
  constructor(
    readonly state: string,
    message: string,
  ) {
    super(message);
  }
}

/** A readiness check: resolves when it passes; rejects (with a CheckFailed, or any error: "down") when it fails. */
export type Check = () => Promise<unknown>;

export interface Readiness {
  ok: boolean;
  /** Each check's state: "ok", "down", or a CheckFailed's own word. */
  checks: Record<string, string>;
  /** Why each failed check failed: for the log and the token's bearer only. */
  details: Record<string, string>;
}

export interface OpsOptions {
  port: number;
  host: string;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  checks: Record<string, Check>;
  metrics: () => Promise<{ contentType: string; body: string }>;
  log: Logger;
}

export interface Ops {
  server: Server;
  /** e.g. http://127.0.0.1:3001 */
  url: string;
  close(): Promise<void>;
}

/** Runs every check at once, each within 3 s. */
export async function probe(checks: Record<string, Check>): Promise<Readiness> {
  const outcomes = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await within(Promise.resolve().then(check), CHECK_TIMEOUT_MS);
        return { name, state: 'ok' };
      } catch (error) {
        return {
          name,
          state: error instanceof CheckFailed ? error.state : 'down',
          detail: error instanceof Error ? error.message : String(error),
        };
      }
    }),
  );
  const result: Readiness = { ok: outcomes.every((o) => o.state === 'ok'), checks: {}, details: {} };
  for (const { name, state, detail } of outcomes) {
    result.checks[name] = state;
    if (detail !== undefined) result.details[name] = detail;
  }
  return result;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

function urlHost(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '[::1]';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** Listens on `host:port`; rejects with the listen error (EADDRINUSE, EADDRNOTAVAIL…) when it cannot. */
export async function startOps(options: OpsOptions): Promise<Ops> {
  const { log, token } = options;
  const cache = new LRUCache<'ready', Readiness>({
    max: 1,
    ttl: READY_CACHE_MS,
    fetchMethod: async () => {
      const result = await probe(options.checks);
      if (!result.ok) log.warn({ checks: result.checks, details: result.details }, 'not ready');
      return result;
    },
  });
  const ready = async () => (await cache.fetch('ready'))!;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      return json(
        res,
        401,
        { ok: false, error: 'this listener needs Authorization: Bearer <OPS_TOKEN>' },
        { 'www-authenticate': 'Bearer' },
      );
    }
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname !== '/metrics' && pathname !== '/readyz')
      return json(res, 404, { ok: false, error: 'not found: this listener serves GET /metrics and GET /readyz' });
    if (req.method !== 'GET') return json(res, 405, { ok: false, error: 'only GET' }, { allow: 'GET' });
    if (pathname === '/readyz') {
      const result = await ready();
      return json(res, result.ok ? 200 : 503, token === undefined ? { ok: result.ok, checks: result.checks } : result);
    }
    try {
      const { contentType, body } = await options.metrics();
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(body);
    } catch (error) {
      log.error({ err: error instanceof Error ? error.message : String(error) }, 'metrics could not be read');
      json(res, 500, { ok: false, error: 'metrics could not be read; see the log' });
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.error({ err: error instanceof Error ? error.message : String(error) }, 'ops request failed');
      if (!res.headersSent) json(res, 500, { ok: false, error: 'internal error; see the log' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  if (token === undefined && !/^(127\.|::1$|::ffff:127\.)/.test(address.address)) {
    log.warn(
      { address: address.address, port: address.port },
      'metrics and readiness are served beyond loopback without OPS_TOKEN: anyone who reaches this port can read them; set OPS_TOKEN',
    );
  }
  return {
    server,
    url: `http://${urlHost(address)}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
