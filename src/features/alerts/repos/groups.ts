import type { Queryable } from '../../../platform/store/db.js';
import { fromRow } from '../../../platform/store/rows.js';

/** New alerts of a channel within a window, announced by one message (kept by the threat scan). */
export interface AlertGroup {
  id: number;
  teamId: string;
  channelId: string;
  startedAt: Date;
  /** Alerts decided before this join the group. */
  endsAt: Date;
  /** The delivery of its top-level message. */
  deliveryId: number;
  /** Its message is the summary (false while it is its first visitor's alert). */
  summarised: boolean;
  createdAt: Date;
}

/** The advisory locks of alert groups, apart from any other ("Grp" in ASCII). */
const GROUP_LOCK = 0x477270;

const toGroup = (row: Record<string, unknown>): AlertGroup => ({
  ...fromRow<AlertGroup>(row),
  id: Number(row.id),
  deliveryId: Number(row.delivery_id),
});

export class AlertGroupRepo {
  constructor(private readonly db: Queryable) {}

  async create(
    input: Pick<AlertGroup, 'teamId' | 'channelId' | 'startedAt' | 'endsAt' | 'deliveryId' | 'summarised'>,
  ): Promise<AlertGroup> {
    const { rows } = await this.db.query(
      'INSERT INTO alert_groups (team_id, channel_id, started_at, ends_at, delivery_id, summarised) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *',
      [input.teamId, input.channelId, input.startedAt, input.endsAt, input.deliveryId, input.summarised],
    );
    return toGroup(rows[0]!);
  }

  /** The channel's latest group whose window is not over at `now`. */
  async latestOpen(team: string, channelId: string, now: Date): Promise<AlertGroup | undefined> {
    const { rows } = await this.db.query(
      'SELECT * FROM alert_groups WHERE team_id = $3 AND channel_id = $1 AND ends_at > $2 ORDER BY id DESC LIMIT 1',
      [channelId, now, team],
    );
    return rows[0] && toGroup(rows[0]);
  }

  /** Waits for (and holds until the transaction ends) the right to decide the channel's groups: one scan at a time. */
  async lock(team: string, channelId: string): Promise<void> {
    await this.db.query("SELECT pg_advisory_xact_lock($1, hashtext($2 || ' ' || $3))", [GROUP_LOCK, team, channelId]);
  }

  /** Its message is the summary from now on. */
  async summarise(team: string, id: number): Promise<void> {
    await this.db.query('UPDATE alert_groups SET summarised = true WHERE team_id = $2 AND id = $1', [id, team]);
  }

  /** Deletes groups whose window ended before `endedBefore` (only open ones are ever read); returns how many. */
  async prune(endedBefore: Date): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      'WITH gone AS (DELETE FROM alert_groups WHERE ends_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
      [endedBefore],
    );
    return Number(rows[0]?.n ?? 0);
  }
}
