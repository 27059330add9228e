import type { Queryable } from '../store/db.js';

/** The tables whose rows from before workspaces were told apart carry team '' (migration 015). */
const UNOWNED = ['digest_runs', 'alerts', 'alert_mutes', 'alert_groups', 'deliveries', 'query_stash', 'home_views'];

/**
 * One workspace (SLACK_BOT_TOKEN) takes the rows written before rows named their workspace;
 * how many. Run at start, before any request: no row of the same key can exist yet.
 */
export async function adoptUnowned(db: Queryable, team: string): Promise<number> {
  let adopted = 0;
  for (const table of UNOWNED) {
    const { rows } = await db.query(`UPDATE ${table} SET team_id = $1 WHERE team_id = '' RETURNING 1`, [team]);
    adopted += rows.length;
  }
  return adopted;
}

/** Whether any row still waits to be adopted (a fresh store has none: no need to ask Slack). */
export async function anyUnowned(db: Queryable): Promise<boolean> {
  const { rows } = await db.query(
    UNOWNED.map((t) => `(SELECT 1 FROM ${t} WHERE team_id = '' LIMIT 1)`).join(' UNION ALL '),
  );
  return rows.length > 0;
}
