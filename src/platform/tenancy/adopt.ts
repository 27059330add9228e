import type { Queryable } from '../store/db.js';
import type { Platform } from '../open.js';

/** The platform's tables whose rows from before workspaces were told apart carry team '' (migration 015); features add theirs. */
export const PLATFORM_UNOWNED = ['deliveries', 'query_stash'];

/**
 * One workspace (SLACK_BOT_TOKEN) takes the rows written before rows named their workspace,
 * in these tables; how many. Run at start, before any request: no row of the same key can exist yet.
 */
export async function adoptUnowned(db: Queryable, tables: readonly string[], team: string): Promise<number> {
  let adopted = 0;
  for (const table of tables) {
    const { rows } = await db.query(`UPDATE ${table} SET team_id = $1 WHERE team_id = '' RETURNING 1`, [team]);
    adopted += rows.length;
  }
  return adopted;
}

/** Whether any row of these tables still waits to be adopted (a fresh store has none: no need to ask Slack). */
export async function anyUnowned(db: Queryable, tables: readonly string[]): Promise<boolean> {
  if (tables.length === 0) return false;
  const { rows } = await db.query(
    tables.map((t) => `(SELECT 1 FROM ${t} WHERE team_id = '' LIMIT 1)`).join(' UNION ALL '),
  );
  return rows.length > 0;
}

/** One workspace learns its team id from Slack (auth.test) and takes the rows of these tables from before rows named theirs. */
export async function adoptRows(platform: Platform, tables: readonly string[]): Promise<void> {
  const log = platform.log.child({ component: 'store' });
  try {
    if (!(await anyUnowned(platform.repos.db, tables))) return;
    const client = await platform.tenants.web('', { retryConfig: { retries: 0 } });
    const team = (await client.auth.test()).team_id;
    if (!team) return;
    const adopted = await adoptUnowned(platform.repos.db, tables, team);
    if (adopted > 0) log.info({ adopted, team }, 'rows from before workspaces were told apart now belong to this one');
  } catch (error) {
    log.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'could not ask Slack which workspace this is; rows from before workspaces were told apart wait for the next start',
    );
  }
}
