/**
 * One channel's pace: a token bucket (a burst, then one post every `intervalMs`) that a 429
 * holds. Slack's Retry-After says when the channel may post again; the refused attempt
 * already spent this bucket's token, so holding resets the bucket to one token at that
 * moment instead of letting a second post go out at once and be refused too.
 */
export class ChannelPace {
  private tokens: number;
  private at: number;

  constructor(
    private burst: number,
    private readonly intervalMs: number,
    now: number,
  ) {
    this.tokens = burst;
    this.at = now;
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = Math.min(this.burst, this.tokens + (now - this.at) / this.intervalMs);
    this.at = now;
  }

  /** Milliseconds until a post may go out (0: now). Reads only: a post in flight earns nothing until settled. */
  waitMs(now: number): number {
    if (now < this.at) return this.at - now + (this.tokens >= 1 ? 0 : (1 - this.tokens) * this.intervalMs);
    const tokens = Math.min(this.burst, this.tokens + (now - this.at) / this.intervalMs);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) * this.intervalMs);
  }

  /** Spends a post's token (the caller checked `waitMs` first). */
  take(now: number): void {
    this.refill(now);
    this.tokens = Math.max(0, this.tokens - 1);
  }

  /**
   * The post taken for has been answered: the interval counts from now, not from when it
   * left, so two posts never reach Slack closer than an interval even when the first was slow
   * to arrive (Slack counts from arrival).
   */
  settle(now: number): void {
    if (now > this.at) this.at = now;
  }

  /**
   * Slack said wait `ms`: one post may go out then, the next after a full interval. Slack
   * took fewer at once than this bucket allowed, so the channel bursts no more: a token saved
   * up while a claim was late would otherwise send two posts closer than Slack allows.
   */
  hold(now: number, ms: number): void {
    this.at = Math.max(this.at, now + ms);
    this.tokens = 1;
    this.burst = 1;
  }
}
