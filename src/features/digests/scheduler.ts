import cron, { type RunCoordinator, type ScheduledTask } from 'node-cron';
import type { Logger } from '../../platform/log.js';
import type { Digest } from './repo.js';
import type { DigestRunRepo } from './runs.js';
import type { PostSlot } from './publish.js';
import type { Schedule } from './service.js';
import { previousRun } from './schedule.js';

export interface SchedulerOptions {
  runs: DigestRunRepo;
  /** Every active (not paused) digest, fresh from the store. */
  loadActive: () => Promise<Digest[]>;
  /** One digest, fresh from the store (undefined when removed). */
  loadOne: (id: number) => Promise<Digest | undefined>;
  post: PostSlot;
  log: Logger;
  /** This replica's name in the runs table. */
  owner: string;
  now?: () => Date;
  /** How often every replica re-reads the digests (adds, edits, pauses take effect within this). */
  reloadMs?: number;
  /** A missed slot younger than this is posted on start; an older one is recorded as missed. */
  catchUpMs?: number;
  /** Claims being fetched renew a heartbeat this often; one without a heartbeat for 3× this lost its replica and is taken over. */
  heartbeatMs?: number;
}

const KEY = /^digest:(\d+):(.+)$/;

/**
 * One node-cron task per active digest, in the digest's time zone. A
 * RunCoordinator backed by the runs table lets exactly one replica run each
 * slot: the claim is an INSERT … ON CONFLICT DO NOTHING on (digest, slot).
 */
export class DigestScheduler implements Schedule {
  private readonly tasks = new Map<number, { task: ScheduledTask; signature: string; digest: Digest }>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private reloadTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private stopped = false;
  private readonly stopping = new AbortController();
  private catchingUp?: Promise<void>;
  /** Slots known to have a run (bounded: cleared when it grows past 10,000). */
  private readonly settled = new Set<string>();
  private readonly now: () => Date;

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Claims for node-cron: the key is `digest:<id>:<slot ISO time>`. Which slots
   * exist is schedule.ts's word, not node-cron's: on a DST change node-cron
   * fires a repeated local time at its second occurrence (refused here, as the
   * first was the slot) and skips a local time that does not exist (the periodic
   * catch-up posts that slot, an hour later in local time).
   */
  readonly coordinator: RunCoordinator = {
    shouldRun: async (key) => {
      const match = KEY.exec(key);
      if (!match) return false;
      const id = Number(match[1]);
      const slot = new Date(match[2]!);
      const digest = this.tasks.get(id)?.digest;
      if (digest && previousRun(digest.cron, digest.timeZone, slot)?.getTime() !== slot.getTime()) {
        this.options.log.debug(
          { digest: id, slot: slot.toISOString() },
          'not a slot of this schedule (a repeated local time); skipped',
        );
        return false;
      }
      return this.options.runs.claim(id, slot, this.options.owner);
    },
  };

  async start(): Promise<void> {
    const { log } = this.options;
    await this.reload();
    // Catching up runs in the background, so a slow API does not hold up the start (stop() waits for it).
    this.catchingUp = this.catchUp().catch((error: unknown) =>
      log.error({ err: String(error) }, 'catching up on missed digests failed'),
    );
    // Every replica re-reads the digests, and catches up on any slot no task fired (a local time a DST change skipped).
    this.reloadTimer = setInterval(() => {
      this.reload()
        .then(() => this.catchUp({ periodic: true }))
        .catch((error: unknown) => log.error({ err: String(error) }, 'reloading digests failed'));
    }, this.options.reloadMs ?? 30_000);
    this.reloadTimer.unref();
    this.heartbeatTimer = setInterval(() => {
      this.heartbeat().catch((error: unknown) =>
        log.error({ err: String(error) }, 'digest heartbeat failed; trying again'),
      );
    }, this.options.heartbeatMs ?? 10_000);
    this.heartbeatTimer.unref();
  }

  /**
   * Renews this replica's claims, and takes over those whose replica stopped (killed
   * mid-fetch): posted while the slot is inside the catch-up window, abandoned after.
   */
  async heartbeat(): Promise<void> {
    const { runs, owner, log } = this.options;
    await runs.heartbeat(owner);
    const window = this.options.catchUpMs ?? 60 * 60_000;
    for (const run of await runs.takeOverStale(owner, (this.options.heartbeatMs ?? 10_000) * 3)) {
      if (this.stopped) return;
      const where = { digest: run.digestId, slot: run.slot.toISOString() };
      if (this.now().getTime() - run.slot.getTime() > window) {
        await runs.abandon(
          run.digestId,
          run.slot,
          owner,
          'its replica stopped while fetching it, and the slot is past the catch-up window',
        );
        log.warn(where, 'a digest slot whose replica stopped is too old to post; recorded as abandoned');
        continue;
      }
      log.warn(where, 'taking over a digest slot whose replica stopped while fetching it');
      void this.runClaimed(run.digestId, run.slot).catch((error: unknown) =>
        log.error({ ...where, err: String(error) }, 'a taken-over digest slot failed'),
      );
    }
  }

  /** Re-reads the digests: new ones get a task, changed ones a new task, removed or paused ones none. */
  async reload(): Promise<void> {
    if (this.stopped) return;
    const active = await this.options.loadActive();
    const seen = new Set<number>();
    for (const digest of active) {
      seen.add(digest.id);
      const signature = `${digest.cron}|${digest.timeZone}`;
      const current = this.tasks.get(digest.id);
      if (current?.signature === signature) {
        current.digest = digest;
        continue;
      }
      if (current) await current.task.destroy();
      this.tasks.set(digest.id, { task: this.schedule(digest), signature, digest });
    }
    for (const [id, { task }] of this.tasks) {
      if (!seen.has(id)) {
        await task.destroy();
        this.tasks.delete(id);
      }
    }
  }

  private schedule(digest: Digest): ScheduledTask {
    const task = cron.createTask(digest.cron, (context) => this.runClaimed(digest.id, context.date), {
      name: `digest:${digest.id}`,
      timezone: digest.timeZone,
      distributed: true,
      runCoordinator: this.coordinator,
      distributedLease: 10 * 60_000,
      noOverlap: true,
    });
    void task.start();
    return task;
  }

  /** The next time a digest runs, per its task (undefined when it has none: paused or unknown). */
  nextRun(digestId: number): Date | undefined {
    return this.tasks.get(digestId)?.task.getNextRun() ?? undefined;
  }

  /** A slot whose claim this replica holds: post it (the freshest digest from the store decides what). */
  private async runClaimed(digestId: number, slot: Date): Promise<void> {
    const key = `${digestId}:${slot.toISOString()}`;
    const work = (async () => {
      const digest = await this.options.loadOne(digestId);
      if (!digest || digest.paused) {
        await this.options.runs.release(digestId, slot, this.options.owner);
        return;
      }
      await this.options.post(digest, slot, this.stopping.signal);
    })();
    this.inFlight.set(key, work);
    try {
      await work;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Claims and posts one slot as the cron task would (used for catch-up, and by tests and tools). */
  async runSlot(digest: Digest, slot: Date): Promise<boolean> {
    const claimed = await this.options.runs.claim(digest.id, slot, this.options.owner);
    if (claimed) await this.runClaimed(digest.id, slot);
    return claimed;
  }

  /** Each digest's latest slot, if no replica ran it: posted when recent, recorded as missed otherwise. */
  async catchUp(options: { periodic?: boolean } = {}): Promise<void> {
    const now = this.now();
    const window = this.options.catchUpMs ?? 60 * 60_000;
    for (const digest of await this.options.loadActive()) {
      if (this.stopped) return;
      const slot = previousRun(digest.cron, digest.timeZone, now);
      if (!slot || slot.getTime() < digest.createdAt.getTime()) continue;
      // Every 30 s, only recent slots not yet seen here cost a query; old ones were settled at start.
      const key = `${digest.id}:${slot.toISOString()}`;
      if (options.periodic && (now.getTime() - slot.getTime() > window || this.settled.has(key))) continue;
      if (await this.options.runs.get(digest.id, slot)) {
        if (this.settled.size > 10_000) this.settled.clear();
        this.settled.add(key);
        continue;
      }
      if (now.getTime() - slot.getTime() <= window) {
        this.options.log.info(
          { digest: digest.id, slot: slot.toISOString() },
          'posting a digest slot missed while no replica was running',
        );
        await this.runSlot(digest, slot);
      } else if (await this.options.runs.recordMissed(digest.id, slot)) {
        this.options.log.warn(
          { digest: digest.id, slot: slot.toISOString() },
          'a digest slot was missed while no replica was running',
        );
      }
    }
  }

  /** Stops every task; runs under way hand back their slot unless already posting (waited for, up to `graceMs`). */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearInterval(this.reloadTimer);
    clearInterval(this.heartbeatTimer);
    for (const { task } of this.tasks.values()) await task.destroy();
    this.tasks.clear();
    const pending = [...this.inFlight.values()];
    if (this.catchingUp) pending.push(this.catchingUp);
    if (pending.length > 0) {
      await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, graceMs).unref())]);
    }
  }
}
