/**
 * What the analytics API is asked, and for whom. A person's command runs inside `forPerson`,
 * so the client counts the requests it really made (charged to the person's quota) and serves
 * them first; everything else (digests, watches, the threat scan) is background work, which
 * waits when the workspace's minute is spent instead of failing. What is done for a workspace
 * runs `chargedTo` its budget; the rest (the threat scan, per account) spends the account's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { TokenBucket } from '../token-bucket.js';

export interface ApiWork {
  who: 'person' | 'background';
  /** Requests made so far on this work's behalf (each attempt counts). */
  requests: number;
}

/**
 * Whose work a call is and whose budget it spends, in one store: each AsyncLocalStorage in
 * use costs every promise the process makes (Node 20 and 22 propagate each store to it).
 */
const scope = new AsyncLocalStorage<{ work?: ApiWork; budget?: ApiBudget }>();

/** The work the current call belongs to; undefined: Lookout's own. */
export function currentWork(): ApiWork | undefined {
  return scope.getStore()?.work;
}

/** The budget the current call is charged to, when it is a workspace's. */
export function currentBudget(): ApiBudget | undefined {
  return scope.getStore()?.budget;
}

/** Runs `fn` with its analytics API requests charged to `budget` (a workspace's). */
export function chargedTo<T>(budget: ApiBudget, fn: () => T): T {
  return scope.run({ ...scope.getStore(), budget }, fn);
}

/** Runs `fn` on a person's behalf; resolves to its value and the API requests it made (counted in the work it is part of too). */
export async function forPerson<T>(fn: () => Promise<T>): Promise<{ value: T; requests: number }> {
  const mine: ApiWork = { who: 'person', requests: 0 };
  const outer = currentWork();
  try {
    const value = await scope.run({ ...scope.getStore(), work: mine }, fn);
    return { value, requests: mine.requests };
  } finally {
    if (outer) outer.requests += mine.requests;
  }
}

/**
 * The workspace's requests a minute, shared by people and background work: a token bucket
 * holding a minute's worth. A person's request always goes (their own quota bounds them) and
 * may overdraw the bucket by up to a minute's worth; background work waits for a whole token
 * and for no person to have overdrawn it. One per workspace (two workspaces on one account
 * never spend each other's) and per replica: with N replicas the workspace's share is N times
 * this (docs/security.md).
 */
export class ApiBudget {
  private readonly bucket: TokenBucket;
  /** Background requests waiting now (for metrics). */
  waiting = 0;
  /** Background requests that had to wait, ever. */
  waited = 0;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.bucket = new TokenBucket(perMinute, 60_000 / perMinute, now());
  }

  /** Takes one request's token: at once for a person, when one is free for background work. */
  async acquire(who: ApiWork['who']): Promise<void> {
    if (who === 'person') return this.bucket.take(this.now(), 1, -this.perMinute);
    if (this.bucket.tryTake(this.now())) return;
    this.waited++;
    this.waiting++;
    try {
      while (!this.bucket.tryTake(this.now()))
        await new Promise((r) => setTimeout(r, Math.min(5_000, Math.max(50, this.bucket.waitMs(this.now())))));
    } finally {
      this.waiting--;
    }
  }
}
