/**
 * The outbox. A row is written with the decision behind it (same transaction); a worker
 * claims the oldest open row of each channel, posts it and records the outcome. Times of
 * claims, heartbeats and retries are the database's, the one clock replicas share.
 */
import type { SlackMessage } from '../slack/kit/messages.js';
import type { Queryable } from '../store/db.js';
import { fromRow } from '../store/rows.js';
import type { Subject } from './subject.js';

export type DeliveryStatus = 'pending' | 'sending' | 'posted' | 'failed';

/** What a delivery is about (its feature's subject) and the payload its hooks read back; a payload of `{}` may be left out. */
export type About<P> = { subject: Subject<P> } & (Record<string, never> extends P ? { payload?: P } : { payload: P });

interface Sending {
  /** The workspace it posts in. */
  team: string;
  /** A person's id when the subject publishes a Home. */
  channelId: string;
  message: SlackMessage;
  /** Posted once instead if Slack refuses the blocks (default: the message's text). */
  plain?: string;
  threadTs?: string;
  /** A reply in the thread the delivery with this id starts (top level if that one failed). */
  threadOf?: number;
  /** Update this message in place instead of posting. */
  updateTs?: string;
  /** Update in place the message the delivery with this id posts (given up if that one failed). */
  updateOf?: number;
  /** Worth posting for this long from now (the database's now); given up after. */
  expiresInMs: number;
}

export type DeliveryInput<P = Record<string, never>> = Sending & About<P>;

export interface Delivery extends Omit<Sending, 'expiresInMs'> {
  id: number;
  /** Its subject's kind. */
  kind: string;
  /** Its subject's payload, as stored (the worker decodes it with the subject's schema). */
  payload: unknown;
  status: DeliveryStatus;
  attempts: number;
  nextAt: Date;
  deadline: Date;
  owner?: string;
  heartbeatAt?: Date;
  /** An earlier attempt may have reached Slack (its owner died mid-post, or Slack did not answer in time): the next is marked as a possible repeat. */
  maybePosted: boolean;
  messageTs?: string;
  error?: string;
  createdAt: Date;
  postedAt?: Date;
}

/** A claimed delivery, with where its parent (threadOf or updateOf) stands. */
export interface Claimed extends Delivery {
  parentTs?: string;
  parentStatus?: DeliveryStatus;
}

/**
 * A channel of a workspace, as the outbox keeps one post in flight and paces posts: a Slack Connect channel
 * has one id in every workspace that shares it, and Slack's limits are each workspace's (per app per workspace).
 */
export const channelKey = (team: string, channel: string) => `${team}/${channel}`;

export interface ClaimOptions {
  /** A row sending without a heartbeat for this long lost its owner and is taken over. */
  staleMs: number;
  /** Channels (channelKey) this replica is already sending to, or holding back (its pace). */
  busy: readonly string[];
  limit: number;
}

export interface OpenDelivery extends Delivery {
  /** Where the work stands, in a few words, for status and lists. */
  summary?: string;
}

const toDelivery = (row: Record<string, unknown>): Delivery => {
  const { subject, teamId, ...d } = fromRow<Delivery & { subject?: unknown; teamId: string }>(row);
  return {
    ...d,
    team: teamId,
    id: Number(row.id),
    payload: subject ?? {},
    ...(row.thread_of != null ? { threadOf: Number(row.thread_of) } : {}),
    ...(row.update_of != null ? { updateOf: Number(row.update_of) } : {}),
  };
};

export class DeliveryRepo {
  constructor(private readonly db: Queryable) {}

  /** Queues a delivery; its id. */
  async enqueue<P>(input: DeliveryInput<P>): Promise<number> {
    const { rows } = await this.db.query<{ id: string }>(
      `INSERT INTO deliveries (kind, channel_id, message, plain, thread_ts, thread_of, update_ts, update_of, subject, next_at, deadline, created_at, team_id)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, $8, $9::jsonb, now(), now() + $10::float8 * interval '1 millisecond', now(), $11)
       RETURNING id`,
      [
        input.subject.kind,
        input.channelId,
        JSON.stringify(input.message),
        input.plain ?? input.message.text,
        input.threadTs ?? null,
        input.threadOf ?? null,
        input.updateTs ?? null,
        input.updateOf ?? null,
        stored(input),
        input.expiresInMs,
        input.team,
      ],
    );
    return Number(rows[0]!.id);
  }

  /** Queues a delivery, or replaces the message of one of the same subject still pending for the channel (only the latest matters). */
  async enqueueLatest<P>(input: DeliveryInput<P>): Promise<number> {
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE deliveries SET message = $3::jsonb, plain = $4, subject = $5::jsonb,
              deadline = now() + $6::float8 * interval '1 millisecond'
        WHERE id = (SELECT id FROM deliveries WHERE kind = $1 AND channel_id = $2 AND team_id = $7 AND status = 'pending' ORDER BY id DESC LIMIT 1)
        RETURNING id`,
      [
        input.subject.kind,
        input.channelId,
        JSON.stringify(input.message),
        input.plain ?? input.message.text,
        stored(input),
        input.expiresInMs,
        input.team,
      ],
    );
    return rows[0] ? Number(rows[0].id) : this.enqueue(input);
  }

  /** Deletes the deliveries of this subject still pending for the channel (something newer went out another way); how many. */
  async dropPending(subject: Pick<Subject<unknown>, 'kind'>, team: string, channelId: string): Promise<number> {
    const { rows } = await this.db.query(
      `DELETE FROM deliveries WHERE kind = $1 AND team_id = $3 AND channel_id = $2 AND status = 'pending' RETURNING id`,
      [subject.kind, channelId, team],
    );
    return rows.length;
  }

  /**
   * Claims for `owner` the oldest open delivery of each channel of a workspace that is free: not busy
   * here, and due (pending and past next_at) or orphaned (sending without a heartbeat for
   * staleMs). One delivery per channel of a workspace is in flight at a time across every replica: the
   * oldest open row is the only candidate, and the UPDATE re-checks it. Workspaces take
   * turns within `limit`: each one's oldest channel head first, then each one's second, so a
   * workspace with hundreds of channels waiting does not hold back another's one post.
   */
  async claim(owner: string, options: ClaimOptions): Promise<Claimed[]> {
    const ready = `((o.status = 'pending' AND o.next_at <= now())
        OR (o.status = 'sending' AND o.heartbeat_at < now() - $3::float8 * interval '1 millisecond'))`;
    const { rows } = await this.db.query(
      // The open (workspace, channel) pairs are walked through the partial index (one probe each), not by reading every open row.
      `WITH RECURSIVE channels AS (
         (SELECT team_id, channel_id FROM deliveries WHERE status IN ('pending', 'sending')
          ORDER BY team_id, channel_id LIMIT 1)
         UNION ALL
         SELECT next.team_id, next.channel_id FROM channels c CROSS JOIN LATERAL (
           SELECT o.team_id, o.channel_id FROM deliveries o
           WHERE o.status IN ('pending', 'sending') AND (o.team_id, o.channel_id) > (c.team_id, c.channel_id)
           ORDER BY o.team_id, o.channel_id LIMIT 1
         ) next
       ),
       heads AS (
         SELECT (SELECT o.id FROM deliveries o
                 WHERE o.team_id = c.team_id AND o.channel_id = c.channel_id AND o.status IN ('pending', 'sending')
                 ORDER BY o.id LIMIT 1) AS id
         FROM channels c
         WHERE NOT (c.team_id || '/' || c.channel_id = ANY($2::text[]))
       ),
       picked AS (
         SELECT o.id FROM deliveries o JOIN heads h ON h.id = o.id
         WHERE ${ready}
         ORDER BY row_number() OVER (PARTITION BY o.team_id ORDER BY o.id), o.id
         LIMIT $4
       )
       UPDATE deliveries d SET
         status = 'sending', owner = $1, heartbeat_at = now(), attempts = d.attempts + 1,
         maybe_posted = d.maybe_posted OR d.status = 'sending'
       FROM picked p
       WHERE d.id = p.id
         AND ((d.status = 'pending' AND d.next_at <= now())
           OR (d.status = 'sending' AND d.heartbeat_at < now() - $3::float8 * interval '1 millisecond'))
       RETURNING d.*,
         (SELECT t.message_ts FROM deliveries t WHERE t.id = coalesce(d.thread_of, d.update_of)) AS parent_ts,
         (SELECT t.status FROM deliveries t WHERE t.id = coalesce(d.thread_of, d.update_of)) AS parent_status`,
      [owner, options.busy, options.staleMs, options.limit],
    );
    return rows.map((row) => toDelivery(row) as Claimed);
  }

  /** Renews the heartbeat of everything `owner` is sending; how many rows. */
  async heartbeat(owner: string): Promise<number> {
    const { rows } = await this.db.query(
      `UPDATE deliveries SET heartbeat_at = now() WHERE owner = $1 AND status = 'sending' RETURNING id`,
      [owner],
    );
    return rows.length;
  }

  /** Records the post (whoever holds the row now: the message is out either way); false when already recorded. */
  async markPosted(id: number, messageTs: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE deliveries SET status = 'posted', message_ts = $2, posted_at = now(), error = NULL, heartbeat_at = NULL
       WHERE id = $1 AND status <> 'posted' RETURNING id`,
      [id, messageTs],
    );
    return rows.length > 0;
  }

  /**
   * Puts the owner's row back in the queue, tried again in `delayMs`. `plainOnly` makes the
   * next attempt plain text; `maybePosted` says this attempt may have reached Slack (it timed out).
   */
  async retryLater(
    id: number,
    owner: string,
    delayMs: number,
    reason: string,
    options: { plainOnly?: boolean; maybePosted?: boolean } = {},
  ): Promise<boolean> {
    const plainOnly = options.plainOnly ?? false;
    const { rows } = await this.db.query(
      `UPDATE deliveries SET status = 'pending', next_at = now() + $3::float8 * interval '1 millisecond', error = $4,
         heartbeat_at = NULL, maybe_posted = maybe_posted OR $6,
         message = CASE WHEN $5 THEN jsonb_build_object('text', plain, 'blocks', '[]'::jsonb) ELSE message END,
         plain = CASE WHEN $5 THEN NULL ELSE plain END
       WHERE id = $1 AND owner = $2 AND status = 'sending' RETURNING id`,
      [id, owner, delayMs, reason, plainOnly, options.maybePosted ?? false],
    );
    return rows.length > 0;
  }

  /** Records that Slack refused the owner's row for good, or its deadline passed. */
  async markFailed(id: number, owner: string, reason: string): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE deliveries SET status = 'failed', error = $3, heartbeat_at = NULL
       WHERE id = $1 AND owner = $2 AND status = 'sending' RETURNING id`,
      [id, owner, reason],
    );
    return rows.length > 0;
  }

  /** Whether the row's deadline passes within `delayMs`. */
  async expiresWithin(id: number, delayMs: number): Promise<boolean> {
    const { rows } = await this.db.query<{ late: boolean }>(
      `SELECT deadline < now() + $2::float8 * interval '1 millisecond' AS late FROM deliveries WHERE id = $1`,
      [id, delayMs],
    );
    return rows[0]?.late ?? true;
  }

  /** A failed delivery of the workspace tried again from now, worth posting for `expiresInMs` more; false when it is not failed. */
  async retry(team: string, id: number, expiresInMs: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE deliveries SET status = 'pending', attempts = 0, error = NULL, owner = NULL, heartbeat_at = NULL, next_at = now(),
              deadline = now() + $2::float8 * interval '1 millisecond'
        WHERE id = $1 AND team_id = $3 AND status = 'failed' RETURNING id`,
      [id, expiresInMs, team],
    );
    return rows.length > 0;
  }

  /** The delivery with this id, for work that has it from the store (a request asks with `of`). */
  async get(id: number): Promise<Delivery | undefined> {
    const { rows } = await this.db.query('SELECT * FROM deliveries WHERE id = $1', [id]);
    return rows[0] && toDelivery(rows[0]);
  }

  /** The workspace's delivery with this id: what a request (a button's id) may see. */
  async of(team: string, id: number): Promise<Delivery | undefined> {
    const { rows } = await this.db.query('SELECT * FROM deliveries WHERE id = $1 AND team_id = $2', [id, team]);
    return rows[0] && toDelivery(rows[0]);
  }

  /**
   * Pending, sending and failed deliveries (failed ones from the last `failedWithinMs`),
   * of some channels or all, oldest first, at most `limit`.
   */
  async unfinished(options: {
    team: string;
    channels?: readonly string[];
    failedWithinMs: number;
    limit: number;
  }): Promise<Delivery[]> {
    const { rows } = await this.db.query(
      `SELECT * FROM deliveries
       WHERE team_id = $4 AND ($1::text[] IS NULL OR channel_id = ANY($1::text[]))
         AND (status IN ('pending', 'sending')
           OR (status = 'failed' AND created_at > now() - $2::float8 * interval '1 millisecond'))
       ORDER BY id LIMIT $3`,
      [options.channels ?? null, options.failedWithinMs, options.limit, options.team],
    );
    return rows.map(toDelivery);
  }

  /** The workspace removed Lookout: what it had waiting is given up, with the reason; how many. */
  async cancelTeam(team: string, reason: string): Promise<number> {
    const { rows } = await this.db.query(
      `UPDATE deliveries SET status = 'failed', error = $2, owner = NULL
        WHERE team_id = $1 AND status = 'pending' RETURNING id`,
      [team, reason],
    );
    return rows.length;
  }

  /** How many deliveries are waiting or being sent. */
  async openCount(): Promise<number> {
    const { rows } = await this.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM deliveries WHERE status IN ('pending', 'sending')",
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The kinds of the deliveries waiting or being sent. */
  async openKinds(): Promise<string[]> {
    const { rows } = await this.db.query<{ kind: string }>(
      "SELECT DISTINCT kind FROM deliveries WHERE status IN ('pending', 'sending') ORDER BY kind",
    );
    return rows.map((r) => r.kind);
  }

  /** How many deliveries there are by kind and status (for /metrics). */
  async counts(): Promise<{ kind: string; status: DeliveryStatus; n: number }[]> {
    const { rows } = await this.db.query<{ kind: string; status: DeliveryStatus; n: number }>(
      'SELECT kind, status, count(*)::int AS n FROM deliveries GROUP BY kind, status',
    );
    return rows.map((r) => ({ ...r, n: Number(r.n) }));
  }

  /** Deletes finished deliveries (posted or failed) created before `olderThan`; how many. */
  async prune(olderThan: Date): Promise<number> {
    const { rows } = await this.db.query(
      `DELETE FROM deliveries WHERE status IN ('posted', 'failed') AND created_at < $1
         AND NOT EXISTS (SELECT 1 FROM deliveries c WHERE (c.thread_of = deliveries.id OR c.update_of = deliveries.id) AND c.status IN ('pending', 'sending'))
       RETURNING id`,
      [olderThan],
    );
    return rows.length;
  }
}

/** The subject column: the payload, with its kind as `type` (the shape rows had before subjects were typed). */
function stored<P>(input: DeliveryInput<P>): string {
  return JSON.stringify({ ...(input.payload ?? {}), type: input.subject.kind });
}
