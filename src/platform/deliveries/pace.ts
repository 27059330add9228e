import { TokenBucket } from '../token-bucket.js';

/**
 * One channel's pace: a token bucket (a burst, then one post every `intervalMs`) that a 429
 * holds. Slack's Retry-After says when the channel may post again; the refused attempt
 * already spent this bucket's token, so holding resets the bucket to one token at that
 * moment instead of letting a second post go out at once and be refused too.
 */
export class ChannelPace {
  private readonly bucket: TokenBucket;

  constructor(burst: number, intervalMs: number, now: number) {
    this.bucket = new TokenBucket(burst, intervalMs, now);
  }

  /** Milliseconds until a post may go out (0: now). Reads only: a post in flight earns nothing until settled. */
  waitMs(now: number): number {
    return this.bucket.waitMs(now);
  }

  /** Spends a post's token (the caller checked `waitMs` first). */
  take(now: number): void {
    this.bucket.take(now);
  }

  /**
   * The post taken for has been answered: the interval counts from now, not from when it
   * left, so two posts never reach Slack closer than an interval even when the first was slow
   * to arrive (Slack counts from arrival).
   */
  settle(now: number): void {
    this.bucket.holdUntil(now);
  }

  /**
   * Slack said wait `ms`: one post may go out then, the next after a full interval. Slack
   * took fewer at once than this bucket allowed, so the channel bursts no more: a token saved
   * up while a claim was late would otherwise send two posts closer than Slack allows.
   */
  hold(now: number, ms: number): void {
    this.bucket.holdUntil(now + ms);
    this.bucket.reset(1, 1);
  }
}
