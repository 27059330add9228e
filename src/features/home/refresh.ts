import type { ChangeScope } from '../../platform/changes.js';
import type { Logger } from '../../platform/log.js';
import { TokenBucket } from '../../platform/token-bucket.js';
import type { HomeViewRepo } from './repo.js';

/** What one person's Home came to after a change: published again, the same as shown, or not worked out. */
export type RefreshOutcome = 'queued' | 'unchanged' | 'failed';

export interface HomeRefreshDeps {
  repo: Pick<HomeViewRepo, 'audience' | 'published'>;
  /** The person's Home in workspace `team` as it is now, and its hash. */
  render(team: string, user: string): Promise<{ view: { type: 'home'; blocks: unknown[] }; hash: string }>;
  /** The people whose digests or watches post in these channels of workspace `team`. */
  ownersIn(team: string, channels: readonly string[]): Promise<string[]>;
  /** Queues the publish in workspace `team` on the outbox (a pending one for the same person there is replaced). */
  enqueue(team: string, user: string, view: { type: 'home'; blocks: unknown[] }): Promise<void>;
  log: Logger;
  observe?: (outcome: RefreshOutcome) => void;
  /** Changes within this long are published together. */
  debounceMs?: number;
  /** views.publish is Tier 4 (100+ a minute): this replica queues at most `perMinute`, after a burst of `burst`. */
  perMinute?: number;
  burst?: number;
  /** Only Homes opened within this long are kept up to date; older ones are published when opened. */
  openedWithinMs?: number;
}

const RETRY_MS = 5_000;

/**
 * Keeps open Home tabs current: a change marks the people it concerns; a moment later
 * each one's Home is rendered, and published (through the outbox) only if it differs
 * from what they were last shown. Errors are logged, counted and retried; nothing throws.
 */
export class HomeRefresh {
  private pending = new Set<string>();
  private everyone = false;
  private channels = new Set<string>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private readonly bucket: TokenBucket;

  constructor(private readonly deps: HomeRefreshDeps) {
    this.bucket = new TokenBucket(deps.burst ?? 20, 60_000 / (deps.perMinute ?? 90), Date.now());
  }

  changed(scope: ChangeScope): void {
    if (this.stopped) return;
    if (scope === 'everyone') this.everyone = true;
    else if ('users' in scope) for (const user of scope.users) this.pending.add(user);
    else for (const channel of scope.channels) this.channels.add(JSON.stringify([scope.team, channel]));
    this.schedule(this.deps.debounceMs ?? 1_000);
  }

  /** Resolves once nothing is waiting to be worked out (tests). */
  async settled(): Promise<void> {
    while (this.timer || this.running) await (this.running ?? new Promise((r) => setTimeout(r, 20)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) return this.schedule(delayMs);
      this.running = this.flush()
        .catch((error: unknown) =>
          this.deps.log.error({ err: errorText(error) }, 'App Home refresh failed; trying again'),
        )
        .finally(() => {
          this.running = undefined;
        });
    }, delayMs);
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    const users = [...this.pending];
    const channels = [...this.channels];
    const everyone = this.everyone;
    this.pending = new Set();
    this.channels = new Set();
    this.everyone = false;
    let audience: { team: string; user: string; hash?: string }[];
    try {
      const named = everyone ? undefined : [...new Set([...users, ...(await this.owners(channels))])];
      audience =
        named?.length === 0 ? [] : await this.deps.repo.audience(named, this.deps.openedWithinMs ?? 30 * 86_400_000);
    } catch (error) {
      this.deps.observe?.('failed');
      this.deps.log.warn(
        { err: errorText(error), retryInMs: RETRY_MS },
        'could not work out whose App Home changed; trying again',
      );
      this.requeue(users, channels, everyone);
      return;
    }
    const failed: string[] = [];
    for (const { team, user, hash } of audience) {
      if (this.stopped) return;
      try {
        const fresh = await this.deps.render(team, user);
        if (fresh.hash === hash) {
          this.deps.observe?.('unchanged');
          continue;
        }
        if (!(await this.token())) return;
        await this.deps.enqueue(team, user, fresh.view);
        await this.deps.repo.published(team, user, fresh.hash);
        this.deps.observe?.('queued');
      } catch (error) {
        failed.push(user);
        this.deps.observe?.('failed');
        this.deps.log.warn(
          { team, user, err: errorText(error), retryInMs: RETRY_MS },
          'App Home not published again; trying again',
        );
      }
    }
    if (failed.length > 0) this.requeue(failed, [], false);
  }

  /** Waits for the rate limit to allow a publish; false once stopping (shutdown does not wait out the limit). */
  private async token(): Promise<boolean> {
    while (!this.bucket.tryTake(Date.now())) {
      if (this.stopped) return false;
      await new Promise((r) => setTimeout(r, Math.min(250, Math.max(20, this.bucket.waitMs(Date.now())))));
    }
    return !this.stopped;
  }

  /** The owners of what posts in the changed channels, asked once per workspace (`channels` holds `[team, channel]` keys). */
  private async owners(channels: readonly string[]): Promise<string[]> {
    const byTeam = new Map<string, string[]>();
    for (const key of channels) {
      const [team, channel] = JSON.parse(key) as [string, string];
      byTeam.set(team, [...(byTeam.get(team) ?? []), channel]);
    }
    const found = await Promise.all([...byTeam].map(([team, list]) => this.deps.ownersIn(team, list)));
    return found.flat();
  }

  private requeue(users: string[], channels: string[], everyone: boolean): void {
    for (const user of users) this.pending.add(user);
    for (const channel of channels) this.channels.add(channel);
    this.everyone ||= everyone;
    this.schedule(RETRY_MS);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
