/** Watches and the state of each one's current alert. */
import type { Queryable } from '../../platform/store/db.js';
import { fromRow } from '../../platform/store/rows.js';
import type { Explanation } from './explanation-text.js';
import type { DecisionKind, WatchRule, WatchState } from './plan.js';

export interface WatchInput {
  teamId: string;
  channelId: string;
  ownerId: string;
  rule: WatchRule;
  timeZone: string;
}

export interface Watch extends WatchInput {
  id: number;
  paused: boolean;
  /** Until when it posts nothing; year 9999 for good. */
  mutedUntil?: Date;
  state: WatchState;
  episode: number;
  breachSince?: Date;
  alertDelivery?: number;
  alertTs?: string;
  acknowledgedBy?: string;
  acknowledgedAt?: Date;
  lastPeriod?: string;
  lastOutcome?: DecisionKind;
  lastValue?: number;
  /** The last observation in words (or, for unknown, why). */
  lastText?: string;
  lastError?: string;
  lastEvaluatedAt?: Date;
  /** Why the alert's figure moved, for the period it explains. */
  explanation?: Explanation;
  createdAt: Date;
  updatedAt: Date;
}

/** What one evaluation found and decided, written with its deliveries in one transaction. */
export interface Evaluation {
  period: string;
  outcome: DecisionKind;
  value?: number;
  text: string;
  error?: string;
  state: WatchState;
  /** When it was evaluated, by the app's clock (the list says "checked" at this time). */
  at: Date;
  /** A new breach: the episode starts now; its alert is delivery `alertDelivery`. */
  breach?: { at: Date };
}

export const FOREVER = new Date('9999-12-31T00:00:00Z');

const toWatch = (row: Record<string, unknown>): Watch => {
  const w = fromRow<Watch>(row);
  return {
    ...w,
    id: Number(row.id),
    ...(row.alert_delivery != null ? { alertDelivery: Number(row.alert_delivery) } : {}),
    ...(row.last_value != null ? { lastValue: Number(row.last_value) } : {}),
  };
};

const ALERTING = ['breach', 'update', 'recover'];

export class WatchRepo {
  constructor(private readonly db: Queryable) {}

  async create(input: WatchInput): Promise<Watch> {
    const { rows } = await this.db.query(
      `INSERT INTO watches (team_id, channel_id, owner_id, rule, time_zone) VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING *`,
      [input.teamId, input.channelId, input.ownerId, JSON.stringify(input.rule), input.timeZone],
    );
    return toWatch(rows[0]!);
  }

  /** A watch by an id that came from the store (the evaluator, a delivery). */
  async get(id: number): Promise<Watch | undefined> {
    const { rows } = await this.db.query('SELECT * FROM watches WHERE id = $1', [id]);
    return rows[0] && toWatch(rows[0]);
  }

  /** The workspace's watch by an id a request carried; undefined when the workspace has none by that id. */
  async of(team: string, id: number): Promise<Watch | undefined> {
    const { rows } = await this.db.query('SELECT * FROM watches WHERE id = $1 AND team_id = $2', [id, team]);
    return rows[0] && toWatch(rows[0]);
  }

  /** A new rule (or channel) starts afresh: no breach, no alert, evaluated from the next period. */
  async edit(team: string, id: number, rule: WatchRule, channelId: string): Promise<Watch | undefined> {
    const { rows } = await this.db.query(
      `UPDATE watches SET rule = $2::jsonb, channel_id = $3, state = 'ok', breach_since = NULL, alert_delivery = NULL, alert_ts = NULL, explanation = NULL,
              acknowledged_by = NULL, acknowledged_at = NULL, last_outcome = NULL, last_text = NULL, last_error = NULL, updated_at = now()
        WHERE id = $1 AND team_id = $4 RETURNING *`,
      [id, JSON.stringify(rule), channelId, team],
    );
    return rows[0] && toWatch(rows[0]);
  }

  async setPaused(team: string, id: number, paused: boolean): Promise<Watch | undefined> {
    const { rows } = await this.db.query(
      'UPDATE watches SET paused = $2, updated_at = now() WHERE id = $1 AND team_id = $3 RETURNING *',
      [id, paused, team],
    );
    return rows[0] && toWatch(rows[0]);
  }

  async setMuted(team: string, id: number, until: Date | null): Promise<Watch | undefined> {
    const { rows } = await this.db.query(
      'UPDATE watches SET muted_until = $2, updated_at = now() WHERE id = $1 AND team_id = $3 RETURNING *',
      [id, until, team],
    );
    return rows[0] && toWatch(rows[0]);
  }

  /** The current episode's alert is acknowledged (once: the first to press it). */
  async acknowledge(team: string, id: number, user: string, at: Date): Promise<Watch | undefined> {
    const { rows } = await this.db.query(
      `UPDATE watches SET acknowledged_by = coalesce(acknowledged_by, $2), acknowledged_at = coalesce(acknowledged_at, $3), updated_at = now()
        WHERE id = $1 AND team_id = $4 RETURNING *`,
      [id, user, at, team],
    );
    return rows[0] && toWatch(rows[0]);
  }

  async remove(team: string, id: number): Promise<boolean> {
    const { rows } = await this.db.query('DELETE FROM watches WHERE id = $1 AND team_id = $2 RETURNING id', [id, team]);
    return rows.length > 0;
  }

  async counts(
    team: string,
    channelId: string,
    ownerId: string,
    except = 0,
  ): Promise<{ channel: number; owner: number }> {
    const { rows } = await this.db.query<{ channel: number; owner: number }>(
      `SELECT count(*) FILTER (WHERE channel_id = $1)::int AS channel, count(*) FILTER (WHERE owner_id = $2)::int AS owner
         FROM watches WHERE team_id = $4 AND id <> $3 AND (channel_id = $1 OR owner_id = $2)`,
      [channelId, ownerId, except, team],
    );
    return rows[0] ?? { channel: 0, owner: 0 };
  }

  /** Who owns the workspace's watches that post in these channels. */
  async ownersIn(team: string, channels: readonly string[]): Promise<string[]> {
    const { rows } = await this.db.query<{ owner_id: string }>(
      'SELECT DISTINCT owner_id FROM watches WHERE team_id = $1 AND channel_id = ANY($2::text[])',
      [team, channels],
    );
    return rows.map((r) => r.owner_id);
  }

  /** The workspace's watches, or those in one of its channels. */
  async list(team: string, channelId?: string): Promise<Watch[]> {
    const { rows } =
      channelId === undefined
        ? await this.db.query('SELECT * FROM watches WHERE team_id = $1 ORDER BY id', [team])
        : await this.db.query('SELECT * FROM watches WHERE team_id = $1 AND channel_id = $2 ORDER BY id', [
            team,
            channelId,
          ]);
    return rows.map(toWatch);
  }

  /** Every active watch, of every workspace (the evaluator's). */
  async listActive(): Promise<Watch[]> {
    const { rows } = await this.db.query('SELECT * FROM watches WHERE NOT paused ORDER BY id');
    return rows.map(toWatch);
  }

  /**
   * Claims the evaluation of `period` for `owner`: one replica wins. A claim left for
   * `staleMs` (its replica died) can be taken over; a period already evaluated cannot.
   */
  async claim(id: number, period: string, owner: string, staleMs: number): Promise<Watch | undefined> {
    const { rows } = await this.db.query(
      `UPDATE watches SET claim_period = $2, claim_owner = $3, claim_at = now()
        WHERE id = $1 AND NOT paused AND last_period IS DISTINCT FROM $2
          AND (claim_period IS DISTINCT FROM $2 OR claim_at < now() - make_interval(secs => $4::double precision / 1000))
        RETURNING *`,
      [id, period, owner, staleMs],
    );
    return rows[0] && toWatch(rows[0]);
  }

  /** Hands a claim back unrecorded (its figures were not settled): the period is claimed again on a later tick. */
  async release(id: number, period: string, owner: string): Promise<void> {
    await this.db.query(
      'UPDATE watches SET claim_period = NULL, claim_owner = NULL, claim_at = NULL WHERE id = $1 AND claim_owner = $2 AND claim_period = $3',
      [id, owner, period],
    );
  }

  /**
   * Records an evaluation, if `owner` still holds the period's claim; false when another
   * replica took it over or recorded it first (then nothing of this evaluation is kept).
   * A breach is also kept as an alert (watch_alerts), in the same statement: only if recorded.
   */
  async record(id: number, owner: string, e: Evaluation): Promise<Watch | undefined> {
    const { rows } = await this.db.query(
      `WITH recorded AS (
       UPDATE watches SET last_period = $3, last_outcome = $4, last_value = $5, last_text = $6, last_error = $7, last_evaluated_at = $11,
              state = $8,
              episode = CASE WHEN $9::timestamptz IS NOT NULL THEN episode + 1 ELSE episode END,
              breach_since = CASE WHEN $9::timestamptz IS NOT NULL THEN $9::timestamptz WHEN $8 = 'ok' THEN NULL ELSE breach_since END,
              alert_delivery = CASE WHEN $9::timestamptz IS NOT NULL THEN NULL ELSE alert_delivery END,
              alert_ts = CASE WHEN $9::timestamptz IS NOT NULL THEN NULL ELSE alert_ts END,
              acknowledged_by = CASE WHEN $9::timestamptz IS NOT NULL THEN NULL ELSE acknowledged_by END,
              acknowledged_at = CASE WHEN $9::timestamptz IS NOT NULL THEN NULL ELSE acknowledged_at END,
              explanation = CASE WHEN $10 THEN NULL ELSE explanation END
        WHERE id = $1 AND claim_owner = $2 AND claim_period = $3 AND last_period IS DISTINCT FROM $3
        RETURNING *),
       alerted AS (
       INSERT INTO watch_alerts (watch_id, team_id, period, at)
       SELECT id, team_id, last_period, $9::timestamptz FROM recorded WHERE $9::timestamptz IS NOT NULL
       ON CONFLICT (watch_id, period) DO NOTHING)
       SELECT * FROM recorded`,
      [
        id,
        owner,
        e.period,
        e.outcome,
        e.value ?? null,
        e.text,
        e.error ?? null,
        e.state,
        e.breach?.at ?? null,
        ALERTING.includes(e.outcome),
        e.at,
      ],
    );
    return rows[0] && toWatch(rows[0]);
  }

  /** How many alerts (breaches) each of these watches had from `since` on; 0 for one that had none. */
  async alertCounts(ids: readonly number[], since: Date): Promise<Map<number, number>> {
    const counts = new Map(ids.map((id) => [id, 0]));
    if (ids.length === 0) return counts;
    const { rows } = await this.db.query<{ watch_id: string | number; n: number }>(
      `SELECT watch_id, count(*)::int AS n FROM watch_alerts
        WHERE watch_id = ANY($1::bigint[]) AND at >= $2 GROUP BY watch_id`,
      [ids, since],
    );
    for (const r of rows) counts.set(Number(r.watch_id), r.n);
    return counts;
  }

  /** Deletes the alerts from before `before`; returns how many. */
  async pruneAlerts(before: Date): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      'WITH gone AS (DELETE FROM watch_alerts WHERE at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone',
      [before],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The delivery that carries the episode's alert. */
  async setAlertDelivery(id: number, episode: number, deliveryId: number): Promise<void> {
    await this.db.query('UPDATE watches SET alert_delivery = $3 WHERE id = $1 AND episode = $2', [
      id,
      episode,
      deliveryId,
    ]);
  }

  /** What went wrong with the watch, shown in its list. */
  async setError(id: number, error: string): Promise<void> {
    await this.db.query('UPDATE watches SET last_error = $2 WHERE id = $1', [id, error]);
  }

  /** The explanation of the period last recorded, unless a later evaluation came first; the watch as it is now. */
  async setExplanation(id: number, explanation: Explanation): Promise<Watch | undefined> {
    const { rows } = await this.db.query(
      'UPDATE watches SET explanation = $2::jsonb WHERE id = $1 AND last_period = $3 RETURNING *',
      [id, JSON.stringify(explanation), explanation.period],
    );
    return rows[0] && toWatch(rows[0]);
  }

  /** The episode's alert was posted as `ts`: later updates edit it in place. */
  async setAlertTs(id: number, episode: number, ts: string): Promise<void> {
    await this.db.query('UPDATE watches SET alert_ts = $3 WHERE id = $1 AND episode = $2', [id, episode, ts]);
  }
}
