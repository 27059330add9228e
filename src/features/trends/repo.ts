/** The figures of trend periods that are over at the API: final ones for good, provisional ones (a first read, a young period, a suspect empty answer) until they are asked again. */
import { createHash } from 'node:crypto';
import type { FilterGroup } from '../../kernel/filters.js';
import type { Keeping, TrendMetric } from '../../kernel/trend.js';
import type { Queryable } from '../../platform/store/db.js';

/** Where a trend's figures are kept: the report they sum, its filters and the zone its days are in. */
export interface TrendSeriesKey {
  /** The analytics account the figures are of (platform/api/account.ts). */
  account: string;
  report: string;
  filters: readonly FilterGroup[];
  timeZone: string;
}

export interface TrendPoint extends Keeping {
  bucket: string;
  metric: TrendMetric;
  value: number;
}

/** A kept figure, by `bucket|metric`. */
export type KeptPoint = Omit<TrendPoint, 'bucket' | 'metric'>;

/** The filters as a short key: the same conditions in the same order are the same key. */
export function filtersKey(filters: readonly FilterGroup[]): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 32);
}

export class TrendRepo {
  constructor(private readonly db: Queryable) {}

  /** The kept figures of these buckets, by `bucket|metric`. */
  async get(key: TrendSeriesKey, buckets: readonly string[]): Promise<Map<string, KeptPoint>> {
    if (buckets.length === 0) return new Map();
    const { rows } = await this.db.query<{
      bucket: string;
      metric: string;
      value: number;
      final: boolean;
      suspect: boolean;
      confirmed: boolean;
      recheck_at: Date | string | null;
    }>(
      'SELECT bucket, metric, value, final, suspect, confirmed, recheck_at FROM trend_points WHERE account = $5 AND report = $1 AND filters_key = $2 AND time_zone = $3 AND bucket = ANY($4::text[])',
      [key.report, filtersKey(key.filters), key.timeZone, buckets, key.account],
    );
    return new Map(
      rows.map((r) => [
        `${r.bucket}|${r.metric}`,
        {
          value: Number(r.value),
          final: r.final,
          suspect: r.suspect,
          confirmed: r.confirmed,
          ...(r.recheck_at === null ? {} : { recheckAt: new Date(r.recheck_at).getTime() }),
        },
      ]),
    );
  }

  /** Keeps figures: a new one, or a provisional one asked again. A final figure stays as it was. */
  async put(key: TrendSeriesKey, points: readonly TrendPoint[]): Promise<void> {
    if (points.length === 0) return;
    await this.db.query(
      `INSERT INTO trend_points (account, report, filters_key, time_zone, bucket, metric, value, final, suspect, confirmed, recheck_at, fetched_at)
       SELECT $10, $1, $2, $3, b, m, v, f, s, c, CASE WHEN r IS NULL THEN NULL ELSE to_timestamp(r / 1000.0) END, now()
         FROM unnest($4::text[], $5::text[], $6::float8[], $7::boolean[], $8::boolean[], $9::float8[], $11::boolean[]) AS p(b, m, v, f, s, r, c)
       ON CONFLICT (account, report, filters_key, time_zone, bucket, metric) DO UPDATE
         SET value = EXCLUDED.value, final = EXCLUDED.final, suspect = EXCLUDED.suspect, confirmed = EXCLUDED.confirmed,
             recheck_at = EXCLUDED.recheck_at, fetched_at = EXCLUDED.fetched_at
         WHERE NOT trend_points.final`,
      [
        key.report,
        filtersKey(key.filters),
        key.timeZone,
        points.map((p) => p.bucket),
        points.map((p) => p.metric),
        points.map((p) => p.value),
        points.map((p) => p.final),
        points.map((p) => p.suspect),
        points.map((p) => p.recheckAt ?? null),
        key.account,
        points.map((p) => p.confirmed),
      ],
    );
  }

  /** Drops the provisional figures of these buckets (a final figure stays): they are asked again the next time they are wanted. */
  async forget(key: TrendSeriesKey, buckets: readonly string[]): Promise<void> {
    if (buckets.length === 0) return;
    await this.db.query(
      'DELETE FROM trend_points WHERE account = $5 AND report = $1 AND filters_key = $2 AND time_zone = $3 AND bucket = ANY($4::text[]) AND NOT final',
      [key.report, filtersKey(key.filters), key.timeZone, buckets, key.account],
    );
  }

  /** How many figures are kept (for status and tests). */
  async count(): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>('SELECT count(*) AS n FROM trend_points');
    return Number(rows[0]?.n ?? 0);
  }
}
