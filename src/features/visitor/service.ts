import { localDate } from '../../kernel/dates.js';
import { visitorFilter } from '../../kernel/filters.js';
import {
  SECURITY_CHECKS,
  type Part,
  type SecurityAnswers,
  type SecurityCheck,
  type VisitorRecord,
  type VisitRecord,
} from '../../kernel/records.js';
import { clip } from '../../kernel/text.js';
import { judge, securityFacts, type Verdict, type VerdictOptions } from '../../kernel/verdict.js';
import type { AnalyticsApi } from '../../platform/api/analytics.js';
import type { Answering } from '../../platform/answering.js';
import { ApiError } from '../../platform/api/errors.js';
import type { Logger } from '../../platform/log.js';
import { withinQuota } from '../../platform/quota.js';
import { fallbackText, mrkdwnCode } from '../../platform/slack/kit/escape.js';
import { problemMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import { visitorCard, type VisitorProfile } from './card.js';

export const VISITS_PER_PAGE = 10;

export interface CardRequest {
  visitorId: string;
  visitId?: string;
  page?: number;
  channelId: string | undefined;
  user: string;
  /** For everyone in the channel (IP addresses masked), not only the person asking. */
  share?: boolean;
  /** On a surface only the person sees (an agent's answer): who they are decides, not the channel. */
  privately?: boolean;
  log?: Logger;
}

/** The workspace a card is asked in: its analytics account, and its rules of who may see security details. */
export type CardTenant = Pick<Tenant, 'api' | 'access' | 'team'>;

/** What other features may ask of this one: a visitor's card, with the workspace's access rules applied. */
export interface VisitorCards {
  card(tenant: CardTenant, request: CardRequest): Promise<{ ok: boolean; message: SlackMessage }>;
}

/** A card, and when it came, the profile and verdict it shows. */
export type Card =
  { ok: true; message: SlackMessage; profile: VisitorProfile; verdict: Verdict } | { ok: false; message: SlackMessage };

export interface VisitorServiceDeps extends Answering {
  verdict: VerdictOptions;
}

async function part<T>(promise: Promise<T>): Promise<Part<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error };
    throw error;
  }
}

/**
 * Everything about one visitor, asked all at once: the five security lookups (with
 * visit_id where the spec takes it), the visitor record and a page of recent visits.
 * A part that fails is marked, not fatal.
 */
/** A card's requests: each security check, the visitor's record and a page of visits. */
const CARD_REQUESTS = SECURITY_CHECKS.length + 2;

export async function fetchVisitorProfile(
  api: AnalyticsApi,
  visitorId: string,
  options: { visitId?: string; visitsPage: number; visitsLimit: number; endDate: string },
): Promise<VisitorProfile> {
  const range = { startDate: '1970-01-01', endDate: options.endDate };
  const filterGroups = visitorFilter(visitorId);
  const lookups = (visitId: string | undefined) =>
    Promise.all(SECURITY_CHECKS.map((check) => part(api.security.check(check, visitorId, visitId))));
  const [askedChecks, record, visits] = await Promise.all([
    lookups(options.visitId),
    part<VisitorRecord | undefined>(
      api
        .visitors({ ...range, filterGroups, limit: 1 })
        .then((rows) => rows.find((r) => r.id === visitorId) ?? rows[0]),
    ),
    part<readonly VisitRecord[]>(
      api.visits({
        ...range,
        filterGroups,
        page: options.visitsPage,
        limit: options.visitsLimit,
        sort: { key: 'created', value: -1 },
      }),
    ),
  ]);
  // A visit the API does not know: ask about the visitor alone, so a mistyped visit id cannot hide a verdict.
  let unknownVisit: string | undefined;
  let checks = askedChecks;
  if (options.visitId && checks.some((p) => !p.ok && p.error.kind === 'not_found')) {
    const plain = await lookups(undefined);
    if (plain.some((p) => p.ok)) {
      unknownVisit = options.visitId;
      checks = plain;
    }
  }
  const security = Object.fromEntries(SECURITY_CHECKS.map((check, i) => [check, checks[i]])) as {
    [K in SecurityCheck]: Part<SecurityAnswers[K]>;
  };
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
    ...(unknownVisit ? { unknownVisit } : {}),
  };
}

/** The visitor card: who may see it, what the lookups say, the verdict. Failures become messages. */
export class VisitorService implements VisitorCards {
  constructor(private readonly deps: VisitorServiceDeps) {}

  get log(): Logger {
    return this.deps.log;
  }

  async card(tenant: CardTenant, request: CardRequest): Promise<Card> {
    const { access } = tenant;
    const log = request.log ?? this.deps.log;
    const channel = request.channelId;
    const allowed = request.privately
      ? access.maySeeSecurityPrivately(request.user)
      : access.maySeeSecurity(request.user, channel);
    if (!allowed) {
      log.info({ user: request.user, channel }, 'visitor card refused');
      // Privately, the channels do not matter: the refusal names only who may look visitors up.
      const where = request.privately ? access.rules.security.channels[0] : channel;
      return { ok: false, message: access.securityRefusal(request.user, where) };
    }
    if (request.share && !access.mayPostSecurity(channel))
      return { ok: false, message: access.securityRefusal(request.user, undefined) };
    const timeZone = await this.deps.timeZoneFor(channel);
    const now = this.deps.now();
    const page = request.page ?? 1;
    const fetched = await withinQuota(this.deps.quota, tenant.team, request.user, CARD_REQUESTS, () =>
      fetchVisitorProfile(tenant.api, request.visitorId, {
        visitId: request.visitId,
        visitsPage: page,
        visitsLimit: VISITS_PER_PAGE,
        endDate: localDate(new Date(now.getTime() + 86_400_000), 'UTC') ?? '2100-01-01',
      }),
    );
    if (!fetched.ok) {
      log.info({ user: request.user }, 'request refused: over the per-person limit');
      return { ok: false, message: problemMessage(fetched.problem) };
    }
    const profile = fetched.value;
    if (profile.notFound) {
      log.info({ visitorId: request.visitorId }, 'no such visitor');
      const shown = clip(request.visitorId, 60);
      return {
        ok: false,
        message: {
          text: fallbackText(`No visitor ${shown} found.`),
          blocks: [
            {
              type: 'section',
              text: {
                type: 'mrkdwn',
                text: `:mag: No visitor ${mrkdwnCode(shown)} found. Check the id (from a visitors or visits report).`,
              },
            },
          ],
        },
      };
    }
    if (profile.allFailed) {
      const first = Object.values(profile.security).find((p) => !p.ok);
      log.warn(
        { visitorId: request.visitorId, kind: first && !first.ok ? first.error.kind : undefined },
        'visitor lookup failed',
      );
      return {
        ok: false,
        message: problemMessage(first && !first.ok ? first.error.message : 'The analytics API did not answer.'),
      };
    }
    for (const [check, answer] of Object.entries(profile.security)) {
      if (!answer.ok)
        log.warn(
          { visitorId: request.visitorId, check, kind: answer.error.kind },
          'security lookup failed; the card marks it',
        );
    }
    const verdict = judge(securityFacts(profile.security), this.deps.verdict);
    const message = visitorCard({
      profile,
      verdict,
      visitsPage: page,
      visitsLimit: VISITS_PER_PAGE,
      visitId: request.visitId,
      timeZone,
      now,
      demo: this.deps.demo,
      showIp: !request.share,
      ...(request.share ? { sharedBy: request.user } : {}),
      canShare: !request.share && !request.privately && access.mayPostSecurity(channel),
    });
    return { ok: true, message, profile, verdict };
  }
}
