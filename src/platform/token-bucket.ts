/**
 * A token bucket: up to `capacity` tokens, one more every `msPerToken`. Every pace and budget
 * is one (a channel's posts, a workspace's analytics API requests, App Home refreshes). Each
 * call is given the time, so the bucket reads no clock of its own.
 */
export class TokenBucket {
  private tokens: number;
  /** Tokens are earned from this moment on (later than now while held). */
  private at: number;

  constructor(
    private capacity: number,
    readonly msPerToken: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.at = now;
  }

  /** The tokens there are at `now` (reads only). */
  available(now: number): number {
    if (now <= this.at) return this.tokens;
    return Math.min(this.capacity, this.tokens + (now - this.at) / this.msPerToken);
  }

  /** Milliseconds until `n` tokens are there (0: now); reads only. */
  waitMs(now: number, n = 1): number {
    if (now < this.at) return this.at - now + Math.max(0, n - this.tokens) * this.msPerToken;
    const tokens = this.available(now);
    return tokens >= n ? 0 : Math.ceil((n - tokens) * this.msPerToken);
  }

  /** Takes `n` tokens whether or not they are there, down to `floor` (below 0: an overdraft paid back before anyone else takes one). */
  take(now: number, n = 1, floor = 0): void {
    this.refill(now);
    this.tokens = Math.max(floor, this.tokens - n);
  }

  /** Takes `n` tokens if they are there. */
  tryTake(now: number, n = 1): boolean {
    this.refill(now);
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }

  /** Earns no token before `at`. */
  holdUntil(at: number): void {
    if (at > this.at) this.at = at;
  }

  /** From now on holds `tokens`, and never more than `capacity`. */
  reset(tokens: number, capacity = this.capacity): void {
    this.capacity = capacity;
    this.tokens = Math.min(capacity, tokens);
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = this.available(now);
    this.at = now;
  }
}
