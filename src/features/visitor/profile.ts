import type { SecurityFacts } from '../../kernel/verdict.js';
import type { AnalyticsApi } from '../../platform/api/analytics.js';
import { ApiError } from '../../platform/api/errors.js';
import type { VisitorRecord, VisitRecord } from '../../platform/api/schemas.js';
import { SECURITY_CHECKS, type SecurityAnswers, type SecurityCheck } from '../../platform/api/security.js';
import type { FilterGroup } from '../../kernel/filters.js';

/** One part of a profile: its answer, or why it is missing. */
export type Part<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export interface VisitorProfile {
  visitorId: string;
  security: { [K in SecurityCheck]: Part<SecurityAnswers[K]> };
  record: Part<VisitorRecord | undefined>;
  visits: Part<readonly VisitRecord[]>;
  /** Every lookup that could tell said there is no such visitor. */
  notFound: boolean;
  /** Every lookup failed for some other reason. */
  allFailed: boolean;
}

async function part<T>(promise: Promise<T>): Promise<Part<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error };
    throw error;
  }
}

export function visitorFilter(visitorId: string): FilterGroup[] {
  return [{ filters: [{ object: 'visitor', field: 'id', operator: 'is_any_of', value: [visitorId] }] }];
}

/**
 * Everything about one visitor, asked all at once: the five security lookups
 * (with visit_id where the spec takes it), the visitor record and a page of
 * recent visits. A part that fails is marked, not fatal.
 */
export async function fetchVisitorProfile(
  api: AnalyticsApi,
  visitorId: string,
  options: { visitId?: string; visitsPage?: number; visitsLimit?: number; endDate: string },
): Promise<VisitorProfile> {
  const range = { startDate: '1970-01-01', endDate: options.endDate };
  const filterGroups = visitorFilter(visitorId);
  const [checks, record, visits] = await Promise.all([
    Promise.all(SECURITY_CHECKS.map((check) => part(api.security.check(check, visitorId, options.visitId)))),
    part(api.visitors({ ...range, filterGroups, limit: 1 }).then((rows) => rows.find((r) => r.id === visitorId) ?? rows[0])),
    part(
      api.visits({
        ...range,
        filterGroups,
        page: options.visitsPage ?? 1,
        limit: options.visitsLimit ?? 10,
        sort: { key: 'created', value: -1 },
      }),
    ),
  ]);
  const security = Object.fromEntries(SECURITY_CHECKS.map((check, i) => [check, checks[i]])) as VisitorProfile['security'];
  const securityParts = Object.values(security) as Part<unknown>[];
  const said404 = securityParts.filter((p) => !p.ok && p.error.kind === 'not_found').length;
  const answered = securityParts.filter((p) => p.ok).length;
  const noRecord = record.ok && record.value === undefined;
  return {
    visitorId,
    security,
    record,
    visits,
    notFound: said404 > 0 && answered === 0 && (noRecord || !record.ok),
    allFailed: answered === 0 && !record.ok && !visits.ok,
  };
}

/** The answers that came back, in the shape the verdict rules read; failed lookups named with why. */
export function securityFacts(profile: Pick<VisitorProfile, 'security'>): SecurityFacts {
  const { adblock, bot, scraping, vpn, extensions } = profile.security;
  const unavailable: Record<string, string> = {};
  for (const [check, answer] of Object.entries(profile.security) as [SecurityCheck, Part<unknown>][]) {
    if (!answer.ok) unavailable[check] = answer.error.kind.replace(/_/g, ' ');
  }
  return {
    bot: bot.ok ? bot.value : undefined,
    scraping: scraping.ok ? { score: scraping.value.score, visitor_type: scraping.value.visitor_type } : undefined,
    vpn: vpn.ok ? vpn.value : undefined,
    extensions: extensions.ok ? extensions.value : undefined,
    adblock: adblock.ok ? adblock.value : undefined,
    unavailable,
  };
}
