import { fetchVisitorProfile, securityFacts } from './profile.js';
import { localDate } from '../../kernel/dates.js';
import { judge } from '../../kernel/verdict.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { clip } from '../../platform/slack/kit/limits.js';
import { problemMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import { visitorCard } from './card.js';
import type { SlackDeps } from '../../platform/slack/deps.js';

export const VISITS_PER_PAGE = 10;

/** Fetches everything about a visitor at once and renders the card; failures become messages. */
export async function runVisitorCard(
  deps: SlackDeps,
  request: { visitorId: string; visitId?: string; page?: number; channelId?: string; showIp: boolean; canShare: boolean },
): Promise<{ ok: boolean; message: SlackMessage }> {
  const timeZone = await deps.timeZoneFor(request.channelId);
  const now = deps.now();
  const tomorrow = new Date(now.getTime() + 86_400_000);
  const page = request.page ?? 1;
  const profile = await fetchVisitorProfile(deps.api, request.visitorId, {
    visitId: request.visitId,
    visitsPage: page,
    visitsLimit: VISITS_PER_PAGE,
    endDate: localDate(tomorrow, 'UTC') ?? '2100-01-01',
  });
  if (profile.notFound) {
    const shown = clip(request.visitorId, 60);
    return {
      ok: false,
      message: {
        text: `No visitor ${shown} found.`,
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `:mag: No visitor \`${escapeMrkdwn(shown).replace(/`/g, 'ˋ')}\` found. Check the id (from a visitors or visits report).` } }],
      },
    };
  }
  if (profile.allFailed) {
    const first = Object.values(profile.security).find((p) => !p.ok);
    deps.log.warn({ visitorId: request.visitorId, kind: first && !first.ok ? first.error.kind : undefined }, 'visitor lookup failed');
    return { ok: false, message: problemMessage(first && !first.ok ? first.error.message : 'The analytics API did not answer.') };
  }
  for (const [check, part] of Object.entries(profile.security)) {
    if (!part.ok) deps.log.warn({ visitorId: request.visitorId, check, kind: part.error.kind }, 'security lookup failed; the card marks it');
  }
  const verdict = judge(securityFacts(profile), deps.verdict);
  return {
    ok: true,
    message: visitorCard({
      profile,
      verdict,
      visitsPage: page,
      visitsLimit: VISITS_PER_PAGE,
      visitId: request.visitId,
      timeZone,
      now,
      demo: deps.demo,
      showIp: request.showIp,
      canShare: request.canShare,
    }),
  };
}
