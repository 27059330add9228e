/** Who has opened the Home tab, and what it last showed them. */
import type { Queryable } from '../../platform/store/db.js';

export class HomeViewRepo {
  constructor(private readonly db: Queryable) {}

  /** `user` opened their Home, or pressed one of its buttons, and now sees the view with this hash. */
  async opened(user: string, hash: string): Promise<void> {
    await this.db.query(
      `INSERT INTO home_views (user_id, opened_at, view_hash) VALUES ($1, now(), $2)
       ON CONFLICT (user_id) DO UPDATE SET opened_at = now(), view_hash = $2`,
      [user, hash],
    );
  }

  /** The view hash is recorded when it is queued; a publish that failed for good forgets it, so the next change publishes again. */
  async published(user: string, hash: string | null): Promise<void> {
    await this.db.query('UPDATE home_views SET view_hash = $2 WHERE user_id = $1', [user, hash]);
  }

  /** Of `users` (all when undefined), those who opened their Home within `withinMs`, with the hash of what it shows. */
  async audience(users: readonly string[] | undefined, withinMs: number): Promise<{ user: string; hash?: string }[]> {
    const { rows } = await this.db.query<{ user_id: string; view_hash: string | null }>(
      `SELECT user_id, view_hash FROM home_views
       WHERE ($1::text[] IS NULL OR user_id = ANY($1::text[])) AND opened_at > now() - $2::float8 * interval '1 millisecond'
       ORDER BY user_id`,
      [users ?? null, withinMs],
    );
    return rows.map((r) => ({ user: r.user_id, ...(r.view_hash ? { hash: r.view_hash } : {}) }));
  }
}
