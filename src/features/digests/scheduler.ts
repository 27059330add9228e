import type { Logger } from '../../platform/log.js';
import { within } from '../../platform/within.js';
import type { Digest } from './repo.js';
import type { DigestRunRepo } from './runs.js';
import type { PostSlot } from './publish.js';
import type { Schedule } from './service.js';
import { nextRun, previousRun } from './cron.js';

export interface SchedulerOptions {
  runs: DigestRunRepo;
  /** Every active (not paused) digest, fresh from the store (the catch-up on start). */
  loadActive: () => Promise<Digest[]>;
  /** One digest, fresh from the store (undefined when removed). */
  loadOne: (id: number) => Promise<Digest | undefined>;
  post: PostSlot;
  log: Logger;
  /** This replica's name in the runs table. */
  owner: string;
  now?: () => Date;
  /** The longest the timer sleeps: other replicas' adds, edits and pauses, and clock changes, are seen within this. */
  reloadMs?: number;
  /** A missed slot younger than this is posted on start; an older one is recorded as missed. */
  catchUpMs?: number;
  /** Claims being fetched renew a heartbeat this often; one without a heartbeat for 3× this lost its replica and is taken over. */
  heartbeatMs?: number;
}

/** How many digests one pass schedules or claims before the next pass (a pass runs again at once when full). */
const BATCH = 500;

/** Claims by key, `digest:<id>:<slot ISO time>` (tools and tests; the timer claims through runs directly). */
export interface RunCoordinator {
  shouldRun(key: string, ...rest: unknown[]): Promise<boolean>;
}

const KEY = /^digest:(\d+):(.+)$/;

/**
 * One timer for every digest. Each active digest keeps its next slot in the store
 * (digests.next_run_at, indexed); the timer sleeps until the earliest one (at most
 * `reloadMs`, so other replicas' changes and clock changes are seen), then claims the due
 * slots. The claim is an INSERT … ON CONFLICT DO NOTHING on (digest, slot) in the runs
 * table, so exactly one replica posts each slot. Which slots exist is schedule.ts's word
 * (cron-parser's next(), DST included): nothing here costs CPU per digest while idle.
 */
export class DigestScheduler implements Schedule {
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private started = false;
  private stopped = false;
  private readonly stopping = new AbortController();
  private catchingUp?: Promise<void>;
  /** The pass under way, if any (passes never overlap). */
  private passing?: Promise<void>;
  private readonly now: () => Date;

  constructor(private readonly options: SchedulerOptions) {
    this.now = options.now ?? (() => new Date());
  }

  private get window(): number {
    return this.options.catchUpMs ?? 60 * 60_000;
  }

  /**
   * Claims a slot by key, if it is a slot of the digest's schedule: a repeated local time's
   * second occurrence (DST fall back) is not, as the first was the slot.
   */
  readonly coordinator: RunCoordinator = {
    shouldRun: async (key) => {
      const match = KEY.exec(key);
      if (!match) return false;
      const id = Number(match[1]);
      const slot = new Date(match[2]!);
      const digest = await this.options.loadOne(id);
      if (!digest) return false;
      if (previousRun(digest.cron, digest.timeZone, slot)?.getTime() !== slot.getTime()) {
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
    this.started = true;
    // Catching up runs in the background, so a slow API does not hold up the start (stop() waits for it).
    this.catchingUp = this.catchUp().catch((error: unknown) =>
      log.error({ err: String(error) }, 'catching up on missed digests failed'),
    );
    this.arm(0);
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

  /** Takes changes now (an add, edit, pause or resume on this replica): schedules new rows and sets the timer again. */
  async reload(): Promise<void> {
    if (this.stopped) return;
    await this.serial(() => this.schedule());
    if (this.started) this.arm(0);
  }

  /** When a digest runs next (undefined when paused). */
  nextRun(digest: Digest): Date | undefined {
    if (digest.paused) return undefined;
    const now = this.now();
    if (digest.nextRunAt && digest.nextRunAt.getTime() > now.getTime()) return digest.nextRunAt;
    return nextRun(digest.cron, digest.timeZone, now);
  }

  /** Sets the timer: one pass after `delayMs`, then again at the earliest next slot (at most `reloadMs` away). */
  private arm(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.wake(), delayMs);
    this.timer.unref();
  }

  private async wake(): Promise<void> {
    const cap = this.options.reloadMs ?? 30_000;
    let delay = cap;
    try {
      const { full } = await this.serial(() => this.pass());
      const earliest = full ? undefined : await this.options.runs.earliestNextRun();
      if (full) delay = 0;
      else if (earliest) delay = Math.min(cap, Math.max(0, earliest.getTime() - this.now().getTime()));
    } catch (error) {
      this.options.log.error({ err: String(error) }, 'scheduling digests failed; trying again');
    }
    this.arm(delay);
  }

  /** Runs `work` after any pass under way (passes never overlap on a replica). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = (this.passing ?? Promise.resolve()).then(work);
    this.passing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Gives digests without a next slot one (new, edited, resumed, or made before migration 012):
   * their latest slot when it is recent, not before the digest and still unclaimed (posted by
   * the next pass, as the catch-up did for an edit or a resume), else the slot after now.
   * True when the batch was full.
   */
  private async schedule(): Promise<boolean> {
    const { runs } = this.options;
    const now = this.now();
    const unscheduled = await runs.unscheduled(BATCH);
    for (const digest of unscheduled) {
      if (this.stopped) break;
      const latest = previousRun(digest.cron, digest.timeZone, now);
      const pending =
        latest &&
        latest.getTime() >= digest.createdAt.getTime() &&
        now.getTime() - latest.getTime() <= this.window &&
        !(await runs.get(digest.id, latest));
      await runs.setNextRun(digest.id, undefined, pending ? latest : nextRun(digest.cron, digest.timeZone, now));
    }
    return unscheduled.length === BATCH;
  }

  /**
   * One pass of the timer: schedules new rows, then claims every due slot and moves its
   * digest to the slot after now. When several slots passed (the process was stopped or
   * stalled), only the latest counts; one older than the catch-up window is left to the
   * catch-up on start, which records it as missed. Posting runs in the background.
   */
  private async pass(): Promise<{ full: boolean; work: Promise<void>[] }> {
    const { runs, owner, log } = this.options;
    const fullSchedule = await this.schedule();
    const now = this.now();
    const due = await runs.due(now, BATCH);
    const work: Promise<void>[] = [];
    for (const digest of due) {
      if (this.stopped) break;
      const was = digest.nextRunAt!;
      let slot = was;
      let next = nextRun(digest.cron, digest.timeZone, slot);
      if (next && next.getTime() <= now.getTime()) {
        slot = previousRun(digest.cron, digest.timeZone, now) ?? slot;
        next = nextRun(digest.cron, digest.timeZone, now);
      }
      const recent = now.getTime() - slot.getTime() <= this.window;
      if (recent && slot.getTime() >= digest.createdAt.getTime() && (await runs.claim(digest.id, slot, owner))) {
        const where = { digest: digest.id, slot: slot.toISOString() };
        work.push(
          this.runClaimed(digest.id, slot).catch((error: unknown) =>
            log.error({ ...where, err: String(error) }, 'a digest slot failed'),
          ),
        );
      }
      await runs.setNextRun(digest.id, was, next);
    }
    return { full: fullSchedule || due.length === BATCH, work };
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

  /**
   * Periodic (the timer's pass, awaited with its posts): every due slot is claimed. On start
   * (the default): each digest's latest slot, if no replica ran it, is posted when recent and
   * recorded as missed otherwise.
   */
  async catchUp(options: { periodic?: boolean } = {}): Promise<void> {
    if (options.periodic) {
      const { work } = await this.serial(() => this.pass());
      await Promise.all(work);
      return;
    }
    const now = this.now();
    for (const digest of await this.options.loadActive()) {
      if (this.stopped) return;
      const slot = previousRun(digest.cron, digest.timeZone, now);
      if (!slot || slot.getTime() < digest.createdAt.getTime()) continue;
      if (await this.options.runs.get(digest.id, slot)) continue;
      if (now.getTime() - slot.getTime() <= this.window) {
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

  /** Stops the timer; runs under way hand back their slot unless already posting (waited for, up to `graceMs`). */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    clearTimeout(this.timer);
    clearInterval(this.heartbeatTimer);
    const pending = [...this.inFlight.values()];
    if (this.catchingUp) pending.push(this.catchingUp);
    if (this.passing) pending.push(this.passing);
    if (pending.length > 0) {
      await within(Promise.allSettled(pending), graceMs).catch(() => undefined);
    }
  }
}
