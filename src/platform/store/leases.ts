/**
 * Leases on job_claims: whoever holds an unexpired row owns the key. Used for
 * "one replica runs this job" (renewed while running) and for one-off slot claims.
 * Expiry is judged by the database clock, the one clock every replica shares.
 */
import type { Queryable } from './db.js';

export class LeaseRepo {
  constructor(private readonly db: Queryable) {}

  /** Takes a free or expired key, or renews it for its current owner; false while someone else holds it. */
  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO job_claims (key, owner, expires_at)
       VALUES ($1, $2, now() + $3::float8 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE job_claims.expires_at < now() OR job_claims.owner = EXCLUDED.owner
       RETURNING key`,
      [key, owner, ttlMs],
    );
    return rows.length > 0;
  }

  /** Gives the key up, if `owner` holds it. */
  async release(key: string, owner: string): Promise<boolean> {
    const { rows } = await this.db.query('DELETE FROM job_claims WHERE key = $1 AND owner = $2 RETURNING key', [
      key,
      owner,
    ]);
    return rows.length > 0;
  }

  /** Who holds these leases, where unexpired. */
  async holders(keys: readonly string[]): Promise<{ key: string; owner: string }[]> {
    const { rows } = await this.db.query<{ key: string; owner: string }>(
      'SELECT key, owner FROM job_claims WHERE key = ANY($1::text[]) AND expires_at > now() ORDER BY key',
      [keys],
    );
    return rows;
  }

  /** Deletes leases that expired before `olderThan` (slot claims pile up otherwise); returns how many. */
  async pruneExpired(olderThan: Date): Promise<number> {
    const { rows } = await this.db.query('DELETE FROM job_claims WHERE expires_at < $1 RETURNING key', [olderThan]);
    return rows.length;
  }
}
