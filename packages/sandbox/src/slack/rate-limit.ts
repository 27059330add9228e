/** Token buckets per key, as Slack limits chat.postMessage per channel (a burst, then about 1 a second). */
import { METHOD_RULES, type MethodName } from '@lookout/slack-rules/rules';

export interface RateLimitOptions {
  /** Calls allowed at once with a full bucket. */
  burst: number;
  /** Tokens added back per second. */
  perSecond: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { burst: 5, perSecond: 1 };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private options: RateLimitOptions | false,
    private readonly now: () => number,
  ) {
    if (options) RateLimiter.check(options);
  }

  private static check(options: RateLimitOptions): void {
    if (!(options.burst >= 1) || !(options.perSecond > 0)) {
      throw new Error('rateLimit needs burst >= 1 and perSecond > 0');
    }
  }

  configure(options: RateLimitOptions | false): void {
    if (options) RateLimiter.check(options);
    this.options = options;
    this.buckets.clear();
  }

  /** Takes one token for `key`: `{ ok: true }`, or the whole seconds to wait (Retry-After, at least 1). */
  take(key: string): { ok: true } | { ok: false; retryAfter: number } {
    const options = this.options;
    if (!options) return { ok: true };
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: options.burst, at: now };
    bucket.tokens = Math.min(options.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * options.perSecond);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / options.perSecond));
    return { ok: false, retryAfter };
  }
}

/**
 * Slack's method tiers (slack-rules/rules.ts), per method per workspace: each method's
 * bucket holds a minute's floor ("Tier 3: 50+ per minute") and refills at that rate.
 * chat.postMessage is limited per channel instead (RateLimiter above).
 */
export class MethodTiers {
  private readonly buckets: Map<string, RateLimiter> = new Map();

  constructor(
    private on: boolean,
    private readonly now: () => number,
  ) {}

  configure(on: boolean): void {
    this.on = on;
    this.buckets.clear();
  }

  /** Takes one call of `method` in workspace `team`: ok, or the seconds to wait. */
  take(method: string, team: string): { ok: true } | { ok: false; retryAfter: number } {
    if (!this.on || method === 'chat.postMessage' || !Object.hasOwn(METHOD_RULES, method)) return { ok: true };
    const rule = METHOD_RULES[method as MethodName];
    let limiter = this.buckets.get(method);
    if (!limiter) {
      limiter = new RateLimiter(
        { burst: ('burst' in rule ? rule.burst : undefined) ?? rule.perMinute, perSecond: rule.perMinute / 60 },
        this.now,
      );
      this.buckets.set(method, limiter);
    }
    return limiter.take(team);
  }
}
