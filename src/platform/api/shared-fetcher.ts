import { createHash } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import { growingLru } from '../lru.js';
import { REPORTS, type ReportId, type ReportRow } from '../../kernel/catalog.js';
import type { MarketingRequest } from '../../kernel/query.js';
import type { VisitRecord } from '../../kernel/records.js';
import type { AnalyticsApi } from './analytics.js';

/** How long an answer serves identical questions after it was asked. */
export const ANSWER_FRESH_MS = 60_000;
/**
 * How long replicas keep an answer for questions asked `asOf` a moment (a digest slot's), which
 * it serves however long after that moment it was asked: the answers of a slot's digests
 * posted over several minutes.
 */
export const ANSWER_KEPT_MS = 10 * 60_000;

/**
 * Answers shared with other replicas (`ApiAnswerRepo`, over the store): a question's answer
 * asked by any of them while fresh, else `fetch`'s, shared once it succeeds; `askedAt` (ms):
 * when it was asked of the API.
 */
export interface SharedAnswers {
  /** `asOf` (ms): an answer asked at or after it serves too, however old. */
  answer<T>(
    account: string,
    question: string,
    fetch: () => Promise<T>,
    asOf?: number,
  ): Promise<{ value: T; askedAt: number }>;
  /** Drops these questions' answers, so the next ask on any replica asks the API. */
  forget(account: string, questions: readonly string[]): Promise<void>;
}

/**
 * Report fetches shared by digests and trends. Identical requests within a minute (every
 * digest due at 09:00 asking for yesterday's sources, a trend and a digest asking for the
 * same day) are made once: the promise is shared. A question asked `asOf` a moment (a digest
 * slot) is also served by any answer asked at or after that moment: the digests of one slot,
 * posted over several minutes, share their answers. A failed request is forgotten at once.
 * With `shared` (replicas on PostgreSQL), an answer missing from this replica's memory is
 * looked for among the other replicas' before the API is asked; one in memory costs nothing more.
 */
export class SharedFetcher {
  private readonly cache: LRUCache<string, Promise<readonly ReportRow[]>>;
  /** When each answer in `cache` was asked of the API (ms, the app's clock). */
  private readonly askedAt = new WeakMap<Promise<readonly ReportRow[]>, number>();
  private readonly now: () => number;
  private readonly shared?: SharedAnswers;
  /** Requests made to the API (not served from memory or by another replica). */
  calls = 0;

  /** `now`: the app's clock, so "within a minute" follows it. */
  constructor(
    private readonly api: AnalyticsApi,
    options: { now?: () => Date; shared?: SharedAnswers } = {},
  ) {
    const now = options.now;
    this.now = now ? () => now().getTime() : Date.now;
    this.shared = options.shared;
    // ttlResolution 0: lru-cache otherwise reuses its last reading of the clock until a 1 ms timer fires, and an
    // app clock that jumps (tests) read an hour-old answer as fresh, which then counted as made after its period ended.
    this.cache = growingLru(5_000, {
      ttl: ANSWER_FRESH_MS,
      ttlResolution: 0,
      perf: { now: this.now },
    });
  }

  /** `asOf` (ms): an answer asked at or after it serves too, however old (see the class). */
  report(id: ReportId, request: MarketingRequest, asOf?: number): Promise<readonly ReportRow[]> {
    const k = key(id, request);
    let rows = asOf === undefined ? this.cache.get(k) : this.heldSince(k, asOf);
    if (!rows) {
      rows = this.fetch(id, request, k, asOf);
      rows.catch(() => this.cache.delete(k));
      this.cache.set(k, rows);
    }
    return rows;
  }

  /** The answer held for `k` if it is fresh or was asked at or after `asOf`. */
  private heldSince(k: string, asOf: number): Promise<readonly ReportRow[]> | undefined {
    const rows = this.cache.peek(k, { allowStale: true });
    if (!rows) return undefined;
    if (this.cache.getRemainingTTL(k) > 0) return rows;
    return (this.askedAt.get(rows) ?? -Infinity) >= asOf ? rows : undefined;
  }

  private fetch(id: ReportId, request: MarketingRequest, k: string, asOf?: number): Promise<readonly ReportRow[]> {
    const ask = () => {
      this.calls++;
      return this.api.report(id, request);
    };
    if (!this.shared) {
      const rows = ask();
      this.askedAt.set(rows, this.now());
      return rows;
    }
    const rows: Promise<readonly ReportRow[]> = this.shared
      .answer(this.api.account, nameOf(k), ask, asOf)
      .then(({ value, askedAt }) => {
        this.askedAt.set(rows, askedAt);
        // Another replica's answer is kept here only for what is left of its minute (past it, the store serves `asOf`).
        const left = askedAt + ANSWER_FRESH_MS - this.now();
        if (this.cache.peek(k) === rows)
          if (left > 0) this.cache.set(k, rows, { ttl: left });
          else this.cache.delete(k);
        return value;
      });
    this.askedAt.set(rows, this.now());
    return rows;
  }

  /** Every row of a report (for totals), page by page through the same cache. */
  async all(id: ReportId, request: MarketingRequest, options: Asking = {}): Promise<ReportRow[]> {
    return (await this.pages(id, request, options)).rows;
  }

  /**
   * Every row of a report, page by page until one comes short, and whether one did (`ended`:
   * false when the cap of pages was reached). A short page is taken for the last: nothing
   * checks it (see whole). `fresh`: asked of the API again, not shared with an earlier answer.
   */
  async read(id: ReportId, request: MarketingRequest, options: Asking = {}): Promise<Pages> {
    const { rows, ended } = await this.pages(id, request, options);
    return { rows, ended };
  }

  /** Every visit of a request (`/visits` rows), newest first. */
  async visits(request: MarketingRequest, pageSize = 1000, maxPages = 50): Promise<VisitRecord[]> {
    const rows = await this.all(
      'visits',
      { ...request, sort: { key: REPORTS.visits.defaultSort, value: -1 } },
      { pageSize, maxPages },
    );
    return rows;
  }

  /**
   * Every row of a report, and whether the answer is known to be whole: the spec gives no
   * count, so a page cut short looks like the last one. After the short page, the row just
   * past the end is asked for (one row, `limit` 1) and must not be there; a page cap
   * reached is not whole either. An answer that is not whole is forgotten, so the next
   * ask fetches it afresh. `fresh`: asked of the API again, not shared with an earlier answer.
   */
  async whole(id: ReportId, request: MarketingRequest, options: Asking = {}): Promise<Whole> {
    const { rows, keys, ended } = await this.pages(id, request, options);
    let complete = ended;
    if (complete) {
      const probe = { ...request, page: rows.length + 1, limit: 1 };
      keys.push(key(id, probe));
      if (options.fresh) this.cache.delete(key(id, probe));
      complete = (await this.report(id, probe)).length === 0;
    }
    if (!complete) {
      for (const k of keys) this.cache.delete(k);
      await this.shared?.forget(this.api.account, keys.map(nameOf));
    }
    return { rows, complete };
  }

  private async pages(
    id: ReportId,
    request: MarketingRequest,
    { pageSize = 1000, maxPages = 50, fresh = false, asOf }: Asking,
  ): Promise<Pages & { keys: string[] }> {
    const rows: ReportRow[] = [];
    const keys: string[] = [];
    for (let page = 1; page <= maxPages; page++) {
      const asked = { ...request, page, limit: pageSize };
      keys.push(key(id, asked));
      if (fresh) this.cache.delete(key(id, asked));
      const batch = await this.report(id, asked, asOf);
      rows.push(...batch);
      if (batch.length < pageSize) return { rows, keys, ended: true };
    }
    return { rows, keys, ended: false };
  }
}

/** How a report is read page by page: the rows a page, the most pages, and whether earlier answers may be shared. */
export interface Asking {
  pageSize?: number;
  maxPages?: number;
  fresh?: boolean;
  /** Answers asked at or after this moment (ms) serve too (see SharedFetcher). */
  asOf?: number;
}

/** A report's rows read up to a short page, and whether one came (see SharedFetcher.read). */
export interface Pages {
  rows: ReportRow[];
  ended: boolean;
}

/** A report's rows, and whether they are all of them (see SharedFetcher.whole). */
export interface Whole {
  rows: ReportRow[];
  complete: boolean;
}

const key = (id: ReportId, request: MarketingRequest) => JSON.stringify([id, request]);
/** A question's name among replicas: its key's hash (the key holds the filters, which can be long). */
const nameOf = (k: string) => createHash('sha256').update(k).digest('base64url');

/** The name replicas share a question by (`SharedAnswers`). */
export const questionOf = (id: ReportId, request: MarketingRequest) => nameOf(key(id, request));
