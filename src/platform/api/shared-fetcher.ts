import { LRUCache } from 'lru-cache';
import { REPORTS, type ReportId, type ReportRow } from '../../kernel/catalog.js';
import type { MarketingRequest } from '../../kernel/query.js';
import type { VisitRecord } from '../../kernel/records.js';
import type { AnalyticsApi } from './analytics.js';

/**
 * Report fetches shared by digests and trends. Identical requests within a minute (every
 * digest due at 09:00 asking for yesterday's sources, a trend and a digest asking for the
 * same day) are made once: the promise is shared. A failed request is forgotten at once.
 */
export class SharedFetcher {
  private readonly cache: LRUCache<string, Promise<readonly ReportRow[]>>;
  /** Requests made to the API (not served from the cache). */
  calls = 0;

  /** `now`: the app's clock, so "within a minute" follows it. */
  constructor(
    private readonly api: AnalyticsApi,
    options: { now?: () => Date } = {},
  ) {
    const now = options.now;
    this.cache = new LRUCache({ max: 5_000, ttl: 60_000, ...(now ? { perf: { now: () => now().getTime() } } : {}) });
  }

  report(id: ReportId, request: MarketingRequest): Promise<readonly ReportRow[]> {
    const key = JSON.stringify([id, request]);
    let rows = this.cache.get(key);
    if (!rows) {
      this.calls++;
      rows = this.api.report(id, request);
      rows.catch(() => this.cache.delete(key));
      this.cache.set(key, rows);
    }
    return rows;
  }

  /** Every row of a report (for totals), page by page through the same cache. */
  async all(id: ReportId, request: MarketingRequest, pageSize = 1000, maxPages = 50): Promise<ReportRow[]> {
    const rows: ReportRow[] = [];
    for (let page = 1; page <= maxPages; page++) {
      const batch = await this.report(id, { ...request, page, limit: pageSize });
      rows.push(...batch);
      if (batch.length < pageSize) return rows;
    }
    return rows;
  }

  /** Every visit of a request (`/visits` rows), newest first. */
  async visits(request: MarketingRequest, pageSize = 1000, maxPages = 50): Promise<VisitRecord[]> {
    const rows = await this.all('visits', { ...request, sort: { key: REPORTS.visits.defaultSort, value: -1 } }, pageSize, maxPages);
    return rows as VisitRecord[];
  }
}
