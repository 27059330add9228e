/** Which channels subscribe to threat alerts, from which severity, for which checks, grouped or not. */
import type { AlertCheck, Severity } from '../../../kernel/verdict.js';
import type { Queryable } from '../../../platform/store/db.js';
import { fromRow } from '../../../platform/store/rows.js';
import type { Grouping } from '../plan.js';

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
