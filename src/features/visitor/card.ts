import type { Button, KnownBlock, SectionBlock, TableBlock } from '@slack/types';
import { formatDateTime, formatDateTimeIn, maskIp, MISSING, shortUrl } from '../../kernel/format.js';
import {
  fieldOf,
  type Flag,
  type Part,
  type SecurityAnswers,
  type SecurityCheck,
  type VisitorRecord,
  type VisitRecord,
} from '../../kernel/records.js';
import { z } from 'zod';
import { SafeId, USER_ID } from '../../kernel/text.js';
import type { Verdict } from '../../kernel/verdict.js';
import { escapeMrkdwn, fallbackText, mrkdwnCode } from '../../platform/slack/kit/escape.js';
import { capBlocks, cell, clip, fitTableText, LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import { inColour, verdictLevel } from '../../platform/slack/kit/colour.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';
import { encodeTrendRef, TREND_ACTION } from '../../kernel/trend.js';
import { encodeQuery, newQuery } from '../../kernel/query.js';
import { visitorFilter } from '../../kernel/filters.js';

/** Everything asked about one visitor: each part its answer, or why it is missing. */
export interface VisitorProfile {
  visitorId: string;
  security: { [K in SecurityCheck]: Part<SecurityAnswers[K]> };
  record: Part<VisitorRecord | undefined>;
  visits: Part<readonly VisitRecord[]>;
  /** Every lookup that could tell said there is no such visitor. */
  notFound: boolean;
  /** Every lookup failed for some other reason. */
  allFailed: boolean;
  /** A visit id was asked for that the API does not know for this visitor: the answers are the visitor's own. */
  unknownVisit?: string;
}

export const VISITOR_ACTIONS = {
  more: 'visitor.more',
  share: 'visitor.share',
  newer: 'visitor.newer',
} as const;

export interface VisitorCardView {
  profile: VisitorProfile;
  verdict: Verdict;
  /** Page of recent visits shown, and how many per page. */
  visitsPage: number;
  visitsLimit: number;
  visitId?: string;
  timeZone: string;
  now: Date;
  demo: boolean;
  /** Full IP addresses only in the ephemeral view; masked in anything posted to a channel. */
  showIp: boolean;
  /** Offer "Post to channel" (an ephemeral card in an allowed channel). */
  canShare: boolean;
  /** Who posted it for everyone. */
  sharedBy?: string;
}

const CELL_MAX = 80;

/** The value the "Recent visits" and "Post to channel" buttons carry: `v1|visitor|page|visit`. */
export function encodeCardRef(visitorId: string, page: number, visitId?: string): string {
  return ['v1', visitorId, String(page), visitId ?? ''].join('|');
}

export function decodeCardRef(value: unknown): { visitorId: string; page: number; visitId?: string } | null {
  const parsed = cardRef.safeParse(value);
  if (!parsed.success) return null;
  const [, visitorId, page, visitId] = parsed.data;
  return { visitorId, page, visitId: visitId || undefined };
}

const cardRef = z
  .string()
  .max(LIMITS.buttonValue)
  .transform((v) => v.split('|'))
  .pipe(
    z.tuple([
      z.literal('v1'),
      SafeId,
      z
        .string()
        .regex(/^\d{1,5}$/)
        .transform(Number)
        .pipe(z.number().min(1).max(10_000)),
      z.union([z.literal(''), SafeId]),
    ]),
  );

/** A flag in words: "yes", "no", "unknown"; an answer that is none of these is quoted as it came. */
function flagWords(f: Flag): string {
  const raw = f.raw.trim();
  if (raw === '') return 'no answer';
  if (f.value !== 'unknown' || raw.toLowerCase() === 'unknown') return f.value;
  return `unknown (the API said “${escapeMrkdwn(clip(raw, 60))}”)`;
}

function flagText(part: Part<unknown>, flag: (value: never) => Flag | undefined): string {
  if (!part.ok) return `_unavailable (${escapeMrkdwn(part.error.kind.replace(/_/g, ' '))})_`;
  const f = flag(part.value as never);
  return f ? flagWords(f) : MISSING;
}

function field(label: string, value: string) {
  return mrkdwn(`*${label}*\n${value}`, LIMITS.sectionFieldText);
}

function flagsSection(profile: VisitorProfile): SectionBlock {
  const { bot, scraping, vpn, extensions, adblock } = profile.security;
  const unavailable = (p: Part<unknown>) =>
    p.ok ? undefined : `_unavailable (${escapeMrkdwn(p.error.kind.replace(/_/g, ' '))})_`;
  const score = scraping.ok
    ? scraping.value.score === undefined
      ? MISSING
      : scraping.value.score.toFixed(2)
    : undefined;
  const type = scraping.ok ? escapeMrkdwn(clip(scraping.value.visitor_type ?? MISSING, 60)) : undefined;
  const extensionsText = extensions.ok
    ? extensions.value.scraper_extension_list.length === 0
      ? 'none'
      : escapeMrkdwn(clip(extensions.value.scraper_extension_list.join(', '), 300))
    : undefined;
  const adblockText = adblock.ok
    ? `${flagWords(adblock.value.adblock)}${adblock.value.adblock_extension ? ` (${escapeMrkdwn(clip(adblock.value.adblock_extension, 60))})` : ''}`
    : undefined;
  return {
    type: 'section',
    fields: [
      field(
        'Attacker',
        flagText(bot, (v: { is_attacker: Flag }) => v.is_attacker),
      ),
      field(
        'Threat',
        flagText(bot, (v: { is_threat: Flag }) => v.is_threat),
      ),
      field(
        'Abuser',
        flagText(bot, (v: { is_abuser: Flag }) => v.is_abuser),
      ),
      field(
        'Proxy',
        flagText(bot, (v: { is_proxy: Flag }) => v.is_proxy),
      ),
      field(
        'VPN',
        flagText(vpn, (v: { vpn: Flag }) => v.vpn),
      ),
      field('Scraping score', score ?? unavailable(scraping)!),
      field('Visitor type', type ?? unavailable(scraping)!),
      field('Scraper extensions', extensionsText ?? unavailable(extensions)!),
      field('Ad blocker', adblockText ?? unavailable(adblock)!),
    ],
  };
}

function reasonsSection(verdict: Verdict): SectionBlock {
  const lines = verdict.reasons.map((r) => `• ${escapeMrkdwn(r.text)} _(${r.severity})_`);
  if (lines.length === 0)
    lines.push(
      verdict.name === 'Human' ? '• nothing flagged' : '• nothing flagged, but not enough answers to say more',
    );
  for (const gap of verdict.gaps) lines.push(`• _${escapeMrkdwn(gap)}_`);
  return { type: 'section', text: mrkdwn(`*Why*\n${lines.join('\n')}`) };
}

function recordSection(view: VisitorCardView): SectionBlock {
  const { record } = view.profile;
  if (!record.ok) {
    return {
      type: 'section',
      text: mrkdwn(`*Visitor record:* _unavailable (${escapeMrkdwn(record.error.kind.replace(/_/g, ' '))})_`),
    };
  }
  const r = record.value;
  const when = (iso: string | undefined) =>
    iso ? escapeMrkdwn(formatDateTimeIn(iso, view.timeZone, view.now)) : MISSING;
  const company = r?.company?.name ? escapeMrkdwn(clip(r.company.name, 100)) : MISSING;
  return {
    type: 'section',
    fields: [
      field('First seen', when(r?.first_seen)),
      field('Last seen', when(r?.last_seen)),
      field('Company', company),
    ],
  };
}

function text(value: unknown): string {
  return typeof value === 'string' && value.trim() !== '' ? clip(value, CELL_MAX) : MISSING;
}

function visitsTable(view: VisitorCardView, visits: readonly VisitRecord[]): TableBlock {
  const header = [`Date (${view.timeZone})`, 'Page', 'Referrer', 'Where', 'Browser', 'Device', 'IP'];
  const rows = visits.slice(0, LIMITS.tableRows - 1).map((v) => {
    const where = [fieldOf(v, 'location.city'), fieldOf(v, 'location.country')]
      .filter((x) => typeof x === 'string' && x)
      .join(', ');
    const device = [fieldOf(v, 'device.type'), fieldOf(v, 'device.os.name') ?? fieldOf(v, 'device.os')]
      .filter((x) => typeof x === 'string' && x)
      .join(', ');
    const cells = [
      v.date ? formatDateTime(v.date, view.timeZone, view.now) : MISSING,
      clip(shortUrl(v.url), CELL_MAX),
      v.referrer ? clip(v.referrer, CELL_MAX) : 'direct',
      text(where),
      text(fieldOf(v, 'browser.name')),
      text(device),
      view.showIp ? text(v.ip) : maskIp(v.ip),
    ];
    return cells.map((t) => t || MISSING);
  });
  return {
    type: 'table',
    column_settings: [{ is_wrapped: false }, { is_wrapped: true }, { is_wrapped: true }],
    rows: fitTableText([header, ...rows]).map((r) => r.map((t) => cell(t))),
  };
}

/** The security card: the verdict, why, every flag in words, the record, recent visits. */
export function visitorCard(view: VisitorCardView): SlackMessage {
  const { profile, verdict } = view;
  const id = profile.visitorId;
  const severity = verdict.severity ? ` · ${verdict.severity} severity` : '';
  // The verdict once, in the header; then why (what a reader came for), then the flags it was judged from.
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(`${verdict.name}${severity}: visitor ${id}`, LIMITS.headerText) },
    ...(profile.unknownVisit
      ? [
          {
            type: 'section' as const,
            text: mrkdwn(
              `:warning: Visit ${mrkdwnCode(profile.unknownVisit)} is unknown for this visitor; what follows is about the visitor as a whole. Check the visit id (from a visits report).`,
            ),
          },
        ]
      : []),
    reasonsSection(verdict),
    flagsSection(profile),
    { type: 'divider' },
    recordSection(view),
  ];

  const { visits } = profile;
  let more = false;
  if (!visits.ok) {
    blocks.push({
      type: 'section',
      text: mrkdwn(`*Recent visits:* _unavailable (${escapeMrkdwn(visits.error.kind.replace(/_/g, ' '))})_`),
    });
  } else if (visits.value.length === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwn(view.visitsPage > 1 ? '*Recent visits:* no more.' : '*Recent visits:* none recorded.'),
    });
  } else {
    const first = (view.visitsPage - 1) * view.visitsLimit + 1;
    blocks.push({
      type: 'section',
      block_id: VISITS_CAPTION,
      text: mrkdwn(
        `*Recent visits* ${first}–${first + Math.min(visits.value.length, LIMITS.tableRows - 1) - 1}, newest first${view.showIp ? '' : ' (IP addresses masked)'}`,
      ),
    });
    blocks.push(visitsTable(view, visits.value));
    more = visits.value.length >= view.visitsLimit;
  }

  const stamp = formatDateTime(view.now.toISOString(), view.timeZone, view.now);
  blocks.push({
    type: 'context',
    elements: [
      mrkdwn(
        `Visitor ${mrkdwnCode(id)}${view.visitId && !profile.unknownVisit ? ` · visit ${mrkdwnCode(view.visitId)}` : ''} · looked up ${escapeMrkdwn(stamp)} (${escapeMrkdwn(view.timeZone)})${view.demo ? ' · _demo data_' : ''}${view.sharedBy && USER_ID.test(view.sharedBy) ? ` · shared by <@${view.sharedBy}>` : ''}`,
      ),
    ],
  });

  const buttons: Button[] = [];
  if (view.visitsPage > 1) {
    buttons.push({
      type: 'button',
      action_id: VISITOR_ACTIONS.newer,
      text: plainText('◀ Newer visits', LIMITS.buttonText),
      value: clip(encodeCardRef(id, view.visitsPage - 1, view.visitId), LIMITS.buttonValue),
    });
  }
  if (more) {
    buttons.push({
      type: 'button',
      action_id: VISITOR_ACTIONS.more,
      text: plainText('Recent visits ▶', LIMITS.buttonText),
      value: clip(encodeCardRef(id, view.visitsPage + 1, view.visitId), LIMITS.buttonValue),
    });
  }
  if (visits.ok && visits.value.length > 0) {
    const query = { ...newQuery('visits', 'last30d'), filters: visitorFilter(id) };
    buttons.push({
      type: 'button',
      action_id: TREND_ACTION,
      text: plainText('Trend', LIMITS.buttonText),
      value: encodeTrendRef('visits', encodeQuery(query), encodeCardRef(id, view.visitsPage, view.visitId)),
    });
  }
  if (view.canShare) {
    buttons.push({
      type: 'button',
      action_id: VISITOR_ACTIONS.share,
      style: 'primary',
      text: plainText('Post to channel', LIMITS.buttonText),
      value: clip(encodeCardRef(id, 1, view.visitId), LIMITS.buttonValue),
    });
  }
  if (buttons.length > 0) blocks.push({ type: 'actions', elements: buttons });

  const reasons = verdict.reasons.map((r) => r.text).join('; ');
  return inColour(
    {
      text: fallbackText(`${verdict.name}${severity}: visitor ${id}${reasons ? ` (${reasons})` : ''}`),
      blocks: capBlocks(blocks),
    },
    verdictLevel(verdict.name),
    [VISITS_CAPTION],
  );
}

const VISITS_CAPTION = 'visits-caption';
