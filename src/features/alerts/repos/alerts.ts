/** One alert per visitor per channel: the row is the claim, so exactly one replica posts it. */
import { SEVERITIES, type Severity } from '../../../kernel/verdict.js';
import type { Queryable } from '../../../platform/store/db.js';
import { fromRow } from '../../../platform/store/rows.js';

/** Severities from the lowest up: a raise must move right. */
const SEVERITY_SQL_ORDER = `ARRAY[${SEVERITIES.map((s) => `'${s}'`).join(', ')}]`;

/** The visit behind an alert, as the API gave it. */
export type AlertVisit = Record<string, unknown>;

export interface AlertClaim {
  teamId: string;
  channelId: string;
  visitorId: string;
  severity: Severity;
  verdict: string;
  reasons: string[];
  visit: AlertVisit;
  firstSeen?: Date;
  lastSeen: Date;
  /** Visits already seen (default 1). */
  sightings?: number;
}

export interface AlertSighting {
  /** How many more sightings (visits) to add. */
  count: number;
  lastSeen: Date;
  /** Replaces the stored visit. */
  visit: AlertVisit;
}

export interface AlertRaise {
  severity: Severity;
  verdict: string;
  reasons: string[];
  visit: AlertVisit;
  lastSeen: Date;
}

export interface Alert extends Omit<AlertClaim, 'firstSeen'> {
  firstSeen?: Date;
  /** Set once posted. */
  messageTs?: string;
  /** Where the alert's details and threads go: its own ts or its group's. */
  threadTs?: string;
  /** The group it was announced in, if any. */
  groupId?: number;
  /** The delivery that announces it now: only its post records messageTs. */
  deliveryId?: number;
  sightings: number;
  acknowledgedBy?: string;
  acknowledgedAt?: Date;
  createdAt: Date;
  updatedAt: Date;
}

const toAlert = (row: Record<string, unknown>): Alert => ({
  ...fromRow<Alert>(row),
  sightings: Number(row.sightings),
  groupId: row.group_id == null ? undefined : Number(row.group_id),
  deliveryId: row.delivery_id == null ? undefined : Number(row.delivery_id),
});

export class AlertRepo {
  constructor(private readonly db: Queryable) {}

  /**
   * Records a new alert for the visitor in the channel. True only for the one caller
   * that inserted the row: that caller posts it; everyone else records a sighting.
   */
  async claim(input: AlertClaim): Promise<boolean> {
    const { rows } = await this.db.query(
      `INSERT INTO alerts (channel_id, visitor_id, severity, verdict, reasons, visit, first_seen, last_seen, sightings, team_id)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9, $10)
       ON CONFLICT (team_id, channel_id, visitor_id) DO NOTHING
       RETURNING visitor_id`,
      [
        input.channelId,
        input.visitorId,
        input.severity,
        input.verdict,
        JSON.stringify(input.reasons),
        JSON.stringify(input.visit),
        input.firstSeen ?? null,
        input.lastSeen,
        input.sightings ?? 1,
        input.teamId,
      ],
    );
    return rows.length > 0;
  }

  /**
   * Records the posted message and where its details go, when `deliveryId` is the delivery
   * that announces the alert now (or none is recorded); false otherwise, or when there is no such alert.
   */
  async setPosted(
    team: string,
    channelId: string,
    visitorId: string,
    messageTs: string,
    threadTs: string,
    deliveryId?: number,
  ): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE alerts SET message_ts = $3, thread_ts = $4, updated_at = now()
       WHERE team_id = $6 AND channel_id = $1 AND visitor_id = $2 AND (delivery_id IS NULL OR delivery_id = $5) RETURNING visitor_id`,
      [channelId, visitorId, messageTs, threadTs, deliveryId ?? null, team],
    );
    return rows.length > 0;
  }

  /**
   * Records the delivery that announces the alert now, and its group. `moved`: the alert is
   * announced again elsewhere (into its group's thread), so it has no message until that
   * delivery is posted. False when there is no such alert.
   */
  async announce(
    team: string,
    channelId: string,
    visitorId: string,
    deliveryId: number,
    options: { groupId?: number; moved?: boolean } = {},
  ): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE alerts SET delivery_id = $3, group_id = coalesce($4, group_id),
         message_ts = CASE WHEN $5 THEN NULL ELSE message_ts END, thread_ts = CASE WHEN $5 THEN NULL ELSE thread_ts END,
         updated_at = now()
       WHERE team_id = $6 AND channel_id = $1 AND visitor_id = $2 RETURNING visitor_id`,
      [channelId, visitorId, deliveryId, options.groupId ?? null, options.moved ?? false, team],
    );
    return rows.length > 0;
  }

  /** The alerts of a group, in the order their visitors showed up. */
  async inGroup(team: string, groupId: number): Promise<Alert[]> {
    const { rows } = await this.db.query(
      'SELECT * FROM alerts WHERE team_id = $2 AND group_id = $1 ORDER BY coalesce(first_seen, last_seen), visitor_id',
      [groupId, team],
    );
    return rows.map(toAlert);
  }

  /** The workspace's latest alerts, by when their visitor was last seen. */
  async recent(team: string, limit: number): Promise<Alert[]> {
    const { rows } = await this.db.query(
      'SELECT * FROM alerts WHERE team_id = $2 ORDER BY last_seen DESC, channel_id, visitor_id LIMIT $1',
      [limit, team],
    );
    return rows.map(toAlert);
  }

  async get(team: string, channelId: string, visitorId: string): Promise<Alert | undefined> {
    const { rows } = await this.db.query(
      'SELECT * FROM alerts WHERE team_id = $1 AND channel_id = $2 AND visitor_id = $3',
      [team, channelId, visitorId],
    );
    return rows[0] && toAlert(rows[0]);
  }

  /** The channel's alerts for these visitors, by visitor id. */
  async getMany(team: string, channelId: string, visitorIds: readonly string[]): Promise<Map<string, Alert>> {
    if (visitorIds.length === 0) return new Map();
    const { rows } = await this.db.query(
      'SELECT * FROM alerts WHERE team_id = $3 AND channel_id = $1 AND visitor_id = ANY($2::text[])',
      [channelId, visitorIds, team],
    );
    return new Map(rows.map((row) => [String(row.visitor_id), toAlert(row)]));
  }

  /**
   * Adds `count` sightings, moves last_seen forward (never back) and replaces the visit,
   * in one statement (concurrent sightings all count). The updated alert; undefined when there is none.
   */
  async recordSighting(
    team: string,
    channelId: string,
    visitorId: string,
    sighting: AlertSighting,
  ): Promise<Alert | undefined> {
    const { rows } = await this.db.query(
      `UPDATE alerts SET sightings = sightings + $3, last_seen = greatest(last_seen, $4::timestamptz),
         visit = $5::jsonb, updated_at = now()
       WHERE team_id = $6 AND channel_id = $1 AND visitor_id = $2 RETURNING *`,
      [channelId, visitorId, sighting.count, sighting.lastSeen, JSON.stringify(sighting.visit), team],
    );
    return rows[0] && toAlert(rows[0]);
  }

  /**
   * Raises the alert to a higher severity: new severity, verdict, reasons and visit,
   * last_seen moved forward, and the acknowledgement cleared (it was for the lower one).
   * Undefined when there is no such alert or its severity is already as high: of two
   * concurrent raises to the same severity only one clears an acknowledgement.
   */
  async raise(team: string, channelId: string, visitorId: string, raise: AlertRaise): Promise<Alert | undefined> {
    const { rows } = await this.db.query(
      `UPDATE alerts SET severity = $3, verdict = $4, reasons = $5::jsonb, visit = $6::jsonb,
         last_seen = greatest(last_seen, $7::timestamptz),
         acknowledged_by = NULL, acknowledged_at = NULL, updated_at = now()
       WHERE team_id = $8 AND channel_id = $1 AND visitor_id = $2
         AND array_position(${SEVERITY_SQL_ORDER}, $3::text) > array_position(${SEVERITY_SQL_ORDER}, severity)
       RETURNING *`,
      [
        channelId,
        visitorId,
        raise.severity,
        raise.verdict,
        JSON.stringify(raise.reasons),
        JSON.stringify(raise.visit),
        raise.lastSeen,
        team,
      ],
    );
    return rows[0] && toAlert(rows[0]);
  }

  /**
   * Records who acknowledged the alert. The first acknowledgement stands: a second one
   * returns the alert unchanged (compare acknowledgedBy). Undefined when there is no such alert.
   */
  async acknowledge(
    team: string,
    channelId: string,
    visitorId: string,
    userId: string,
    at: Date,
  ): Promise<Alert | undefined> {
    const { rows } = await this.db.query(
      `UPDATE alerts SET acknowledged_by = coalesce(acknowledged_by, $3),
         acknowledged_at = CASE WHEN acknowledged_by IS NULL THEN $4::timestamptz ELSE acknowledged_at END,
         updated_at = CASE WHEN acknowledged_by IS NULL THEN now() ELSE updated_at END
       WHERE team_id = $5 AND channel_id = $1 AND visitor_id = $2 RETURNING *`,
      [channelId, visitorId, userId, at, team],
    );
    return rows[0] && toAlert(rows[0]);
  }

  /** Deletes the alert (its post failed), so the next scan claims it again; false when there was none. */
  async forget(team: string, channelId: string, visitorId: string): Promise<boolean> {
    const { rows } = await this.db.query(
      'DELETE FROM alerts WHERE team_id = $3 AND channel_id = $1 AND visitor_id = $2 RETURNING visitor_id',
      [channelId, visitorId, team],
    );
    return rows.length > 0;
  }

  /** The workspace's distinct visitors (of one channel, or all; one alert per channel each) whose first to last visit seen overlaps [from, to). */
  async countSeenBetween(team: string, channelId: string | undefined, from: Date, to: Date): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      `SELECT count(DISTINCT visitor_id)::int AS n FROM alerts
       WHERE team_id = $4 AND ($1::text IS NULL OR channel_id = $1) AND last_seen >= $2 AND COALESCE(first_seen, last_seen) < $3`,
      [channelId ?? null, from, to, team],
    );
    return Number(rows[0]?.n ?? 0);
  }
}
