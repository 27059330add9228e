/**
 * The demo API as a real HTTP server: every path of the spec, the same
 * request and response shapes, x-api-key auth, JSON errors, a record of the
 * requests it received, and injectable faults.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REPORTS } from './aggregate.js';
import { generateDataset } from './generate-dataset.js';
import type { Dataset } from './dataset.js';
import { ApiFailure, badRequest } from './errors.js';
import { driftBody, FaultInjector, truncateJson, type Faults } from './faults.js';
import type { LiveOptions, Scenario } from './live.js';
import type { Visit } from './model.js';
import { parseReportQuery } from './request.js';
import { isSecurityKind, securityRecord } from './security.js';
import { checkSite, SHOP_SITE, SOFTWARE_SITE, type DemoSite } from './site.js';
import type { PeriodCounts, ProducedSpike, SpikeRequest } from './spikes.js';
import { Account } from './account.js';

export type { Faults } from './faults.js';

/** A further analytics account: its own key, and its own data set, generated on its first request. */
export interface DemoAccountOptions {
  /** What the request record calls it (`RecordedRequest.account`). Default `account-2`, `account-3`, … by position. */
  name?: string;
  /** The value x-api-key must have for this account; unique among the accounts. */
  apiKey: string;
  /** Seed of its data set (and of its live traffic). Default 42 + its position (43 for the first of `accounts`). */
  seed?: number;
  /** The site it measures. Default: SOFTWARE_SITE for the first of `accounts`, `{ tag: 'a<position>', origin: 'https://www.site-<position>.example', pages: 'software' }` after. */
  site?: DemoSite;
  /** Generated visitors and visits, as generateDataset's options (smaller data sets for many accounts). */
  visitors?: number;
  visits?: number;
}

export interface DemoApiOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The value the x-api-key header must have for the default account. Default "demo". */
  apiKey?: string;
  /** The default account's name in the request record. Default "default". */
  name?: string;
  /** Accounts beside the default one, each behind its own key, with its own data set and live traffic. */
  accounts?: DemoAccountOptions[];
  /** Seed of the generated data set and of the failRate draws. Default 42. */
  seed?: number;
  /** The clock the data set is generated around (and the default date of added visits). Default the real time. */
  now?: () => Date;
  /** Serve this data set instead of generating one. */
  dataset?: Dataset;
  /** Generate the default account's data set at its first request or read, not at start (`npm start` serves its page first). */
  lazy?: boolean;
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
  /** The name of the account whose key the request carried; undefined without a known key (or before the key was checked). */
  account?: string;
}

/** One analytics account of the demo API. */
export interface DemoAccount {
  readonly name: string;
  readonly seed: number;
  readonly site: DemoSite;
  /** Whether its data set exists yet (the default account's from the start unless `lazy`; the others' from their first request or `dataset` read). */
  readonly generated: boolean;
  /** Its data set (generated on first read). */
  readonly dataset: Dataset;
  advanceLive(at?: Date): readonly Visit[];
  produce(scenario: Scenario): readonly Visit[];
  /** Adds a human spike or a scraper wave (see spikes.ts); what it added, as the demo API counts it. */
  spike(request: SpikeRequest): ProducedSpike;
  /** Every spike produced in this account, oldest first. */
  readonly spikes: readonly ProducedSpike[];
  /** What the account's data holds for [from, to): visits, visitors, flagged ones, by source, page and country. */
  counts(from: Date, to: Date): PeriodCounts;
}

export interface DemoApi {
  /** e.g. http://127.0.0.1:43123 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** The default account's data set. */
  readonly dataset: Dataset;
  /** Every account, the default one first. */
  readonly accounts: readonly DemoAccount[];
  /** The account of that name; throws for an unknown name. */
  account(name: string): DemoAccount;
  /** Every request received, oldest first (emptied in place by resetRequests). */
  readonly requests: RecordedRequest[];
  /** The faults in force, with counters as they stand. */
  readonly faults: Readonly<Faults>;
  /** Replaces all faults ({} clears them). */
  setFaults(faults: Faults): void;
  resetRequests(): void;
  /** Adds the live visits due by now (or by `at`) to every generated account; those added. Without `live`, nothing. */
  advanceLive(at?: Date): readonly Visit[];
  /** Traffic that moves on request, in the default account: a spike, a drop or a scraper wave (see live.ts); the visits added. */
  produce(scenario: Scenario): readonly Visit[];
  /** A human spike or a scraper wave in the default account (see spikes.ts). */
  spike(request: SpikeRequest): ProducedSpike;
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
  const clock = options.now ?? (() => new Date());
  const defaultAccount = new Account(
    options.name ?? 'default',
    digest(apiKey),
    seed,
    options.dataset?.site ?? SHOP_SITE,
    () =>
      options.dataset ?? generateDataset({ seed, ...(options.now ? { now: options.now(), clock: options.now } : {}) }),
    options,
    options.live,
    onError,
  );
  const accounts: Account[] = [defaultAccount];
  const keys = new Set([apiKey]);
  (options.accounts ?? []).forEach((spec, i) => {
    const position = i + 2;
    const name = spec.name ?? `account-${position}`;
    if (typeof spec.apiKey !== 'string' || spec.apiKey === '') throw new TypeError(`account ${name} has no apiKey`);
    if (keys.has(spec.apiKey)) throw new Error(`account ${name} has the key of another account`);
    if (accounts.some((a) => a.name === name)) throw new Error(`two accounts are called ${name}`);
    keys.add(spec.apiKey);
    const accountSeed = spec.seed ?? seed + position - 1;
    const site = checkSite(
      spec.site ??
        (i === 0
          ? SOFTWARE_SITE
          : { tag: `a${position}`, origin: `https://www.site-${position}.example`, pages: 'software' }),
    );
    if (accounts.some((a) => a.site.tag === site.tag)) throw new Error(`account ${name} has the site tag of another`);
    accounts.push(
      new Account(
        name,
        digest(spec.apiKey),
        accountSeed,
        site,
        () =>
          generateDataset({
            seed: accountSeed,
            site,
            ...(spec.visitors !== undefined ? { visitors: spec.visitors } : {}),
            ...(spec.visits !== undefined ? { visits: spec.visits } : {}),
            ...(options.now ? { now: options.now(), clock: options.now } : {}),
          }),
        options,
        options.live ? { ...options.live, seed: options.live.seed ?? accountSeed } : undefined,
        onError,
      ),
    );
  });
  if (!options.lazy) defaultAccount.generate();
  const advanceLive = (at: Date = clock()): readonly Visit[] => accounts.flatMap((a) => a.advanceLive(at));
  const liveTimer = options.live ? setInterval(() => advanceLive(), options.live.everyMs ?? 5000) : undefined;
  liveTimer?.unref();
  const faults = new FaultInjector(seed, options.faults ?? {});
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

  /** The account whose key this is: every key is compared, so the time taken does not tell which matched. */
  const accountOf = (header: string | string[] | undefined): Account | undefined => {
    if (typeof header !== 'string') return undefined;
    const given = digest(header);
    let found: Account | undefined;
    for (const account of accounts) if (timingSafeEqual(given, account.keyDigest)) found ??= account;
    return found;
  };

  function route(
    account: Account,
    req: IncomingMessage,
    method: string,
    path: string,
    query: URLSearchParams,
    raw: string,
  ): Reply {
    const { dataset, engine } = account;
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
      const account = accountOf(req.headers['x-api-key']);
      if (!account) throw new ApiFailure(401, 'unauthorized', 'missing or invalid x-api-key');
      record.account = account.name;
      if (raw === null)
        throw new ApiFailure(413, 'payload_too_large', `the request body is over ${MAX_BODY_BYTES} bytes`);
      reply = route(account, req, method, path, query, raw);
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
    get dataset() {
      return defaultAccount.dataset;
    },
    accounts,
    account(name: string) {
      const found = accounts.find((a) => a.name === name);
      if (!found) throw new Error(`no account ${name}`);
      return found;
    },
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
    produce: (scenario) => defaultAccount.produce(scenario),
    spike: (request) => defaultAccount.spike(request),
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
