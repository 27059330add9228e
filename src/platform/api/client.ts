import { setImmediate as yieldToIO } from 'node:timers/promises';
import { Pool } from 'undici';
import pLimit, { type LimitFunction } from 'p-limit';
import pRetry from 'p-retry';
import type { z } from 'zod';
import { currentBudget, currentWork, type ApiBudget } from './budget.js';
import { ApiError, messageFor, type ApiErrorKind } from './errors.js';
import { firstIssuePath, type Check } from './schemas.js';
import { silentLogger, type Logger } from '../log.js';
import type { MarketingRequest } from '../../kernel/query.js';
import { code } from '../../kernel/text.js';

export interface RetryOptions {
  /** Further attempts after the first. */
  retries: number;
  minDelayMs: number;
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxTotalMs: number;
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
  maxConcurrency?: number;
  connections?: number;
  retry?: Partial<RetryOptions>;
  logger?: Logger;
  /** Told of every call once it ends (retries included): its path without ids, 'ok' or the error kind, and how long it took. */
  observe?: (call: { operation: string; outcome: string; seconds: number }) => void;
  /** The account's requests a minute, for calls not charged to a workspace (budget.ts): people first, background work waits. */
  budget?: ApiBudget;
}

/** A path as a metric label: security checks without the visitor id. */
function operationOf(path: string): string {
  return path.startsWith('/security/') ? path.split('/').slice(0, 3).join('/') : path;
}

export const DEFAULT_RETRY: RetryOptions = {
  retries: 3,
  minDelayMs: 200,
  maxDelayMs: 5_000,
  maxTotalMs: 20_000,
};

/** Statuses worth another try. The Marketing POSTs only read, so retrying them is safe. */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const DETAIL_MAX = 300;

/** Someone waiting for the answer to a call already on the wire. */
interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

/**
 * The HTTP side of the analytics API: one keep-alive undici Pool for the
 * origin, the x-api-key header, a per-attempt timeout, retries with
 * exponential backoff and jitter (honouring Retry-After), a concurrency limit
 * over every call this client makes, and single-flight for identical calls in
 * flight at the same moment. Responses are validated with the given schema.
 */
/** A path under the API's base: segments of letters, digits and `_ . : -`. */
const SAFE_PATH = /^(?:\/[A-Za-z0-9_.:-]+)+$/;

/** What an answer is checked with: a zod schema, or a plain check (the big pages). */
export type Schema<T> = z.ZodType<T> | Check<T>;

function checked<T>(schema: Schema<T>, json: unknown): { ok: true; value: T } | { ok: false; where: string } {
  if ('plain' in schema) return schema.check(json);
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, where: firstIssuePath(parsed.error) };
}

export class HttpClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly limit: LimitFunction;
  /**
   * Calls on the wire, by what they ask, with who else waits for the same answer. Only the
   * waiters are kept, never the call's promise: a promise that outlives a young-generation
   * GC and then settles holds its page (1,000 rows) into the old generation, which cost
   * 1.9 ms of CPU per /visits page (`bench/api-client.ts`).
   */
  private readonly inFlight = new Map<string, Waiter[]>();
  private readonly retry: RetryOptions;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  /** Counters for benchmarks and status: attempts made on the wire, and calls served by single-flight. */
  readonly stats = { attempts: 0, retries: 0, shared: 0 };

  constructor(private readonly options: HttpClientOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: options.connections ?? options.maxConcurrency ?? 8,
      keepAliveTimeout: 30_000,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
    this.limit = pLimit(options.maxConcurrency ?? 8);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.log = options.logger ?? silentLogger;
  }

  post<T>(path: string, request: MarketingRequest, schema: Schema<T>): Promise<T> {
    return this.call({ method: 'POST', path, ...marketingCall(request) }, schema);
  }

  get<T>(path: string, query: Record<string, string>, schema: Schema<T>): Promise<T> {
    return this.call({ method: 'GET', path, query }, schema);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private call<T>(call: Call, schema: Schema<T>): Promise<T> {
    // The pool is bound to ANALYTICS_API_URL's origin; a path can only name a resource there.
    if (!SAFE_PATH.test(call.path) || call.path.split('/').some((part) => part === '..' || part === '.')) {
      return Promise.reject(
        new ApiError('bad_request', messageFor('bad_request', 'that resource', 'its name is not allowed'), {
          path: call.path,
        }),
      );
    }
    const key = JSON.stringify([call.method, call.path, call.query, call.body]);
    const waiting = this.inFlight.get(key);
    if (waiting) {
      this.stats.shared++;
      return new Promise<T>((resolve, reject) =>
        waiting.push({ resolve: resolve as (value: unknown) => void, reject }),
      );
    }
    const sharers: Waiter[] = [];
    this.inFlight.set(key, sharers);
    return this.withRetries(call, schema).then(
      (value) => {
        this.inFlight.delete(key);
        for (const s of sharers) s.resolve(value);
        return value;
      },
      (error: unknown) => {
        this.inFlight.delete(key);
        for (const s of sharers) s.reject(error);
        throw error;
      },
    );
  }

  private async withRetries<T>(call: Call, schema: Schema<T>): Promise<T> {
    const started = performance.now();
    let attempts = 0;
    const observe = (outcome: string) =>
      this.options.observe?.({
        operation: operationOf(call.path),
        outcome,
        seconds: (performance.now() - started) / 1000,
      });
    try {
      const result = await pRetry(
        async () => {
          attempts++;
          return await this.limit(() => this.attempt(call, schema));
        },
        {
          retries: this.retry.retries,
          factor: 2,
          minTimeout: this.retry.minDelayMs,
          maxTimeout: this.retry.maxDelayMs,
          randomize: true,
          maxRetryTime: this.retry.maxTotalMs,
          shouldRetry: ({ error }) => error instanceof ApiError && error.retryable,
          onFailedAttempt: async ({ error, retriesLeft }) => {
            if (!(error instanceof ApiError) || !error.retryable || retriesLeft <= 0) return;
            const waitMs = error.info.retryAfterMs ?? 0;
            const remaining = this.retry.maxTotalMs - (performance.now() - started);
            if (waitMs > remaining) throw error; // Retry-After is past our budget: give up now.
            this.stats.retries++;
            this.log.warn(
              { path: call.path, kind: error.kind, status: error.info.status, retryAfterMs: waitMs, retriesLeft },
              'analytics API call failed; retrying',
            );
            if (waitMs > 0) await sleep(waitMs);
          },
        },
      );
      observe('ok');
      return result;
    } catch (error) {
      const apiError = error instanceof ApiError ? error : this.fail('unavailable', call, { detail: String(error) });
      apiError.info.attempts = attempts;
      observe(apiError.kind);
      // "Not found" is an answer (an unknown visitor), not a failure: the service says what it means, with the request's id.
      this.log[apiError.kind === 'not_found' ? 'debug' : 'error'](
        {
          path: call.path,
          kind: apiError.kind,
          status: apiError.info.status,
          attempts,
          detail: apiError.info.detail,
        },
        'analytics API call failed',
      );
      throw apiError;
    }
  }

  private async attempt<T>(call: Call, schema: Schema<T>): Promise<T> {
    this.stats.attempts++;
    const work = currentWork();
    await (currentBudget() ?? this.options.budget)?.acquire(work?.who ?? 'background');
    if (work) work.requests++;
    // One timer per attempt, cleared as soon as the body is in (AbortSignal.timeout costs more and lingers).
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new DOMException('timeout', 'TimeoutError')), this.timeoutMs);
    try {
      return await this.attemptWith(call, schema, abort.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async attemptWith<T>(call: Call, schema: Schema<T>, signal: AbortSignal): Promise<T> {
    let response: Awaited<ReturnType<Pool['request']>>;
    try {
      response = await this.pool.request({
        method: call.method,
        path: this.basePath + call.path,
        query: call.query,
        headers: {
          'x-api-key': this.options.apiKey,
          accept: 'application/json',
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal,
      });
    } catch (error) {
      throw this.transportError(call, error);
    }

    const { statusCode, headers, body } = response;
    let text: string;
    try {
      text = await body.text();
    } catch (error) {
      throw this.transportError(call, error);
    }
    // What follows (parse, check, then the caller's rendering) waits for requests already received: their acks come first.
    await yieldToIO();

    if (statusCode < 200 || statusCode >= 300) {
      throw this.statusError(call, statusCode, headers['retry-after'], text);
    }

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw this.fail('bad_response', call, {
        status: statusCode,
        extra: 'not JSON',
        detail: `body starts: ${text.slice(0, 80)}`,
      });
    }
    const result = checked(schema, json);
    if (!result.ok)
      throw this.fail('bad_response', call, {
        status: statusCode,
        extra: `bad field ${result.where}`,
        detail: result.where,
      });
    return result.value;
  }

  private statusError(call: Call, status: number, retryAfter: unknown, text: string): ApiError {
    const detail = apiMessage(text);
    if (status === 401 || status === 403) return this.fail('unauthorized', call, { status, detail });
    if (status === 404) return this.fail('not_found', call, { status, detail });
    if (status === 429) {
      return this.fail('rate_limited', call, { status, detail, retryAfterMs: parseRetryAfter(retryAfter) });
    }
    if (status === 408) return this.fail('timeout', call, { status, detail });
    if (RETRY_STATUSES.has(status) || status >= 500) {
      return this.fail('unavailable', call, { status, detail, extra: `HTTP ${status}` });
    }
    return this.fail('bad_request', call, { status, detail, extra: detail });
  }

  private transportError(call: Call, error: unknown): ApiError {
    const err = error as { name?: string; code?: string; message?: string };
    if (
      err?.name === 'TimeoutError' ||
      err?.name === 'AbortError' ||
      err?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
      err?.code === 'UND_ERR_BODY_TIMEOUT'
    ) {
      return this.fail('timeout', call, { detail: `no answer within ${this.timeoutMs} ms` });
    }
    if (err?.code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
      return this.fail('bad_response', call, { extra: 'response too large', detail: err.code });
    }
    return this.fail('unavailable', call, { extra: 'no connection', detail: err?.code ?? err?.message });
  }

  private fail(
    kind: ApiErrorKind,
    call: Call,
    info: { status?: number; detail?: string; extra?: string; retryAfterMs?: number },
  ): ApiError {
    const extra = info.extra === undefined ? undefined : this.redact(info.extra).slice(0, DETAIL_MAX);
    return new ApiError(kind, messageFor(kind, describe(call), extra), {
      path: call.path,
      status: info.status,
      retryAfterMs: info.retryAfterMs,
      detail: info.detail === undefined ? undefined : this.redact(info.detail).slice(0, DETAIL_MAX),
    });
  }

  /** The API key never leaves this class, even if a server echoes it back. */
  private redact(text: string): string {
    const key = this.options.apiKey;
    return key ? text.split(key).join('[redacted]') : text;
  }
}

/** A Marketing report request as the API takes it: the dates in the query string, the rest in the JSON body. */
export function marketingCall(request: MarketingRequest): {
  query: Record<string, string>;
  body: Record<string, unknown>;
} {
  const query: Record<string, string> = {};
  if (request.startDate) query.start_date = request.startDate;
  if (request.endDate) query.end_date = request.endDate;
  const body: Record<string, unknown> = {
    filter_groups: request.filterGroups ?? [],
    pagination: { current_page: request.page ?? 1, limit: request.limit ?? 100 },
  };
  if (request.sort) body.sort_params = request.sort;
  return { query, body };
}

/** A person-readable name for a call: `/traffic/sources`, or `bot status` for a security lookup. */
function describe(call: Call): string {
  const security = /^\/security\/([a-z-]+)-status\//.exec(call.path);
  if (security) return `the ${security[1]!.replace(/-/g, ' ')} status lookup`;
  return code(call.path, 200);
}

/** The `message` (or `error`) of a JSON error body, else the start of the text. */
function apiMessage(text: string): string {
  try {
    const json = JSON.parse(text) as { message?: unknown; error?: unknown };
    const message = json?.message ?? json?.error;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: fall through
  }
  return text.slice(0, 120).trim();
}

/** Retry-After is seconds or an HTTP date; anything else counts as absent. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
  const text: unknown = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || text.trim() === '') return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
