import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import type { Part, SecurityAnswers, SecurityCheck } from '../../kernel/records.js';
import { securityFacts, type AlertCheck, type SecurityFacts } from '../../kernel/verdict.js';
import type { AnalyticsApi } from '../../platform/api/analytics.js';
import { ApiError } from '../../platform/api/errors.js';
import type { VisitorCheckRepo } from './repos/visitor-checks.js';

interface CachedFacts {
  checks: AlertCheck[];
  facts: SecurityFacts;
}

export interface LookupOptions {
  visitorChecks: VisitorCheckRepo;
  /** ALERT_RECHECK_AFTER: a visitor's security answers are reused this long. */
  recheckMs: number;
  /** Visitors looked up at once. */
  concurrency?: number;
}

/** Visitors' security facts: from the verdict store while fresh, else asked of the API and kept there. */
export class SecurityLookups {
  constructor(private readonly options: LookupOptions) {}

  private freshSince(now: Date): Date {
    return new Date(now.getTime() - this.options.recheckMs);
  }

  /**
   * Looks up at most `max` of these visitors not judged yet, with these checks, and keeps
   * their facts as a scan would. The sample is the same for the same visitors (ordered by a
   * hash of their id). Returns how many were looked up.
   */
  async sample(
    api: AnalyticsApi,
    account: string,
    visitorIds: readonly string[],
    checks: AlertCheck[],
    max: number,
    now: Date,
  ): Promise<number> {
    const known = await this.options.visitorChecks.getFresh(account, visitorIds, this.freshSince(now));
    const sample = visitorIds
      .filter((id) => !known.has(id))
      .map((id) => [createHash('sha1').update(id).digest('hex'), id] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, max)
      .map(([, id]) => id);
    if (sample.length === 0) return 0;
    await this.factsFor(api, sample, checks, now);
    return sample.length;
  }

  /** Each visitor's facts for the checks asked: cached ones, else looked up. A failed lookup fails the scan (after caching the rest). */
  async factsFor(
    api: AnalyticsApi,
    visitorIds: string[],
    checks: AlertCheck[],
    now: Date,
  ): Promise<{ facts: Map<string, SecurityFacts>; lookups: number }> {
    const { visitorChecks } = this.options;
    const cached = await visitorChecks.getFresh(api.account, visitorIds, this.freshSince(now));
    const facts = new Map<string, SecurityFacts>();
    const missing: string[] = [];
    for (const id of visitorIds) {
      const entry = cached.get(id)?.facts as CachedFacts | undefined;
      if (entry && checks.every((c) => entry.checks.includes(c))) facts.set(id, entry.facts);
      else missing.push(id);
    }
    const limit = pLimit(this.options.concurrency ?? 16);
    let lookups = 0;
    let failure: ApiError | undefined;
    const fetched: { visitorId: string; facts: CachedFacts; checkedAt: Date }[] = [];
    await Promise.all(
      missing.map((visitorId) =>
        limit(async () => {
          if (failure) return;
          const parts: { [K in SecurityCheck]?: Part<SecurityAnswers[K]> } = {};
          await Promise.all(
            checks.map(async (check) => {
              lookups++;
              try {
                (parts as Record<string, Part<unknown>>)[check] = {
                  ok: true,
                  value: await api.security.check(check, visitorId),
                };
              } catch (error) {
                if (!(error instanceof ApiError)) throw error;
                // An unknown visitor is an answer (nothing known); anything else means try again later.
                if (error.kind !== 'not_found' && error.kind !== 'bad_request') failure ??= error;
                (parts as Record<string, Part<unknown>>)[check] = { ok: false, error };
              }
            }),
          );
          if (failure) return;
          // Checks not asked are absent (securityFacts leaves them out).
          const visitorFacts = securityFacts(parts);
          facts.set(visitorId, visitorFacts);
          fetched.push({ visitorId, facts: { checks, facts: visitorFacts }, checkedAt: now });
        }),
      ),
    );
    if (fetched.length > 0)
      await visitorChecks.save(
        api.account,
        fetched.map((f) => ({ visitorId: f.visitorId, facts: f.facts, checkedAt: f.checkedAt })),
      );
    if (failure) throw failure;
    return { facts, lookups };
  }
}
