import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  RLWrapperTimeouts,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { durationInWords } from '../kernel/format.js';
import { forPerson } from './api/budget.js';
import type { Logger } from './log.js';
import type { Queryable } from './store/db.js';

/** How many analytics API requests each person's commands may cause, per window. */
export interface QuotaSettings {
  points: number;
  windowMs: number;
}

/** A person in a workspace: user ids are the workspace's own, so the same id in another workspace is someone else. */
export interface Person {
  team: string;
  user: string;
}

/** A person's quota of analytics API requests, counted per workspace. */
export interface Quota {
  /** Takes `cost` requests (the command's estimate): 0 when it may go ahead, else how long to wait (ms); Infinity when it needs more than a window holds. */
  take(person: Person, cost?: number): Promise<number>;
  /** Counts requests a command made beyond its estimate (never refused: the next command waits instead). */
  charge(person: Person, requests: number): Promise<void>;
  /** What a person told to wait reads: the limit, why, and when to try again. */
  refusal(waitMs: number, cost?: number): string;
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
              log.warn(
                { err: error instanceof Error ? error.message : String(error) },
                'the store did not answer the rate limiter; each replica counts in memory until it does',
              );
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
  return quotaOf(new RLWrapperTimeouts({ limiter, insuranceLimiter, timeoutMs: waitMs }), settings, log);
}

/** The same limit for one process (the embedded store: there are no other replicas to share it with). */
export function memoryQuota(settings: QuotaSettings): Quota {
  const limiter = new RateLimiterMemory({
    keyPrefix: 'user',
    points: settings.points,
    duration: Math.max(1, Math.round(settings.windowMs / 1000)),
  });
  return quotaOf(limiter, settings);
}

/** The limiter's key: the workspace, then the person. */
const keyOf = ({ team, user }: Person) => `${team}:${user}`;

function quotaOf(limiter: RateLimiterAbstract, settings: QuotaSettings, log?: Logger): Quota {
  const window = durationInWords(settings.windowMs);
  return {
    refusal: (waitMs, cost = 1) =>
      waitMs === Infinity
        ? `That needs about ${cost} requests to the analytics API; one person may make ${settings.points} in this workspace within ${window} (it protects the analytics API's quota). Ask for a shorter range or fewer rows.`
        : `You have used the ${settings.points} analytics API requests one person may make in this workspace within ${window} (it protects the analytics API's quota). Try again in ${durationInWords(Math.ceil(waitMs / 1000) * 1000)}.`,
    async take(person, cost = 1) {
      if (cost > settings.points) return Infinity;
      try {
        await limiter.consume(keyOf(person), Math.max(1, Math.ceil(cost)));
        return 0;
      } catch (refused) {
        if (refused instanceof RateLimiterRes) return Math.max(1000, refused.msBeforeNext);
        log?.warn(
          { err: refused instanceof Error ? refused.message : String(refused) },
          'the rate limiter failed; the request goes ahead',
        );
        return 0;
      }
    },
    async charge(person, requests) {
      if (requests <= 0) return;
      try {
        await limiter.penalty(keyOf(person), Math.ceil(requests));
      } catch (error) {
        log?.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'the rate limiter failed to count extra requests',
        );
      }
    },
  };
}

/**
 * Runs the `work` of a person in workspace `team` within their quota: refused before it starts when
 * the `estimate` does not fit; the requests it really made beyond the estimate are charged after.
 * Without a user it is Lookout's own work, not counted.
 */
export async function withinQuota<T>(
  quota: Quota,
  team: string,
  user: string | undefined,
  estimate: number,
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; problem: string }> {
  if (!user) return { ok: true, value: await work() };
  const person = { team, user };
  const wait = await quota.take(person, estimate);
  if (wait > 0) return { ok: false, problem: quota.refusal(wait, estimate) };
  const { value, requests } = await forPerson(work);
  await quota.charge(person, requests - Math.max(1, Math.ceil(estimate)));
  return { ok: true, value };
}

/** Rows of windows that ended over an hour ago (housekeeping). */
export async function pruneQuota(db: Queryable, olderThan: Date): Promise<number> {
  const { rows } = await db.query(`DELETE FROM ${TABLE} WHERE expire < $1 RETURNING key`, [olderThan.getTime()]);
  return rows.length;
}
