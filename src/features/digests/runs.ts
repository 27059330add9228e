/**
 * One row per digest per scheduled slot. Inserting the row is the claim: the primary
 * key (digest_id, slot) lets exactly one replica win, so nobody gets a digest twice.
 */
import type { Queryable } from '../../platform/store/db.js';
import { fromRow } from '../../platform/store/rows.js';

export type DigestRunStatus = 'claimed' | 'queued' | 'posted' | 'failed' | 'missed' | 'abandoned';

export interface DigestRun {
  digestId: number;
  slot: Date;
  status: DigestRunStatus;
  claimedBy?: string;
  messageTs?: string;
  channelId?: string;
  error?: string;
  /** Renewed while its owner fetches the content; a claim without one for long is taken over. */
  heartbeatAt?: Date;
  /** The delivery posting it, once its content is ready. */
  deliveryId?: number;
  startedAt: Date;
  finishedAt?: Date;
}

const toRun = (row: Record<string, unknown>): DigestRun => ({
  ...fromRow<DigestRun>(row),
  digestId: Number(row.digest_id),
  ...(row.delivery_id != null ? { deliveryId: Number(row.delivery_id) } : {}),
});

const FOREIGN_KEY_VIOLATION = '23503';

/** What the scheduler needs of an active digest to place its slots. */
export interface ScheduledDigest {
  id: number;
  cron: string;
  timeZone: string;
  createdAt: Date;
  /** Undefined until the scheduler has computed it (new, edited, resumed, or made before migration 012). */
  nextRunAt?: Date;
}

const toScheduled = (row: Record<string, unknown>): ScheduledDigest => ({
  id: Number(row.id),
  cron: String(row.cron),
  timeZone: String(row.time_zone),
  createdAt: row.created_at as Date,
  ...(row.next_run_at ? { nextRunAt: row.next_run_at as Date } : {}),
});

const SCHEDULED = 'SELECT id, cron, time_zone, created_at, next_run_at FROM digests';

export class DigestRunRepo {
  constructor(private readonly db: Queryable) {}

  /**
   * Claims a slot for `owner`. True only for the one caller that inserted the row;
   * false when it was already claimed or recorded, or the digest is gone or paused
   * (a replica with a stale schedule must not post it).
   */
  async claim(digestId: number, slot: Date, owner: string): Promise<boolean> {
    return this.insertIfDigest(
      `INSERT INTO digest_runs (digest_id, slot, status, claimed_by, heartbeat_at, team_id)
       SELECT id, $2, 'claimed', $3, now(), team_id FROM digests WHERE id = $1 AND NOT paused
       ON CONFLICT DO NOTHING
       RETURNING digest_id`,
      [digestId, slot, owner],
    );
  }

  /** Records a slot that passed without a run (the app was down); false when the slot has a row already. */
  async recordMissed(digestId: number, slot: Date): Promise<boolean> {
    return this.insertIfDigest(
      `INSERT INTO digest_runs (digest_id, slot, status, finished_at, team_id)
       SELECT id, $2, 'missed', now(), team_id FROM digests WHERE id = $1
       ON CONFLICT DO NOTHING
       RETURNING digest_id`,
      [digestId, slot],
    );
  }

  async markPosted(digestId: number, slot: Date, messageTs: string, channelId: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE digest_runs SET status = 'posted', message_ts = $3, channel_id = $4, error = NULL, finished_at = now()
       WHERE digest_id = $1 AND slot = $2 RETURNING digest_id`,
      [digestId, slot, messageTs, channelId],
    );
    return rows.length > 0;
  }

  /** The content is ready and its delivery queued (written with the delivery, in one transaction). */
  async markQueued(digestId: number, slot: Date, owner: string, deliveryId: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE digest_runs SET status = 'queued', delivery_id = $4, heartbeat_at = NULL
       WHERE digest_id = $1 AND slot = $2 AND claimed_by = $3 AND status = 'claimed' RETURNING digest_id`,
      [digestId, slot, owner, deliveryId],
    );
    return rows.length > 0;
  }

  /** Renews the heartbeat of every slot `owner` is fetching; how many. */
  async heartbeat(owner: string): Promise<number> {
    const { rows } = await this.db.query(
      `UPDATE digest_runs SET heartbeat_at = now() WHERE claimed_by = $1 AND status = 'claimed' RETURNING digest_id`,
      [owner],
    );
    return rows.length;
  }

  /**
   * Takes over for `owner` the claims whose owner stopped heart-beating `staleMs` ago
   * (killed mid-fetch); each taken run once, whoever asks first.
   */
  async takeOverStale(owner: string, staleMs: number): Promise<DigestRun[]> {
    const { rows } = await this.db.query(
      `UPDATE digest_runs SET claimed_by = $1, heartbeat_at = now()
       WHERE status = 'claimed' AND coalesce(heartbeat_at, started_at) < now() - $2::float8 * interval '1 millisecond'
       RETURNING *`,
      [owner, staleMs],
    );
    return rows.map(toRun);
  }

  async markFailed(digestId: number, slot: Date, error: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE digest_runs SET status = 'failed', error = $3, finished_at = now()
       WHERE digest_id = $1 AND slot = $2 RETURNING digest_id`,
      [digestId, slot, error],
    );
    return rows.length > 0;
  }

  /**
   * Hands a slot back (graceful shutdown before posting) so another replica may claim it.
   * Only the owner's row, and only while it is still 'claimed' with nothing posted.
   */
  async release(digestId: number, slot: Date, owner: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `DELETE FROM digest_runs
       WHERE digest_id = $1 AND slot = $2 AND claimed_by = $3 AND status = 'claimed' AND message_ts IS NULL
       RETURNING digest_id`,
      [digestId, slot, owner],
    );
    return rows.length > 0;
  }

  /** A claim taken over too late to be worth posting: recorded as abandoned, with why. */
  async abandon(digestId: number, slot: Date, owner: string, reason: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE digest_runs SET status = 'abandoned', error = $4, finished_at = now()
       WHERE digest_id = $1 AND slot = $2 AND claimed_by = $3 AND status = 'claimed' RETURNING digest_id`,
      [digestId, slot, owner, reason],
    );
    return rows.length > 0;
  }

  async get(digestId: number, slot: Date): Promise<DigestRun | undefined> {
    const { rows } = await this.db.query('SELECT * FROM digest_runs WHERE digest_id = $1 AND slot = $2', [
      digestId,
      slot,
    ]);
    return rows[0] && toRun(rows[0]);
  }

  /** The run of the latest slot, whatever its status. */
  async lastRun(digestId: number): Promise<DigestRun | undefined> {
    const { rows } = await this.db.query('SELECT * FROM digest_runs WHERE digest_id = $1 ORDER BY slot DESC LIMIT 1', [
      digestId,
    ]);
    return rows[0] && toRun(rows[0]);
  }

  /** The latest run of each digest that has one, by digest id. */
  async lastRuns(digestIds: readonly number[]): Promise<Map<number, DigestRun>> {
    if (digestIds.length === 0) return new Map();
    const { rows } = await this.db.query(
      `SELECT DISTINCT ON (digest_id) * FROM digest_runs
       WHERE digest_id = ANY($1::bigint[]) ORDER BY digest_id, slot DESC`,
      [digestIds],
    );
    return new Map(rows.map((row) => [Number(row.digest_id), toRun(row)]));
  }

  /** Active digests whose next slot is not computed yet (oldest first). */
  async unscheduled(limit: number): Promise<ScheduledDigest[]> {
    const { rows } = await this.db.query(`${SCHEDULED} WHERE NOT paused AND next_run_at IS NULL ORDER BY id LIMIT $1`, [
      limit,
    ]);
    return rows.map(toScheduled);
  }

  /**
   * Active digests whose next slot is at or before `at`, taking turns between workspaces: each
   * workspace's earliest first, then each one's second, and so on. A workspace with 500 due
   * digests and another with one: that one is in the first batch, not behind the 500.
   */
  async due(at: Date, limit: number): Promise<ScheduledDigest[]> {
    const { rows } = await this.db.query(
      `${SCHEDULED} WHERE NOT paused AND next_run_at <= $1
       ORDER BY row_number() OVER (PARTITION BY team_id ORDER BY next_run_at, id), next_run_at, id LIMIT $2`,
      [at, limit],
    );
    return rows.map(toScheduled);
  }

  /** The earliest next slot of any active digest (undefined when none is scheduled). */
  async earliestNextRun(): Promise<Date | undefined> {
    const { rows } = await this.db.query<{ next: Date | null }>(
      'SELECT min(next_run_at) AS next FROM digests WHERE NOT paused',
    );
    return rows[0]?.next ?? undefined;
  }

  /**
   * Moves a digest's next slot from `was` to `next` (undefined: none). False when another
   * replica, an edit or a pause changed it first: theirs stands.
   */
  async setNextRun(digestId: number, was: Date | undefined, next: Date | undefined): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE digests SET next_run_at = $3
       WHERE id = $1 AND NOT paused AND next_run_at IS NOT DISTINCT FROM $2::timestamptz RETURNING id`,
      [digestId, was ?? null, next ?? null],
    );
    return rows.length > 0;
  }

  /** Runs an INSERT … RETURNING; a digest removed at the same moment counts as not inserted. */
  private async insertIfDigest(sql: string, params: unknown[]): Promise<boolean> {
    try {
      const { rows } = await this.db.query(sql, params);
      return rows.length > 0;
    } catch (error) {
      if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false;
      throw error;
    }
  }
}
