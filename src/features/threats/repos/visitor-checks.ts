/** The threat scan's verdict store: each analytics account's security answers per visitor, a cache reused for ALERT_RECHECK_AFTER. */
import type { Queryable } from '../../../platform/store/db.js';

export interface VisitorCheck {
  facts: unknown;
  checkedAt: Date;
}

export interface VisitorCheckEntry extends VisitorCheck {
  visitorId: string;
}

/** Rows per INSERT: each chunk is one statement with one jsonb parameter. */
const SAVE_CHUNK = 1_000;

export class VisitorCheckRepo {
  constructor(private readonly db: Queryable) {}

  /** An analytics account's answers for these visitors checked at or after `notBefore`, by visitor id. */
  async getFresh(account: string, visitorIds: readonly string[], notBefore: Date): Promise<Map<string, VisitorCheck>> {
    if (visitorIds.length === 0) return new Map();
    const { rows } = await this.db.query<{ visitor_id: string; facts: unknown; checked_at: Date }>(
      'SELECT * FROM visitor_checks WHERE account = $3 AND visitor_id = ANY($1::text[]) AND checked_at >= $2',
      [visitorIds, notBefore, account],
    );
    return new Map(rows.map((row) => [row.visitor_id, { facts: row.facts, checkedAt: row.checked_at }]));
  }

  /**
   * Stores answers, SAVE_CHUNK rows per statement. A visitor's stored answer is replaced
   * only by one checked at the same moment or later; of duplicates in `entries`, the last
   * with the latest checkedAt wins. Chunks are not one transaction (it is a cache).
   */
  async save(account: string, entries: readonly VisitorCheckEntry[]): Promise<void> {
    // One statement cannot update a row twice: keep one entry per visitor.
    const latest = new Map<string, VisitorCheckEntry>();
    for (const entry of entries) {
      const seen = latest.get(entry.visitorId);
      if (!seen || seen.checkedAt.getTime() <= entry.checkedAt.getTime()) latest.set(entry.visitorId, entry);
    }
    const unique = [...latest.values()];
    for (let i = 0; i < unique.length; i += SAVE_CHUNK) {
      const chunk = unique.slice(i, i + SAVE_CHUNK).map((e) => ({
        visitor_id: e.visitorId,
        facts: e.facts ?? null,
        checked_at: e.checkedAt.toISOString(),
      }));
      await this.db.query(
        `INSERT INTO visitor_checks (account, visitor_id, facts, checked_at)
         SELECT $2, visitor_id, coalesce(facts, 'null'::jsonb), checked_at
         FROM jsonb_to_recordset($1::jsonb) AS e(visitor_id text, facts jsonb, checked_at timestamptz)
         ON CONFLICT (account, visitor_id) DO UPDATE SET facts = EXCLUDED.facts, checked_at = EXCLUDED.checked_at
         WHERE visitor_checks.checked_at <= EXCLUDED.checked_at`,
        [JSON.stringify(chunk), account],
      );
    }
  }

  /** Deletes answers checked before `olderThan`; returns how many. */
  async prune(olderThan: Date): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM visitor_checks WHERE checked_at < $1 RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [olderThan],
    );
    return Number(rows[0]?.n ?? 0);
  }
}
