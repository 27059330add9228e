/** The figures of finished trend periods, kept for good: a finished day never changes. */
import { createHash } from 'node:crypto';
import type { FilterGroup } from '../../kernel/filters.js';
import type { TrendMetric } from '../../kernel/trend.js';
import type { Queryable } from '../../platform/store/db.js';

/** Where a trend's figures are kept: the report they sum, its filters and the zone its days are in. */
export interface TrendSeriesKey {
  report: string;
  filters: readonly FilterGroup[];
  timeZone: string;
}

export interface TrendPoint {
  bucket: string;
  metric: TrendMetric;
  value: number;
}

/** The filters as a short key: the same conditions in the same order are the same key. */
export function filtersKey(filters: readonly FilterGroup[]): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 32);
}

export class TrendRepo {
  constructor(private readonly db: Queryable) {}

  /** The stored figures of these buckets, by `bucket|metric`. */
  async get(key: TrendSeriesKey, buckets: readonly string[]): Promise<Map<string, number>> {
    if (buckets.length === 0) return new Map();
    const { rows } = await this.db.query<{ bucket: string; metric: string; value: number }>(
      'SELECT bucket, metric, value FROM trend_points WHERE report = $1 AND filters_key = $2 AND time_zone = $3 AND bucket = ANY($4::text[])',
      [key.report, filtersKey(key.filters), key.timeZone, buckets],
    );
    return new Map(rows.map((r) => [`${r.bucket}|${r.metric}`, Number(r.value)]));
  }

  /** Keeps figures; a figure already kept stays as it was. */
  async put(key: TrendSeriesKey, points: readonly TrendPoint[]): Promise<void> {
    if (points.length === 0) return;
    await this.db.query(
      `INSERT INTO trend_points (report, filters_key, time_zone, bucket, metric, value)
       SELECT $1, $2, $3, b, m, v FROM unnest($4::text[], $5::text[], $6::float8[]) AS p(b, m, v)
       ON CONFLICT DO NOTHING`,
      [key.report, filtersKey(key.filters), key.timeZone, points.map((p) => p.bucket), points.map((p) => p.metric), points.map((p) => p.value)],
    );
  }

  /** How many figures are kept (for status and tests). */
  async count(): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>('SELECT count(*) AS n FROM trend_points');
    return Number(rows[0]?.n ?? 0);
  }
}
