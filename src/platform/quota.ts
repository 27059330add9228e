import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { durationInWords } from '../kernel/format.js';
import type { Logger } from './log.js';
import type { Queryable } from './store/db.js';

/** How many requests that reach the analytics API each person may make, per window. */
export interface QuotaSettings {
  points: number;
  windowMs: number;
}

/** A person's quota: 0 when this request may go ahead, else how long to wait (ms). */
export interface Quota {
  take(user: string): Promise<number>;
  /** What a person told to wait reads: the limit, why, and when to try again. */
  refusal(waitMs: number): string;
}

const TABLE = 'rate_limits';

/** How long a request waits on the store's count before counting in memory instead. */
const STORE_WAIT_MS = 1000;

/**
 * One limiter for every replica, kept in the store (rate-limiter-flexible on its own
 * table, migration 004). While the store is down or slow (past 1 s) each replica counts
 * in memory instead, so an outage neither blocks people nor lifts the limit.
 */
export function userQuota(db: Queryable, settings: QuotaSettings, log: Logger, waitMs = STORE_WAIT_MS): Quota {
  const duration = Math.max(1, Math.round(settings.windowMs / 1000));
  let warnedAt = 0;
  const limiter = new RateLimiterPostgres({
    storeClient: {
      query: ({ text, values }: { text: string; values: unknown[] }) =>
        db.query(text, values).then(
          (r) => ({ rows: r.rows, rowCount: r.rows.length }),
          (error: unknown) => {
            if (Date.now() - warnedAt > 60_000) {
              warnedAt = Date.now();
              log.warn({ err: error instanceof Error ? error.message : String(error) }, 'the store did not answer the rate limiter; each replica counts in memory until it does');
            }
            throw error;
          },
        ),
    },
    storeType: 'lookout',
    tableName: TABLE,
    tableCreated: true,
    clearExpiredByTimeout: false,
    keyPrefix: 'user',
    points: settings.points,
    duration,
  });
  const insuranceLimiter = new RateLimiterMemory({ keyPrefix: 'user', points: settings.points, duration });
  return quotaOf(new RLWrapperTimeouts({ limiter, insuranceLimiter, timeoutMs: waitMs }) as unknown as RateLimiterAbstract, settings, log);
}

/** The same limit for one process (the embedded store: there are no other replicas to share it with). */
export function memoryQuota(settings: QuotaSettings): Quota {
  const limiter = new RateLimiterMemory({ keyPrefix: 'user', points: settings.points, duration: Math.max(1, Math.round(settings.windowMs / 1000)) });
  return quotaOf(limiter, settings);
}

function quotaOf(limiter: RateLimiterAbstract, settings: QuotaSettings, log?: Logger): Quota {
  return {
    refusal: (waitMs) =>
      `You have made ${settings.points} requests for data within ${durationInWords(settings.windowMs)}, the most one person may (it protects the analytics API's quota). Try again in ${durationInWords(Math.ceil(waitMs / 1000) * 1000)}.`,
    async take(user) {
      try {
        await limiter.consume(user);
        return 0;
      } catch (refused) {
        if (refused instanceof RateLimiterRes) return Math.max(1000, refused.msBeforeNext);
        log?.warn({ err: refused instanceof Error ? refused.message : String(refused) }, 'the rate limiter failed; the request goes ahead');
        return 0;
      }
    },
  };
}

/** Rows of windows that ended over an hour ago (housekeeping). */
export async function pruneQuota(db: Queryable, olderThan: Date): Promise<number> {
  const { rows } = await db.query(`DELETE FROM ${TABLE} WHERE expire < $1 RETURNING key`, [olderThan.getTime()]);
  return rows.length;
}
