/**
 * Security alerts: which channels subscribe, muted visitors, one alert per visitor per
 * channel (the row is the claim, so exactly one replica posts it), a cache of security
 * answers per visitor, and the threat scan's progress.
 */
import { SEVERITIES, type AlertCheck, type Severity } from '../../kernel/verdict.js';
import type { Queryable } from '../../platform/store/db.js';
import { fromRow } from '../../platform/store/rows.js';
import type { Grouping } from './plan.js';

/** Severities from the lowest up: a raise must move right. */
const SEVERITY_SQL_ORDER = `ARRAY[${SEVERITIES.map((s) => `'${s}'`).join(', ')}]`;

// ---------------------------------------------------------------- subscriptions

export interface AlertSubscriptionInput {
  channelId: string;
  teamId: string;
  minSeverity: Severity;
  checks: AlertCheck[];
  createdBy: string;
  /** How new alerts go out (default grouped). */
  grouping?: Grouping;
}

export interface AlertSubscription extends AlertSubscriptionInput {
  grouping: Grouping;
  /** Why Slack refuses the channel (gone, archived, Lookout not a member), until a post succeeds or it is subscribed again. */
  attention?: string;
  createdAt: Date;
  updatedAt: Date;
}

const toSubscription = (row: Record<string, unknown>) => fromRow<AlertSubscription>(row);

export class AlertSubscriptionRepo {
  constructor(private readonly db: Queryable) {}

  /**
   * Subscribes the channel, or changes its subscription (bumping updated_at). A change
   * keeps the original createdBy and createdAt.
   */
  async upsert(input: AlertSubscriptionInput): Promise<AlertSubscription> {
    const { rows } = await this.db.query(
      `INSERT INTO alert_subscriptions (channel_id, team_id, min_severity, checks, created_by, grouping)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6)
       ON CONFLICT (team_id, channel_id) DO UPDATE SET
         min_severity = EXCLUDED.min_severity, checks = EXCLUDED.checks, grouping = EXCLUDED.grouping,
         attention = NULL, updated_at = now()
       RETURNING *`,
      [
        input.channelId,
        input.teamId,
        input.minSeverity,
        JSON.stringify(input.checks),
        input.createdBy,
        input.grouping ?? 'grouped',
      ],
    );
    return toSubscription(rows[0]!);
  }

  /** Unsubscribes the channel; false when it was not subscribed. Its alerts and mutes stay. */
  async remove(team: string, channelId: string): Promise<boolean> {
    const { rows } = await this.db.query(
      'DELETE FROM alert_subscriptions WHERE team_id = $1 AND channel_id = $2 RETURNING channel_id',
      [team, channelId],
    );
    return rows.length > 0;
  }

  async get(team: string, channelId: string): Promise<AlertSubscription | undefined> {
    const { rows } = await this.db.query('SELECT * FROM alert_subscriptions WHERE team_id = $1 AND channel_id = $2', [
      team,
      channelId,
    ]);
    return rows[0] && toSubscription(rows[0]);
  }

  /**
   * Marks the channel as refused by Slack; the subscription as it was before, so only the
   * first refusal tells its owner. Two refusals at once: one finds it unmarked (the row
   * lock orders them, and the second re-reads `attention`), the other marked.
   */
  async markAttention(team: string, channelId: string, reason: string): Promise<AlertSubscription | undefined> {
    const first = await this.db.query(
      'UPDATE alert_subscriptions SET attention = $3 WHERE team_id = $1 AND channel_id = $2 AND attention IS NULL RETURNING *',
      [team, channelId, reason],
    );
    if (first.rows[0]) return { ...toSubscription(first.rows[0]), attention: undefined };
    const { rows } = await this.db.query(
      'UPDATE alert_subscriptions SET attention = $3 WHERE team_id = $1 AND channel_id = $2 RETURNING *',
      [team, channelId, reason],
    );
    return rows[0] && toSubscription(rows[0]);
  }

  /** A post reached the channel: whatever needed attention is fixed. */
  async clearAttention(team: string, channelId: string): Promise<void> {
    await this.db.query(
      'UPDATE alert_subscriptions SET attention = NULL WHERE team_id = $1 AND channel_id = $2 AND attention IS NOT NULL',
      [team, channelId],
    );
  }

  /** The subscriptions of these workspaces (undefined: of every workspace), oldest first. */
  async list(teams: readonly string[] | undefined): Promise<AlertSubscription[]> {
    const { rows } = await this.db.query(
      'SELECT * FROM alert_subscriptions WHERE $1::text[] IS NULL OR team_id = ANY($1::text[]) ORDER BY created_at, team_id, channel_id',
      [teams ?? null],
    );
    return rows.map(toSubscription);
  }
}

// ---------------------------------------------------------------- mutes

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

// ---------------------------------------------------------------- alerts

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

// ---------------------------------------------------------------- groups

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

// ---------------------------------------------------------------- visitor checks

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

// ---------------------------------------------------------------- watch state

/** Whatever a scan counted (visits, checked, alerts, …). */
export type WatchCounts = Record<string, number>;

export interface ScanProgress {
  /** The latest visit time handled; null before the first. */
  watermark: Date | null;
  /** The ids of the visits handled AT the watermark instant. */
  seenIds: string[];
  counts: WatchCounts;
  /** When the scan finished. */
  at: Date;
}

export interface ScanState {
  key: string;
  watermark?: Date;
  seenIds: string[];
  /** The last successful scan. */
  lastScanAt?: Date;
  /** The last failure since the last successful scan. */
  lastError?: string;
  lastErrorAt?: Date;
  /** The counts of the last successful scan. */
  lastCounts?: WatchCounts;
  updatedAt: Date;
}

const toScanState = (row: Record<string, unknown>) => fromRow<ScanState>(row);

export class ScanStateRepo {
  constructor(private readonly db: Queryable) {}

  async get(key: string): Promise<ScanState | undefined> {
    const { rows } = await this.db.query('SELECT * FROM watch_state WHERE key = $1', [key]);
    return rows[0] && toScanState(rows[0]);
  }

  /**
   * Moves the state kept under `from` (before scans had an account) to `to`, unless `to`
   * already has one; true when it moved. Run by the scan once, before it reads its state.
   */
  async adopt(from: string, to: string): Promise<boolean> {
    const { rows } = await this.db.query(
      'UPDATE watch_state SET key = $2 WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM watch_state WHERE key = $2) RETURNING key',
      [from, to],
    );
    return rows.length > 0;
  }

  /** Starts watching from `at` when nothing has been watched yet (a first subscription); false when already started. */
  async startAt(key: string, at: Date): Promise<boolean> {
    const { rows } = await this.db.query(
      'INSERT INTO watch_state (key, watermark) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key',
      [key, at],
    );
    return rows.length > 0;
  }

  /** Records a successful scan: watermark, seen ids and counts as given; clears the last error. */
  async saveProgress(key: string, progress: ScanProgress): Promise<ScanState> {
    const { rows } = await this.db.query(
      `INSERT INTO watch_state (key, watermark, seen_ids, last_scan_at, last_counts)
       VALUES ($1, $2, $3::jsonb, $4, $5::jsonb)
       ON CONFLICT (key) DO UPDATE SET
         watermark = EXCLUDED.watermark, seen_ids = EXCLUDED.seen_ids, last_scan_at = EXCLUDED.last_scan_at,
         last_counts = EXCLUDED.last_counts, last_error = NULL, last_error_at = NULL, updated_at = now()
       RETURNING *`,
      [key, progress.watermark, JSON.stringify(progress.seenIds), progress.at, JSON.stringify(progress.counts)],
    );
    return toScanState(rows[0]!);
  }

  /** Records a failed scan; the watermark, seen ids and last counts stay as they were. */
  async saveError(key: string, error: string, at: Date): Promise<ScanState> {
    const { rows } = await this.db.query(
      `INSERT INTO watch_state (key, last_error, last_error_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET last_error = EXCLUDED.last_error, last_error_at = EXCLUDED.last_error_at, updated_at = now()
       RETURNING *`,
      [key, error, at],
    );
    return toScanState(rows[0]!);
  }
}
