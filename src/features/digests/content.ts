import { LRUCache } from 'lru-cache';
import type { AnalyticsApi } from '../../platform/api/analytics.js';
import { ApiError } from '../../platform/api/errors.js';
import { REPORTS, type ReportId, type ReportRow } from '../../kernel/catalog.js';
import type { FilterGroup, MarketingRequest } from '../../kernel/filters.js';
import { formatSpan, localDate, previousPeriod, type DateRange } from '../../kernel/dates.js';
import type { DigestPeriod } from './schedule.js';
import type { DigestLine, DigestSection, DigestTotals, DigestView } from './blocks.js';

/** What a digest asks for: the parts of a stored digest the content depends on. */
export interface DigestSpec {
  id: number;
  reports: readonly ReportId[];
  filters: FilterGroup[];
  topN: number;
  period: DigestPeriod;
  timeZone: string;
}

/** How many rows of the previous period are fetched to find each top row's earlier value. */
const PREVIOUS_DEPTH = 100;

/**
 * Fetches for digests. Identical requests within a minute (every digest due at
 * 09:00 asking for yesterday's sources) are made once: the promise is shared.
 */
export class DigestFetcher {
  private readonly cache = new LRUCache<string, Promise<readonly ReportRow[]>>({ max: 5_000, ttl: 60_000 });
  /** Requests made to the API (not served from the cache). */
  calls = 0;

  constructor(private readonly api: AnalyticsApi) {}

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
}

/** The period a digest covers when it runs at `now`: the day, 7 days or calendar month before today. */
export function digestRange(period: DigestPeriod, timeZone: string, now: Date): DateRange {
  const today = localDate(now, timeZone) ?? now.toISOString().slice(0, 10);
  const day = (iso: string, delta: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + delta * 86_400_000).toISOString().slice(0, 10);
  const yesterday = day(today, -1);
  let startDate = yesterday;
  let label = 'Yesterday';
  if (period === 'week') {
    startDate = day(today, -7);
    label = 'The last 7 days';
  } else if (period === 'month') {
    const [y, m] = today.split('-').map(Number) as [number, number];
    const first = new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 10);
    const last = day(`${today.slice(0, 8)}01`, -1);
    return { startDate: first, endDate: last, label: `Last month (${formatSpan(first, last)})` };
  }
  return { startDate, endDate: yesterday, label: `${label} (${formatSpan(startDate, yesterday)})` };
}

function errorText(error: unknown): string {
  return error instanceof ApiError ? error.message : 'unexpected error';
}

function rowName(row: ReportRow, field: string): string {
  const value = (row as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : '';
}

function num(row: ReportRow | undefined, field: string | undefined): number | undefined {
  if (!row || !field) return undefined;
  const value = (row as Record<string, unknown>)[field];
  return typeof value === 'number' ? value : undefined;
}

/** Gathers a digest's content. A report that fails is marked in its section; the rest still posts. */
export async function gatherDigest(
  fetcher: DigestFetcher,
  spec: DigestSpec,
  now: Date,
  options: { title: string; demo: boolean; preview: boolean },
): Promise<DigestView> {
  const period = digestRange(spec.period, spec.timeZone, now);
  const previous = previousPeriod(period);
  const base = { filterGroups: spec.filters };
  const at = (range: DateRange) => ({ ...base, startDate: range.startDate, endDate: range.endDate });

  const totalsPromise = (async (): Promise<DigestTotals> => {
    // The API has no totals operation: every visit has one country, so the countries report sums to the total.
    const [now_, before] = await Promise.all([fetcher.all('countries', at(period)), fetcher.all('countries', at(previous))]);
    const sum = (rows: ReportRow[], field: string) => rows.reduce((n, r) => n + (num(r, field) ?? 0), 0);
    return {
      visits: sum(now_, 'total_visits'),
      unique: sum(now_, 'unique_visitors'),
      previousVisits: sum(before, 'total_visits'),
      previousUnique: sum(before, 'unique_visitors'),
    };
  })();

  const sections = spec.reports.map(async (id): Promise<DigestSection> => {
    const def = REPORTS[id];
    try {
      const nameField = def.rowFilter?.rowField ?? def.columns[0]!.field;
      const durationField = def.columns.find((c) => c.format === 'duration')?.field;
      const [current, earlier] = await Promise.all([
        fetcher.report(id, { ...at(period), limit: spec.topN, page: 1 }),
        def.countField ? fetcher.report(id, { ...at(previous), limit: PREVIOUS_DEPTH, page: 1 }) : Promise.resolve([]),
      ]);
      // A row is the same row in both periods when its name and its label (where rows have one) match:
      // two cities may share a name (Paris, Île-de-France, FR and Paris, Texas, US), never a label.
      const keyOf = (row: ReportRow) => `${rowName(row, nameField)}\u0000${rowName(row, 'label')}`;
      const before = new Map(earlier.map((r) => [keyOf(r), r]));
      const lines: DigestLine[] = current.map((row) => {
        const name = rowName(row, nameField);
        const value = num(row, def.countField) ?? 1;
        const old = before.get(keyOf(row));
        return {
          name,
          value,
          // A row absent from the previous top rows shows as "new" only when the previous list was complete;
          // a report without counts (visitors, visits) was not compared at all.
          previous: !def.countField ? undefined : old ? num(old, def.countField) : earlier.length < PREVIOUS_DEPTH ? 0 : undefined,
          duration: num(row, durationField),
        };
      });
      return { def, lines };
    } catch (error) {
      return { def, error: errorText(error) };
    }
  });

  let totals: DigestTotals | undefined;
  let totalsError: string | undefined;
  try {
    totals = await totalsPromise;
  } catch (error) {
    totalsError = errorText(error);
  }
  return {
    id: spec.id,
    title: options.title,
    period,
    previous,
    filters: spec.filters,
    totals,
    totalsError,
    sections: await Promise.all(sections),
    demo: options.demo,
    preview: options.preview,
  };
}
