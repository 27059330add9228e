import type { KnownBlock } from '@slack/types';
import { growingLru } from '../lru.js';
import type { Logger } from '../log.js';
import type { SlackMessage } from '../slack/kit/messages.js';
import type { SlackPoster } from '../slack/poster.js';
import type { Db } from '../store/db.js';
import { remedyOf, retryDelayMs } from './outcome.js';
import { ChannelPace } from './pace.js';
import { within } from '../within.js';
import { channelKey, DeliveryRepo, type Claimed, type Delivery } from './repo.js';
import type { AnySubject, Delivered, Subjects } from './subject.js';

/** What the worker reports as it goes (metrics). */
export interface DeliveryEvents {
  posted?(delivery: Delivery, latencyMs: number): void;
  retried?(delivery: Delivery, reason: string): void;
  failed?(delivery: Delivery, reason: string): void;
}

/** Told after each outcome the worker records (posted, retried or failed), with the delivery's subject. */
export type OutcomeListener = (delivery: Delivery, subject: AnySubject) => void;

export interface DeliveryWorkerOptions {
  db: Db;
  /** How to post in a workspace: with its own bot token. */
  poster: (team: string) => Promise<SlackPoster>;
  owner: string;
  log: Logger;
  /** Every subject a delivery may be about; the worker refuses to start while the queue holds another. */
  subjects: Subjects;
  events?: DeliveryEvents;
  /** Heartbeats are renewed this often; a delivery without one for 3× this is taken over. */
  heartbeatMs?: number;
  /**
   * How often the queue is looked at when nothing wakes the worker: for rows other replicas
   * queue. Rows this replica queues wake it, and a retry wakes it when it is due.
   */
  pollMs?: number;
  /** One message per channel this often, after a burst of `burst` (Slack: about one a second, short bursts allowed); 0: no pace. */
  paceMs?: number;
  burst?: number;
  /** Channels sent to at once by this replica. */
  concurrency?: number;
  /** A Slack call not answered within this counts as failed (the client's own timeout should come first). */
  timeoutMs?: number;
}

const REPEAT_NOTE = 'Sent again after an interruption: if the same message is just above, this one is a repeat.';

/** A message marked as possibly sent before (its first attempt's owner died mid-post). */
export function markedRepeat(message: SlackMessage): SlackMessage {
  const note: KnownBlock = { type: 'context', elements: [{ type: 'mrkdwn', text: `:repeat: ${REPEAT_NOTE}` }] };
  return {
    text: `${message.text}\n(${REPEAT_NOTE})`,
    blocks: message.blocks.length > 0 ? [...message.blocks.slice(0, 49), note] : [],
  };
}

/**
 * Posts the outbox. Each replica runs one: it claims the head of each free channel, sends
 * them at once (a hanging channel holds up only itself), and records each outcome with the
 * feature's hook in one transaction. Every loop catches its errors; an outcome that cannot
 * be recorded (the store is down) is retried until it is.
 */
export class DeliveryWorker {
  private readonly repo: DeliveryRepo;
  /** What is being sent, by channelKey (a channel of a workspace). */
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private again = false;
  private stopped = false;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  /** Each channel's pace (by channelKey: Slack's limits are each workspace's), kept for the channels posted to lately. */
  private readonly paces = growingLru<string, ChannelPace>(10_000);
  /** Wake-ups for retries this replica scheduled. */
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private readonly listeners: OutcomeListener[] = [];

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.repo = new DeliveryRepo(options.db);
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.pollMs = options.pollMs ?? 1_000;
  }

  /** Starts posting; refuses (rejects) when the queue holds a delivery of a subject no feature defines. */
  async start(): Promise<void> {
    this.stopped = false;
    const unknown = (await this.repo.openKinds()).filter((kind) => !this.options.subjects.get(kind));
    if (unknown.length > 0) {
      this.stopped = true;
      throw new Error(
        `the outbox holds deliveries about ${unknown.map((k) => `'${k}'`).join(', ')}, which no feature defines (known: ${this.options.subjects.kinds().join(', ')})`,
      );
    }
    // Stopped while the queue was being read.
    if (this.stopped) return;
    this.heartbeatTimer = setInterval(() => {
      if (this.inFlight.size === 0) return;
      this.repo
        .heartbeat(this.options.owner)
        .catch((error: unknown) =>
          this.options.log.warn({ err: errorText(error) }, 'could not renew delivery heartbeats; trying again'),
        );
    }, this.heartbeatMs);
    this.heartbeatTimer.unref();
    this.schedule(0);
  }

  /** Tells `listener` of each outcome recorded from now on (a feature showing deliveries, like App Home). */
  onOutcome(listener: OutcomeListener): void {
    this.listeners.push(listener);
  }

  /** Look at the queue now (something was queued). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) this.again = true;
    else this.schedule(0);
  }

  /** Stops claiming; waits up to `graceMs` for sends under way (their rows are taken over if cut short). */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeatTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    const pending = [...this.inFlight.values(), ...(this.ticking ? [this.ticking] : [])];
    if (pending.length > 0) await within(Promise.allSettled(pending), graceMs).catch(() => undefined);
  }

  /** Resolves once the queue is empty (every delivery posted or failed), or rejects after `timeoutMs` (tests and benches). */
  async drained(timeoutMs = 30_000, everyMs = 25): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.wake();
    while ((await this.repo.openCount()) > 0) {
      if (Date.now() > deadline) throw new Error(`deliveries still open after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      let paced: number | undefined;
      this.ticking = this.tick()
        .then((wait) => void (paced = wait))
        .catch((error: unknown) =>
          this.options.log.error({ err: errorText(error) }, 'could not read the delivery queue; trying again'),
        )
        .finally(() => {
          this.ticking = undefined;
          if (this.stopped) return;
          const again = this.again;
          this.again = false;
          // Paced channels are looked at no more than five times a second: one query claims every channel whose pace ended.
          this.schedule(again ? 0 : Math.min(this.pollMs, paced === undefined ? this.pollMs : Math.max(200, paced)));
        });
    }, delayMs);
    this.timer.unref();
  }

  /** Looks at the queue again in `delayMs` (a retry this replica put off, or a channel's pace, is due then). */
  private wakeIn(delayMs: number): void {
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      this.wake();
    }, delayMs + 10);
    timer.unref();
    this.retryTimers.add(timer);
  }

  /** The channel's pace (a channel not posted to lately may burst); undefined when posts are not paced. */
  private pace(channel: string): ChannelPace | undefined {
    const paceMs = this.options.paceMs ?? 1_000;
    if (paceMs <= 0) return undefined;
    let pace = this.paces.get(channel);
    if (!pace) {
      pace = new ChannelPace(this.options.burst ?? 3, paceMs, Date.now());
      this.paces.set(channel, pace);
    }
    return pace;
  }

  /** Claims what is free and starts sending it; how long until a held-back channel may post again (ms), if any is. */
  private async tick(): Promise<number | undefined> {
    const free = (this.options.concurrency ?? 16) - this.inFlight.size;
    if (this.stopped || free <= 0) return undefined;
    let soonest: number | undefined;
    const held: string[] = [];
    const now = Date.now();
    for (const [channel, pace] of this.paces.entries()) {
      const wait = pace.waitMs(now);
      if (wait <= 0) continue;
      held.push(channel);
      soonest = Math.min(soonest ?? wait, wait);
    }
    const claimed = await this.repo.claim(this.options.owner, {
      staleMs: this.heartbeatMs * 3,
      busy: [...this.inFlight.keys(), ...held],
      limit: free,
    });
    for (const delivery of claimed) {
      const channel = channelKey(delivery.team, delivery.channelId);
      this.pace(channel)?.take(Date.now());
      const work = this.send(delivery)
        .catch((error: unknown) =>
          this.options.log.error(
            { delivery: delivery.id, err: errorText(error) },
            'delivery failed unexpectedly; it is taken over after its heartbeat stops',
          ),
        )
        .finally(() => {
          this.inFlight.delete(channel);
          const pace = this.pace(channel);
          pace?.settle(Date.now());
          // A channel held back by its pace is looked at again when it may post.
          const wait = pace?.waitMs(Date.now()) ?? 0;
          if (wait <= 0) this.wake();
          else this.wakeIn(wait);
        });
      this.inFlight.set(channel, work);
    }
    return soonest;
  }

  private async send(delivery: Claimed): Promise<void> {
    const { log } = this.options;
    const subject = this.options.subjects.get(delivery.kind);
    // Another replica, newer than this one, queued it: this one cannot tell what it is about.
    if (!subject)
      return this.persist(() => this.fail(delivery, `no feature here defines its subject '${delivery.kind}'`, false));
    const home = subject.via === 'home';
    const edit = delivery.updateTs !== undefined || delivery.updateOf !== undefined;
    // Publishing a Home or updating a message again shows the same thing: no repeat to warn of.
    const repeat = delivery.maybePosted && !edit && !home;
    const message = repeat ? markedRepeat(delivery.message) : delivery.message;
    const threadTs =
      delivery.threadOf !== undefined
        ? delivery.parentStatus === 'posted'
          ? delivery.parentTs
          : undefined
        : delivery.threadTs;
    const updateTs =
      delivery.updateOf !== undefined
        ? delivery.parentStatus === 'posted'
          ? delivery.parentTs
          : undefined
        : delivery.updateTs;
    // The message to edit was never posted (it failed, or was given up): there is nothing to edit.
    if (delivery.updateOf !== undefined && !updateTs)
      return this.persist(() => this.fail(delivery, 'the message it edits was not posted', false, subject));
    if (repeat)
      log.warn(
        { delivery: delivery.id, kind: delivery.kind, channel: delivery.channelId },
        'a delivery that may have reached Slack already is sent again, marked as a possible repeat',
      );
    let ts: string;
    try {
      const poster = await withinSlack(this.options.poster(delivery.team), this.options.timeoutMs ?? 15_000);
      ts = await withinSlack(
        home
          ? poster.publishHome(delivery.channelId, message)
          : updateTs
            ? poster.update(delivery.channelId, updateTs, message).then(() => updateTs)
            : poster.post(delivery.channelId, message, threadTs ? { threadTs } : {}),
        this.options.timeoutMs ?? 15_000,
      );
    } catch (error) {
      await this.persist(() => this.failedAttempt(delivery, subject, error));
      return;
    }
    await this.persist(() => this.record(delivery, subject, ts, threadTs));
  }

  /** The delivery with its payload as its subject's hooks read it; undefined (and logged) when the payload does not fit the subject's schema. */
  private decoded(delivery: Delivery, subject: AnySubject): Delivered<unknown> | undefined {
    const payload = subject.payload.safeParse(delivery.payload);
    if (payload.success) return { ...delivery, payload: payload.data };
    log(
      this.options.log,
      delivery,
      'error',
      "the delivery's payload does not fit its subject: its hooks are not told",
      { problem: payload.error.issues[0]?.message },
    );
    return undefined;
  }

  private told(delivery: Delivery, subject: AnySubject): void {
    for (const listener of this.listeners) listener(delivery, subject);
  }

  private async record(
    delivery: Delivery,
    subject: AnySubject,
    ts: string,
    threadTs: string | undefined,
  ): Promise<void> {
    const posted = subject.hooks.posted?.bind(subject.hooks);
    const decoded = posted ? this.decoded(delivery, subject) : undefined;
    if (posted && decoded) {
      await this.options.db.transaction(async (tx) => {
        if (await new DeliveryRepo(tx).markPosted(delivery.id, ts)) await posted(tx, decoded, ts, threadTs);
      });
    } else {
      await this.repo.markPosted(delivery.id, ts);
    }
    this.options.events?.posted?.(delivery, Date.now() - new Date(delivery.createdAt).getTime());
    this.told(delivery, subject);
    log(this.options.log, delivery, 'info', 'delivered');
  }

  private async failedAttempt(delivery: Claimed, subject: AnySubject, error: unknown): Promise<void> {
    const remedy = remedyOf(error);
    const { owner } = this.options;
    const home = subject.via === 'home';
    if (
      remedy.kind === 'plain' &&
      delivery.plain != null &&
      !delivery.updateTs &&
      delivery.updateOf === undefined &&
      !home
    ) {
      await this.repo.retryLater(delivery.id, owner, 0, remedy.reason, { plainOnly: true });
      this.options.events?.retried?.(delivery, remedy.reason);
      this.told(delivery, subject);
      log(this.options.log, delivery, 'warn', 'Slack refused the blocks; posting once more as plain text', {
        reason: remedy.reason,
      });
      return;
    }
    if (remedy.kind === 'retry') {
      // A 429's Retry-After is exact: waiting longer only slows the channel.
      const delayMs =
        remedy.reason === 'ratelimited' && remedy.afterMs !== undefined
          ? remedy.afterMs
          : retryDelayMs(delivery.attempts, remedy.afterMs);
      // Slack's Retry-After is the channel's, not only this delivery's: the channel's next post waits for it.
      if (remedy.afterMs !== undefined && !home)
        this.pace(channelKey(delivery.team, delivery.channelId))?.hold(Date.now(), remedy.afterMs);
      if (!(await this.repo.expiresWithin(delivery.id, delayMs))) {
        await this.repo.retryLater(delivery.id, owner, delayMs, remedy.reason, {
          maybePosted: remedy.reason === 'timed out',
        });
        this.wakeIn(delayMs);
        this.options.events?.retried?.(delivery, remedy.reason);
        this.told(delivery, subject);
        log(this.options.log, delivery, 'warn', 'delivery failed; retrying', {
          reason: remedy.reason,
          retryInMs: delayMs,
        });
        return;
      }
      await this.fail(
        delivery,
        `gave up after ${delivery.attempts} attempts (it was due by its deadline): ${remedy.reason}`,
        false,
        subject,
      );
      return;
    }
    await this.fail(delivery, remedy.reason, remedy.kind === 'refused' && remedy.channel, subject);
  }

  private async fail(delivery: Delivery, reason: string, channel: boolean, subject?: AnySubject): Promise<void> {
    const failed = subject?.hooks.failed?.bind(subject.hooks);
    const decoded = failed && subject ? this.decoded(delivery, subject) : undefined;
    await this.options.db.transaction(async (tx) => {
      if (!(await new DeliveryRepo(tx).markFailed(delivery.id, this.options.owner, reason))) return;
      if (failed && decoded) await failed(tx, decoded, { reason, channel });
    });
    this.options.events?.failed?.(delivery, reason);
    if (subject) this.told(delivery, subject);
    log(this.options.log, delivery, 'error', 'delivery failed for good', { reason });
  }

  /** Retries writing an outcome while the store is down (the row stays ours: heartbeats go on). */
  private async persist(write: () => Promise<void>): Promise<void> {
    for (let wait = 500; ; wait = Math.min(wait * 2, 10_000)) {
      try {
        await write();
        return;
      } catch (error) {
        if (this.stopped) throw error;
        this.options.log.warn(
          { err: errorText(error), retryInMs: wait },
          'could not record a delivery outcome; trying again',
        );
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}

function log(
  logger: Logger,
  d: Delivery,
  level: 'info' | 'warn' | 'error',
  msg: string,
  extra: Record<string, unknown> = {},
): void {
  logger[level]({ delivery: d.id, kind: d.kind, channel: d.channelId, attempt: d.attempts, ...extra }, msg);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The promise, or a rejection that reads as Slack's own timeout once `ms` pass. */
const withinSlack = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  within(promise, ms, () =>
    Object.assign(new Error(`Slack did not answer within ${ms} ms (timed out)`), {
      code: 'slack_webapi_request_error',
    }),
  );
