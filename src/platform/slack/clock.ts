import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.js';
import { CheckFailed } from '../ops.js';

/** Signed requests refused for their timestamp, with none accepted since, that say this replica's clock is off. */
export const SKEW_EVIDENCE = 3;
const RECENT_MS = 10 * 60_000;

/**
 * Whether this replica's clock is off, judged from Slack's own timestamps. A correctly
 * signed request outside the 5-minute window is Slack's word against this clock (the
 * signature covers the timestamp, so nobody without the signing secret can forge one);
 * several within 10 minutes and none accepted since mean every request is being refused.
 */
export class ClockSkew {
  private refusals: { at: number; skewSeconds: number }[] = [];

  constructor(
    private readonly log: Logger,
    /** A monotonic clock (ms): the evidence ages by it, not by the clock being judged. */
    private readonly elapsed: () => number = () => performance.now(),
  ) {}

  /** A signed request refused for its timestamp; `skewSeconds` is this clock minus Slack's. */
  refused(skewSeconds: number): void {
    this.refusals.push({ at: this.elapsed(), skewSeconds });
    this.forgetOld();
    if (this.refusals.length === SKEW_EVIDENCE) {
      this.log.error(
        { skewSeconds: this.median() },
        `${describeSkew(this.median())}: every request from Slack is refused until it is set right (NTP)`,
      );
    }
  }

  /** A request inside the window: whatever was refused before, this clock agrees with Slack's now. */
  accepted(): void {
    if (this.refusals.length >= SKEW_EVIDENCE)
      this.log.info("this replica's clock agrees with Slack's again: requests are accepted");
    if (this.refusals.length > 0) this.refusals = [];
  }

  /** The measured skew in seconds (this clock minus Slack's) while the evidence says the clock is off. */
  skew(): number | undefined {
    this.forgetOld();
    return this.refusals.length >= SKEW_EVIDENCE ? this.median() : undefined;
  }

  /** The readiness check: fails as "skewed" with the measured skew as its detail. */
  readonly check = async (): Promise<void> => {
    const skew = this.skew();
    if (skew !== undefined)
      throw new CheckFailed(
        'skewed',
        `${describeSkew(skew)} (${this.refusals.length} signed requests refused for their timestamp in the last 10 minutes, none accepted since)`,
      );
  };

  private forgetOld(): void {
    const since = this.elapsed() - RECENT_MS;
    if (this.refusals.length > 0 && this.refusals[0]!.at < since)
      this.refusals = this.refusals.filter((r) => r.at >= since);
  }

  private median(): number {
    const sorted = this.refusals.map((r) => r.skewSeconds).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }
}

function describeSkew(skewSeconds: number): string {
  return `this replica's clock is ${Math.abs(skewSeconds)} s ${skewSeconds > 0 ? 'ahead of' : 'behind'} Slack's`;
}
