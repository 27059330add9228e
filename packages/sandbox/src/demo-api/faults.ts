/**
 * Fault injection for tests: latency, random or counted 500s, 429 with
 * Retry-After, truncated JSON, schema drift, and requests that never answer.
 */

import { Random } from './random.js';

export interface Faults {
  /** Delay before answering, in milliseconds. */
  latencyMs?: number;
  /** Fraction (0–1) of requests answered 500, drawn from a seeded generator (deterministic). */
  failRate?: number;
  /** The next N requests get 500. */
  status500Until?: number;
  /** The next `count` requests get 429 with `Retry-After: retryAfterSeconds`. */
  rateLimit?: { count: number; retryAfterSeconds: number };
  /** Successful answers come back as 200 with a truncated JSON body. */
  malformedJson?: boolean;
  /** Successful answers come back with wrongly typed fields (numbers as {"value": n}, flags as booleans, dates as epoch numbers). */
  drift?: boolean;
  /** Requests are never answered (until the server closes). */
  hang?: boolean;
  /** Faults apply only to requests whose path starts with one of these. Default: every path. */
  paths?: string[];
}

export type FaultAction =
  | { readonly kind: 'hang' }
  | { readonly kind: 'fail'; readonly status: 500 }
  | { readonly kind: 'rate-limit'; readonly status: 429; readonly retryAfterSeconds: number }
  | { readonly kind: 'pass'; readonly transform: 'malformed' | 'drift' | null };

export interface FaultDecision {
  readonly latencyMs: number;
  readonly action: FaultAction;
}

const NONE: FaultDecision = { latencyMs: 0, action: { kind: 'pass', transform: null } };

function nonNegativeInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new TypeError(`faults.${name} must be a non-negative integer`);
  return value;
}

/** Checks and copies a Faults object; throws TypeError naming a bad member. */
export function validateFaults(faults: Faults): Faults {
  const out: Faults = {};
  if (faults.latencyMs !== undefined) {
    if (typeof faults.latencyMs !== 'number' || !(faults.latencyMs >= 0) || !Number.isFinite(faults.latencyMs))
      throw new TypeError('faults.latencyMs must be a number ≥ 0');
    out.latencyMs = faults.latencyMs;
  }
  if (faults.failRate !== undefined) {
    if (typeof faults.failRate !== 'number' || !(faults.failRate >= 0 && faults.failRate <= 1))
      throw new TypeError('faults.failRate must be between 0 and 1');
    out.failRate = faults.failRate;
  }
  if (faults.status500Until !== undefined)
    out.status500Until = nonNegativeInteger(faults.status500Until, 'status500Until');
  if (faults.rateLimit !== undefined) {
    out.rateLimit = {
      count: nonNegativeInteger(faults.rateLimit.count, 'rateLimit.count'),
      retryAfterSeconds: nonNegativeInteger(faults.rateLimit.retryAfterSeconds, 'rateLimit.retryAfterSeconds'),
    };
  }
  for (const flag of ['malformedJson', 'drift', 'hang'] as const) {
    if (faults[flag] !== undefined) {
      if (typeof faults[flag] !== 'boolean') throw new TypeError(`faults.${flag} must be a boolean`);
      out[flag] = faults[flag];
    }
  }
  if (faults.paths !== undefined) {
    if (!Array.isArray(faults.paths) || !faults.paths.every((p) => typeof p === 'string'))
      throw new TypeError('faults.paths must be an array of strings');
    out.paths = [...faults.paths];
  }
  return out;
}

/** Decides, request by request, which fault (if any) applies. Counters run down as they are used. */
export class FaultInjector {
  private faults: Faults = {};
  private rng: Random;

  constructor(
    private readonly seed: number,
    faults: Faults = {},
  ) {
    this.rng = new Random(`faults:${seed}`);
    this.set(faults);
  }

  /** Replaces all faults (not a merge) and restarts the failRate sequence. */
  set(faults: Faults): void {
    this.faults = validateFaults(faults);
    this.rng = new Random(`faults:${this.seed}`);
  }

  /** The faults in force, with counters as they stand now. */
  get current(): Readonly<Faults> {
    return validateFaults(this.faults);
  }

  applies(path: string): boolean {
    const { paths } = this.faults;
    return paths === undefined || paths.some((prefix) => path.startsWith(prefix));
  }

  decide(path: string): FaultDecision {
    const f = this.faults;
    if (!this.applies(path)) return NONE;
    const latencyMs = f.latencyMs ?? 0;
    if (f.hang) return { latencyMs, action: { kind: 'hang' } };
    if (f.rateLimit && f.rateLimit.count > 0) {
      f.rateLimit = { ...f.rateLimit, count: f.rateLimit.count - 1 };
      return {
        latencyMs,
        action: { kind: 'rate-limit', status: 429, retryAfterSeconds: f.rateLimit.retryAfterSeconds },
      };
    }
    if (f.status500Until !== undefined && f.status500Until > 0) {
      f.status500Until--;
      return { latencyMs, action: { kind: 'fail', status: 500 } };
    }
    if (f.failRate !== undefined && f.failRate > 0 && this.rng.next() < f.failRate)
      return { latencyMs, action: { kind: 'fail', status: 500 } };
    return { latencyMs, action: { kind: 'pass', transform: f.malformedJson ? 'malformed' : f.drift ? 'drift' : null } };
  }
}

/** Cuts a JSON text in half: an unbalanced prefix of an array or object is never valid JSON. */
export function truncateJson(body: string): string {
  return body.slice(0, Math.max(1, Math.floor(body.length / 2)));
}

const DATE_FIELDS = new Set(['date', 'first_seen', 'last_seen']);
const FLAG_WORDS: Readonly<Record<string, boolean>> = { True: true, False: false, Yes: true, No: false };

function driftRecord(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === 'number') out[key] = { value };
    else if (typeof value === 'string' && DATE_FIELDS.has(key)) out[key] = Date.parse(value);
    else if (typeof value === 'string' && Object.hasOwn(FLAG_WORDS, value)) out[key] = FLAG_WORDS[value];
    else out[key] = value;
  }
  return out;
}

/** The same answer with drifted field types: rows of an array, or the one object. */
export function driftBody(body: unknown): unknown {
  if (Array.isArray(body))
    return (body as unknown[]).map((row) =>
      typeof row === 'object' && row !== null ? driftRecord(row as Record<string, unknown>) : row,
    );
  if (typeof body === 'object' && body !== null) return driftRecord(body as Record<string, unknown>);
  return body;
}
