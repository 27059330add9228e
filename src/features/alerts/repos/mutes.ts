/** Visitors muted in a channel, until a moment or for good. */
import type { Queryable } from '../../../platform/store/db.js';
import { fromRow } from '../../../platform/store/rows.js';

export interface AlertMute {
  teamId: string;
  channelId: string;
  visitorId: string;
  /** Muted until this moment; undefined: for good. */
  until?: Date;
  mutedBy: string;
  createdAt: Date;
}

const toMute = (row: Record<string, unknown>) => fromRow<AlertMute>(row);

/** A mute is active while it has no end or its end is after `now`. */
const active = (nowParam: number) => `(until IS NULL OR until > $${nowParam})`;

export class AlertMuteRepo {
  constructor(private readonly db: Queryable) {}

  /** Mutes the visitor in the channel until `until` (null: for good); muting again replaces the mute. */
  async mute(
    team: string,
    channelId: string,
    visitorId: string,
    until: Date | null,
    mutedBy: string,
  ): Promise<AlertMute> {
    const { rows } = await this.db.query(
      `INSERT INTO alert_mutes (team_id, channel_id, visitor_id, until, muted_by)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (team_id, channel_id, visitor_id) DO UPDATE SET
         until = EXCLUDED.until, muted_by = EXCLUDED.muted_by, created_at = now()
       RETURNING *`,
      [team, channelId, visitorId, until, mutedBy],
    );
    return toMute(rows[0]!);
  }

  /** False when the visitor was not muted (an expired mute still counts as one, and is removed). */
  async unmute(team: string, channelId: string, visitorId: string): Promise<boolean> {
    const { rows } = await this.db.query(
      'DELETE FROM alert_mutes WHERE team_id = $1 AND channel_id = $2 AND visitor_id = $3 RETURNING visitor_id',
      [team, channelId, visitorId],
    );
    return rows.length > 0;
  }

  /** The active mutes among these visitors, by visitor id. */
  async activeFor(
    team: string,
    channelId: string,
    visitorIds: readonly string[],
    now: Date,
  ): Promise<Map<string, AlertMute>> {
    if (visitorIds.length === 0) return new Map();
    const { rows } = await this.db.query(
      `SELECT * FROM alert_mutes WHERE team_id = $4 AND channel_id = $1 AND visitor_id = ANY($2::text[]) AND ${active(3)}`,
      [channelId, visitorIds, now, team],
    );
    return new Map(rows.map((row) => [String(row.visitor_id), toMute(row)]));
  }

  /** The channel's active mutes, oldest first. */
  async listActive(team: string, channelId: string, now: Date): Promise<AlertMute[]> {
    const { rows } = await this.db.query(
      `SELECT * FROM alert_mutes WHERE team_id = $3 AND channel_id = $1 AND ${active(2)} ORDER BY created_at, visitor_id`,
      [channelId, now, team],
    );
    return rows.map(toMute);
  }

  /** The visitor's active mute in the channel, if any. */
  async isMuted(team: string, channelId: string, visitorId: string, now: Date): Promise<AlertMute | undefined> {
    const { rows } = await this.db.query(
      `SELECT * FROM alert_mutes WHERE team_id = $4 AND channel_id = $1 AND visitor_id = $2 AND ${active(3)}`,
      [channelId, visitorId, now, team],
    );
    return rows[0] && toMute(rows[0]);
  }
}
