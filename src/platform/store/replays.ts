/**
 * Replay keys: something seen once (a request's signature, an event's id) that must not be
 * acted on again while the window it guards lasts. Each kind of key has its prefix
 * (`request:`, `event:`), and the table holds nothing else. Expiry is judged by the
 * database clock, the one clock every replica shares.
 */
import type { Queryable } from './db.js';

export class ReplayRepo {
  constructor(private readonly db: Queryable) {}

  /** True the first time `key` is seen within `ttlMs` (the window it guards), on any replica. */
  async firstSeen(key: string, ttlMs: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO replay_keys (key, expires_at)
       VALUES ($1, now() + $2::float8 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at
       WHERE replay_keys.expires_at < now()
       RETURNING key`,
      [key, ttlMs],
    );
    return rows.length > 0;
  }

  /** Deletes keys whose window ended before `olderThan`; returns how many. */
  async prune(olderThan: Date): Promise<number> {
    const { rows } = await this.db.query('DELETE FROM replay_keys WHERE expires_at < $1 RETURNING key', [olderThan]);
    return rows.length;
  }
}
