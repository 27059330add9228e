/** Who has opened the Home tab, in which workspace, and what it last showed them. */
import type { Queryable } from '../../platform/store/db.js';

export class HomeViewRepo {
  constructor(private readonly db: Queryable) {}

  /** `user` opened their Home in workspace `team`, or pressed one of its buttons, and now sees the view with this hash. */
  async opened(team: string, user: string, hash: string): Promise<void> {
    await this.db.query(
      `INSERT INTO home_views (team_id, user_id, opened_at, view_hash) VALUES ($1, $2, now(), $3)
       ON CONFLICT (team_id, user_id) DO UPDATE SET opened_at = now(), view_hash = $3`,
      [team, user, hash],
    );
  }

  /** The view hash is recorded when it is queued; a publish that failed for good forgets it, so the next change publishes again. */
  async published(team: string, user: string, hash: string | null): Promise<void> {
    await this.db.query('UPDATE home_views SET view_hash = $3 WHERE team_id = $1 AND user_id = $2', [team, user, hash]);
  }

  /**
   * Of `users` (all when undefined), those who opened their Home within `withinMs`, in each
   * workspace they opened it in, with the hash of what it shows there.
   */
  async audience(
    users: readonly string[] | undefined,
    withinMs: number,
  ): Promise<{ team: string; user: string; hash?: string }[]> {
    const { rows } = await this.db.query<{ team_id: string; user_id: string; view_hash: string | null }>(
      `SELECT team_id, user_id, view_hash FROM home_views
       WHERE ($1::text[] IS NULL OR user_id = ANY($1::text[])) AND opened_at > now() - $2::float8 * interval '1 millisecond'
       ORDER BY team_id, user_id`,
      [users ?? null, withinMs],
    );
    return rows.map((r) => ({ team: r.team_id, user: r.user_id, ...(r.view_hash ? { hash: r.view_hash } : {}) }));
  }
}
