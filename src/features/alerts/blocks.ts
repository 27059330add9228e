import type { Button, KnownBlock, TableBlock } from '@slack/types';
import {
  formatCount,
  formatDateTime,
  formatDateTimeIn,
  maskIp,
  MISSING,
  shortUrl,
  counted,
} from '../../kernel/format.js';
import { fieldOf } from '../../kernel/records.js';
import type { Severity, VerdictName } from '../../kernel/verdict.js';
import { escapeMrkdwn, fallbackText } from '../../platform/slack/kit/escape.js';
import { capBlocks, cell, clip, fitTableText, LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import { inColour, severityLevel } from '../../platform/slack/kit/colour.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';

export const ALERT_ACTIONS = {
  ack: 'alert.ack',
  mute24h: 'alert.mute.24h',
  mute7d: 'alert.mute.7d',
  unmute: 'alert.unmute',
  details: 'alert.details',
} as const;

/** What an alert record holds (the store's Alert, structurally). */
export interface AlertRecord {
  visitorId: string;
  verdict: string;
  severity: Severity;
  reasons: readonly string[];
  /** The visit that raised it (an open record from the API). */
  visit: Record<string, unknown>;
  firstSeen?: Date;
  lastSeen: Date;
  sightings: number;
  acknowledgedBy?: string;
  acknowledgedAt?: Date;
}

export interface AlertView extends Omit<AlertRecord, 'verdict' | 'acknowledgedBy' | 'acknowledgedAt'> {
  verdict: VerdictName;
  acknowledged?: { by: string; at: Date };
  mutedUntil?: Date | null;
  /** Re-announced because the severity rose. */
  raised?: boolean;
  timeZone: string;
  now: Date;
}

export function alertViewOf(
  alert: AlertRecord,
  context: { timeZone: string; now: Date; mutedUntil?: Date | null; raised?: boolean },
): AlertView {
  return {
    visitorId: alert.visitorId,
    verdict: alert.verdict as VerdictName,
    severity: alert.severity,
    reasons: alert.reasons,
    visit: alert.visit,
    firstSeen: alert.firstSeen,
    lastSeen: alert.lastSeen,
    sightings: alert.sightings,
    acknowledged:
      alert.acknowledgedBy && alert.acknowledgedAt ? { by: alert.acknowledgedBy, at: alert.acknowledgedAt } : undefined,
    ...context,
  };
}

const SEVERITY_EMOJI: Record<Severity, string> = {
  high: ':rotating_light:',
  medium: ':warning:',
  low: ':large_yellow_circle:',
};
/** The most severe first. */
const SEVERITY_ORDER: readonly Severity[] = ['high', 'medium', 'low'];

function when(date: Date | undefined, view: Pick<AlertView, 'timeZone' | 'now'>): string {
  return date ? formatDateTimeIn(date.toISOString(), view.timeZone, view.now) : MISSING;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** "Visit: Nov 21, 14:05 · /checkout · from google.com · Berlin, Germany · Firefox · desktop · 203.0.113.x" */
export function visitLine(visit: Record<string, unknown>, view: Pick<AlertView, 'timeZone' | 'now'>): string {
  const date = str(visit.date);
  const where = [fieldOf(visit, 'location.city'), fieldOf(visit, 'location.country')]
    .map(str)
    .filter(Boolean)
    .join(', ');
  const parts = [
    date ? formatDateTimeIn(date, view.timeZone, view.now) : undefined,
    clip(shortUrl(str(visit.url)), 100),
    str(visit.referrer) ? `from ${clip(str(visit.referrer)!, 80)}` : 'direct',
    where || undefined,
    str(fieldOf(visit, 'browser.name')),
    str(fieldOf(visit, 'device.type')),
    maskIp(str(visit.ip)),
  ].filter((p): p is string => p !== undefined);
  return escapeMrkdwn(parts.join(' · '));
}

/** One alert: verdict and severity (once, in the header), reasons, the triggering visit, first/last seen, and buttons that act. */
export function alertMessage(view: AlertView): SlackMessage {
  const headline = `${view.verdict} · ${view.severity} severity: visitor ${view.visitorId}`;
  const status: string[] = [];
  if (view.acknowledged)
    status.push(
      `:white_check_mark: Acknowledged by <@${view.acknowledged.by}> at ${escapeMrkdwn(when(view.acknowledged.at, view))}`,
    );
  if (view.mutedUntil !== undefined) {
    status.push(
      view.mutedUntil === null
        ? ':mute: Muted for good'
        : `:mute: Muted until ${escapeMrkdwn(when(view.mutedUntil, view))}`,
    );
  }
  const reasons = view.reasons.map((r) => `• ${escapeMrkdwn(clip(r, 200))}`).join('\n') || '• (no reason recorded)';

  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(`${view.raised ? 'Severity rose: ' : ''}${headline}`, LIMITS.headerText) },
    // The header names the verdict, the severity and the visitor; the colour bar shows the severity.
    { type: 'section', text: mrkdwn(`*Why*\n${reasons}`) },
    {
      type: 'section',
      fields: [
        mrkdwn(`*Visit*\n${visitLine(view.visit, view)}`, LIMITS.sectionFieldText),
        mrkdwn(
          `*Seen*\n${counted(view.sightings, 'visit')} · first ${escapeMrkdwn(when(view.firstSeen, view))} · last ${escapeMrkdwn(when(view.lastSeen, view))}`,
          LIMITS.sectionFieldText,
        ),
      ],
    },
  ];
  if (status.length > 0) blocks.push({ type: 'context', elements: [mrkdwn(status.join(' · '))] });

  const value = clip(view.visitorId, LIMITS.buttonValue);
  const buttons: Button[] = [];
  if (!view.acknowledged)
    buttons.push({
      type: 'button',
      action_id: ALERT_ACTIONS.ack,
      text: plainText('Acknowledge', LIMITS.buttonText),
      style: 'primary',
      value,
    });
  if (view.mutedUntil === undefined) {
    buttons.push({
      type: 'button',
      action_id: ALERT_ACTIONS.mute24h,
      text: plainText('Mute 24h', LIMITS.buttonText),
      value,
    });
    buttons.push({
      type: 'button',
      action_id: ALERT_ACTIONS.mute7d,
      text: plainText('Mute 7d', LIMITS.buttonText),
      value,
    });
  } else {
    buttons.push({
      type: 'button',
      action_id: ALERT_ACTIONS.unmute,
      text: plainText('Unmute', LIMITS.buttonText),
      value,
    });
  }
  buttons.push({
    type: 'button',
    action_id: ALERT_ACTIONS.details,
    text: plainText('Details', LIMITS.buttonText),
    value,
  });
  blocks.push({ type: 'actions', block_id: 'alert', elements: buttons });

  // Acknowledged: grey, as it needs no one's attention any more.
  return inColour(
    { text: fallbackText(`${headline}: ${view.reasons.join('; ')}`), blocks: capBlocks(blocks) },
    view.acknowledged ? 'neutral' : severityLevel(view.severity),
  );
}

/** The thread reply for later visits by an alerted visitor (named: a group's thread holds several). */
export function sightingsReply(
  visitorId: string,
  count: number,
  lastVisit: Record<string, unknown>,
  view: Pick<AlertView, 'timeZone' | 'now'>,
): { text: string; blocks: KnownBlock[] } {
  const page = clip(shortUrl(str(lastVisit.url)), 100);
  const text = `Seen again: visitor ${visitorId}, ${counted(count, 'more visit')}, last on ${page}`;
  return {
    text: fallbackText(text),
    blocks: [{ type: 'section', text: mrkdwn(`:eyes: ${escapeMrkdwn(text)}\n${visitLine(lastVisit, view)}`) }],
  };
}

export interface SummaryRow {
  visitorId: string;
  severity: Severity;
  verdict: VerdictName;
  reasons: readonly string[];
}

export interface GroupView {
  channelId: string;
  /** When its first alert was decided. */
  since: Date;
  /** New flagged visitors decided before this join it; unset: nothing joins it (a burst of one scan). */
  openUntil?: Date;
  /** Its alerts as they stand. */
  members: readonly SummaryRow[];
  timeZone: string;
  now: Date;
}

const GROUP_SENTENCE = 'group-summary';

/** What a group's visitors are called, by verdict: "2 threats, 1 suspicious visitor". */
const VERDICT_NOUNS: Record<VerdictName, string> = {
  Threat: 'threat',
  Suspicious: 'suspicious visitor',
  Human: 'human',
  Unknown: 'unknown visitor',
};

/**
 * A group's message: "3 flagged visitors in #security since Nov 24, 14:02 (UTC): 2 threats,
 * 1 suspicious visitor", the severities, a table of the visitors (the most severe first),
 * and where their alerts are (a reply each in its thread). Its bar is the worst severity's colour.
 */
export function groupMessage(view: GroupView): SlackMessage {
  const rows = [...view.members].sort(
    (a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity),
  );
  const worst = rows[0]?.severity ?? 'low';
  const shown = rows.slice(0, LIMITS.tableRows - 1);
  const table: TableBlock = {
    type: 'table',
    column_settings: [{ is_wrapped: false }, { is_wrapped: false }, { is_wrapped: true }],
    rows: fitTableText([
      ['Visitor', 'Severity', 'Reasons'],
      ...shown.map((r) => [
        clip(r.visitorId, 80),
        `${r.verdict} · ${r.severity}`,
        clip(r.reasons.join('; ') || MISSING, 300),
      ]),
    ]).map((r) => r.map((t) => cell(t))),
  };
  const tally = <K extends string>(key: (r: SummaryRow) => K, order: readonly K[]) =>
    order.map((k) => [k, rows.filter((r) => key(r) === k).length] as const).filter(([, n]) => n > 0);
  const verdicts = tally((r) => r.verdict, ['Threat', 'Suspicious', 'Unknown', 'Human'] as const)
    .map(([v, n]) => counted(n, VERDICT_NOUNS[v]))
    .join(', ');
  const severities = tally((r) => r.severity, SEVERITY_ORDER)
    .map(([s, n]) => `${formatCount(n)} ${s}`)
    .join(' · ');
  const count = counted(rows.length, 'flagged visitor');
  const since = formatDateTimeIn(view.since.toISOString(), view.timeZone, view.now);
  const where = view.openUntil
    ? `one alert each in the thread, with its buttons · flagged visitors until ${formatDateTimeIn(view.openUntil.toISOString(), view.timeZone, view.now)} join this message; later ones start a new one`
    : 'one alert each in the thread, with its buttons';
  const blocks: KnownBlock[] = [
    {
      type: 'header',
      text: plainText(
        `${SEVERITY_EMOJI[worst]} ${count} since ${formatDateTime(view.since.toISOString(), view.timeZone, view.now)}`,
        LIMITS.headerText,
      ),
    },
    {
      type: 'section',
      block_id: GROUP_SENTENCE,
      text: mrkdwn(
        `*${escapeMrkdwn(count)}* in <#${view.channelId}> since ${escapeMrkdwn(since)}: ${escapeMrkdwn(verdicts)}`,
      ),
    },
    { type: 'context', elements: [mrkdwn(`${escapeMrkdwn(severities)} · ${escapeMrkdwn(where)}`)] },
    table,
  ];
  if (rows.length > shown.length)
    blocks.push({
      type: 'context',
      elements: [mrkdwn(`…and ${formatCount(rows.length - shown.length)} more in the thread.`)],
    });
  const text = `${fallbackText(`${count} in`)} <#${view.channelId}> ${fallbackText(`since ${since}: ${verdicts}`)}`;
  // The sentence stays above the table (which an attachment may not hold); the severities go in the bar.
  return inColour({ text, blocks }, severityLevel(worst), [GROUP_SENTENCE]);
}
