/**
 * The demo API as a real HTTP server: every path of the spec, the same
 * request and response shapes, x-api-key auth, JSON errors, a record of the
 * requests it received, and injectable faults.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REPORTS } from './aggregate.js';
import { generateDataset, type Dataset } from './dataset.js';
import { ReportEngine } from './engine.js';
import { ApiFailure, badRequest } from './errors.js';
import { driftBody, FaultInjector, truncateJson, type Faults } from './faults.js';
import { LiveTraffic, produce, type LiveOptions, type Scenario } from './live.js';
import type { Visit } from './model.js';
import { parseReportQuery } from './request.js';
import { isSecurityKind, securityRecord } from './security.js';

export type { Faults } from './faults.js';

export interface DemoApiOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The value the x-api-key header must have. Default "demo". */
  apiKey?: string;
  /** Seed of the generated data set and of the failRate draws. Default 42. */
  seed?: number;
  /** The clock the data set is generated around (and the default date of added visits). Default the real time. */
  now?: () => Date;
  /** Serve this data set instead of generating one. */
  dataset?: Dataset;
  faults?: Faults;
  /** Entries of the report cache. Default 64. */
  cacheSize?: number;
  /** The oldest recorded requests are dropped beyond this many. Default 10000. */
  maxRecordedRequests?: number;
  /** Called with unexpected errors (answered 500). Default: console.error. */
  onError?: (error: unknown) => void;
  /** New visits keep arriving in real time (see live.ts), checked every `everyMs` (default 5 s). Default off. */
  live?: LiveOptions & { everyMs?: number };
}

/** A request as received. Headers are never recorded (they carry the key). */
export interface RecordedRequest {
  method: string;
  /** The path as sent (still percent-encoded), without the query string. */
  path: string;
  /** Query parameters; a repeated name keeps its last value. */
  query: Record<string, string>;
  /** The parsed JSON body, the raw text if it was not JSON, or undefined if empty. */
  body: unknown;
  /** The status answered; undefined while pending or for a hanging request. */
  status?: number;
}

export interface DemoApi {
  /** e.g. http://127.0.0.1:43123 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly dataset: Dataset;
  /** Every request received, oldest first (emptied in place by resetRequests). */
  readonly requests: RecordedRequest[];
  /** The faults in force, with counters as they stand. */
  readonly faults: Readonly<Faults>;
  /** Replaces all faults ({} clears them). */
  setFaults(faults: Faults): void;
  resetRequests(): void;
  /** Adds the live visits due by now (or by `at`); those added. Without `live`, nothing. */
  advanceLive(at?: Date): readonly Visit[];
  /** Traffic that moves on request: a spike, a drop or a scraper wave (see live.ts); the visits added. */
  produce(scenario: Scenario): readonly Visit[];
  /** Stops listening and ends every connection, hanging ones included. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

interface Reply {
  status: number;
  json: string;
  headers?: Readonly<Record<string, string>>;
}

const errorReply = (failure: ApiFailure): Reply => ({
  status: failure.status,
  json: JSON.stringify(failure.body),
  headers: failure.headers,
});

/** The body text; null when over the limit; undefined when the client went away first. */
function readBody(req: IncomingMessage): Promise<string | null | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
    req.on('close', () => {
      if (!req.complete) resolve(undefined);
    });
  });
}

function recordedBody(raw: string | null): unknown {
  if (raw === null) return '[body too large]';
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function splitTarget(target: string): { path: string; query: URLSearchParams } {
  const q = target.indexOf('?');
  return q < 0
    ? { path: target, query: new URLSearchParams() }
    : { path: target.slice(0, q), query: new URLSearchParams(target.slice(q + 1)) };
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startDemoApi(options: DemoApiOptions = {}): Promise<DemoApi> {
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey ?? 'demo';
  const seed = options.seed ?? 42;
  const maxRecorded = options.maxRecordedRequests ?? 10_000;
  const onError = options.onError ?? ((error: unknown) => console.error('[demo-api] unexpected error', error));
  const dataset =
    options.dataset ?? generateDataset({ seed, ...(options.now ? { now: options.now(), clock: options.now } : {}) });
  const engine = new ReportEngine(dataset, options.cacheSize ?? 64);
  const clock = options.now ?? (() => new Date());
  const live = options.live ? new LiveTraffic(dataset, clock(), options.live) : undefined;
  const advanceLive = (at: Date = clock()): readonly Visit[] => {
    try {
      return live?.advance(at) ?? [];
    } catch (error) {
      onError(error);
      return [];
    }
  };
  const liveTimer = live ? setInterval(() => advanceLive(), options.live?.everyMs ?? 5000) : undefined;
  liveTimer?.unref();
  const faults = new FaultInjector(seed, options.faults ?? {});
  const keyDigest = digest(apiKey);
  const requests: RecordedRequest[] = [];

  let closing = false;
  const delays = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  const delay = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const pending = {
        timer: setTimeout(() => {
          delays.delete(pending);
          resolve();
        }, ms),
        resolve,
      };
      delays.add(pending);
    });

  const authorized = (header: string | string[] | undefined): boolean =>
    typeof header === 'string' && timingSafeEqual(digest(header), keyDigest);

  function route(req: IncomingMessage, method: string, path: string, query: URLSearchParams, raw: string): Reply {
    const report = REPORTS.get(path);
    if (report) {
      if (method !== 'POST')
        throw new ApiFailure(405, 'method_not_allowed', `${path} accepts POST only`, { allow: 'POST' });
      if (raw.trim() !== '' && !JSON_TYPE.test(req.headers['content-type'] ?? '')) {
        throw new ApiFailure(
          415,
          'unsupported_media_type',
          'the request body must be sent with Content-Type: application/json',
        );
      }
      return { status: 200, json: engine.pageJson(parseReportQuery(report, query, raw)) };
    }
    const security = /^\/security\/([^/]+)\/([^/]+)$/.exec(path);
    if (security && isSecurityKind(security[1] as string)) {
      if (method !== 'GET')
        throw new ApiFailure(405, 'method_not_allowed', `${path.slice(0, 200)} accepts GET only`, { allow: 'GET' });
      let visitorId: string;
      try {
        visitorId = decodeURIComponent(security[2] as string);
      } catch {
        throw badRequest('the visitor id is not valid percent-encoding');
      }
      const visitId = query.get('visit_id') || undefined;
      return {
        status: 200,
        json: JSON.stringify(
          securityRecord(dataset, security[1] as Parameters<typeof securityRecord>[1], visitorId, visitId),
        ),
      };
    }
    throw new ApiFailure(404, 'not_found', `no such path: ${path.slice(0, 200)}`);
  }

  function send(res: ServerResponse, record: RecordedRequest, reply: Reply): void {
    record.status = reply.status;
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(reply.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(reply.json),
      'cache-control': 'no-store',
      ...reply.headers,
    });
    res.end(reply.json);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const { path, query } = splitTarget(req.url ?? '/');
    const raw = await readBody(req);
    if (raw === undefined) return; // the client hung up before sending its body
    const record: RecordedRequest = { method, path, query: Object.fromEntries(query), body: recordedBody(raw) };
    requests.push(record);
    if (requests.length > maxRecorded) requests.splice(0, requests.length - maxRecorded);

    const decision = faults.decide(path);
    if (decision.action.kind === 'hang') return; // the socket stays open until the client gives up or close() ends it
    if (decision.latencyMs > 0) await delay(decision.latencyMs);
    if (closing) return;

    const { action } = decision;
    if (action.kind === 'fail') {
      send(res, record, errorReply(new ApiFailure(500, 'internal_error', 'injected fault: internal server error')));
      return;
    }
    if (action.kind === 'rate-limit') {
      const seconds = action.retryAfterSeconds;
      send(
        res,
        record,
        errorReply(
          new ApiFailure(429, 'rate_limited', `too many requests; retry after ${seconds} s`, {
            'retry-after': String(seconds),
          }),
        ),
      );
      return;
    }

    let reply: Reply;
    try {
      if (!authorized(req.headers['x-api-key']))
        throw new ApiFailure(401, 'unauthorized', 'missing or invalid x-api-key');
      if (raw === null)
        throw new ApiFailure(413, 'payload_too_large', `the request body is over ${MAX_BODY_BYTES} bytes`);
      reply = route(req, method, path, query, raw);
    } catch (error) {
      if (error instanceof ApiFailure) reply = errorReply(error);
      else {
        onError(error);
        reply = errorReply(new ApiFailure(500, 'internal_error', 'internal error'));
      }
    }
    if (reply.status === 200 && action.transform === 'malformed') reply = { ...reply, json: truncateJson(reply.json) };
    else if (reply.status === 200 && action.transform === 'drift')
      reply = { ...reply, json: JSON.stringify(driftBody(JSON.parse(reply.json))) };
    send(res, record, reply);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ error: 'internal_error', message: 'internal error' }));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost(host)}:${port}`,
    port,
    dataset,
    requests,
    get faults() {
      return faults.current;
    },
    setFaults(next: Faults) {
      faults.set(next);
    },
    resetRequests() {
      requests.length = 0;
    },
    advanceLive,
    produce: (scenario) => produce(dataset, scenario, seed),
    close() {
      if (liveTimer) clearInterval(liveTimer);
      closed ??= new Promise<void>((resolve, reject) => {
        closing = true;
        for (const pending of delays) {
          clearTimeout(pending.timer);
          pending.resolve();
        }
        delays.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
