import type { Button, KnownBlock } from '@slack/types';
import type { Column, ReportDef } from '../../kernel/catalog.js';
import type { FilterGroup } from '../../kernel/filters.js';
import { apiDaysWords, type DateRange, type Zones } from '../../kernel/dates.js';
import { formatCount, formatDelta, formatDuration, MISSING, counted, nounFor } from '../../kernel/format.js';
import { escapeMrkdwn, fallbackText, mrkdwnCode } from '../../platform/slack/kit/escape.js';
import { capBlocks, clip, LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import { describeFilters } from '../../platform/slack/kit/filter-words.js';
import { trendChart, trendFigures, type ChartBlock } from '../../platform/slack/kit/charts.js';
import { colourBar } from '../../platform/slack/kit/colour.js';
import { infoMessage, type MessageBlock, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { Trend } from '../../kernel/trend.js';
import { moverWords, type Entry, type Mover } from '../../kernel/movers.js';

export interface DigestLine {
  /** As the report shows it (a page by its path, a time in the digest's zone). */
  name: string;
  /** Undefined for reports without counts (visitors, visits). */
  value?: number;
  /** The previous period's value: 0 when it had none ("new"), undefined when unknown (no change shown). */
  previous?: number;
  /** Average duration, shown beside the count where the report has one. */
  duration?: number;
}

export interface DigestSection {
  def: ReportDef;
  /** Undefined when the report failed to load; `error` says why. */
  lines?: DigestLine[];
  error?: string;
  /**
   * For a report with counts: its entries in both periods, whole, for the top movers; 'cut'
   * when a list reached the depth fetched and may go on (the report is not compared).
   */
  compared?: { current: Entry[]; previous: Entry[] } | 'cut';
}

/** The entries that changed most against the previous period, across the digest's reports. */
export interface DigestMovers {
  list: Mover[];
  /** How many reports were compared whole. */
  compared: number;
  /** Titles of the reports too long to compare whole: a list of `depth` rows may go on. */
  cut: string[];
  depth: number;
}

export interface DigestTotals {
  visits: number;
  unique: number;
  previousVisits?: number;
  previousUnique?: number;
}

export interface DigestView {
  id: number;
  title: string;
  period: DateRange;
  previous: DateRange;
  /** The reader's zone: the period was resolved in it, visits' times and a day's hours are shown in it. */
  timeZone: string;
  /** The zone the API counts its days in: the totals', rows' and days' figures are its days. */
  apiZone: string;
  filters: FilterGroup[];
  totals?: DigestTotals;
  totalsError?: string;
  sections: DigestSection[];
  movers?: DigestMovers;
  /** One line on security for the period, when the alerts know something. */
  security?: string;
  /** Visits over the period against the previous one, for the chart; absent when it could not be built. */
  trend?: Trend;
  demo: boolean;
  preview: boolean;
}

const NAME_MAX = 60;

/** The column a digest names a report's rows by: what a row filters on, else its first column. */
export function nameColumn(def: ReportDef): Column {
  const field = def.rowFilter?.rowField ?? def.columns[0]!.field;
  return def.columns.find((c) => c.field === field) ?? { field, label: field, format: 'text' };
}

function line(l: DigestLine, i: number): string {
  const name = escapeMrkdwn(clip(l.name || MISSING, NAME_MAX));
  const time = l.duration !== undefined ? ` · ${formatDuration(l.duration)}` : '';
  if (l.value === undefined) return `${i + 1}. ${name}${time}`;
  const change = l.previous === undefined ? '' : ` ${formatDelta(l.value, l.previous)}`;
  return `${i + 1}. ${name} · *${formatCount(l.value)}* ${nounFor(l.value, 'visit')}${change}${time}`;
}

function section(s: DigestSection): KnownBlock {
  if (!s.lines)
    return {
      type: 'section',
      text: mrkdwn(`*${s.def.title}*\n:warning: Could not load: ${escapeMrkdwn(s.error ?? 'unknown error')}`),
    };
  const body = s.lines.length === 0 ? '_No data in this period._' : s.lines.map((l, i) => line(l, i)).join('\n');
  return { type: 'section', text: mrkdwn(`*${s.def.title}*\n${body}`) };
}

function totalsSection(view: DigestView): KnownBlock {
  if (!view.totals)
    return {
      type: 'section',
      text: mrkdwn(`:warning: Totals could not be loaded: ${escapeMrkdwn(view.totalsError ?? 'unknown error')}`),
    };
  const t = view.totals;
  return {
    type: 'section',
    fields: [
      mrkdwn(`*Visits*\n${formatCount(t.visits)}  ${formatDelta(t.visits, t.previousVisits)}`, LIMITS.sectionFieldText),
      mrkdwn(
        `*Unique visitors*\n${formatCount(t.unique)}  ${formatDelta(t.unique, t.previousUnique)}`,
        LIMITS.sectionFieldText,
      ),
    ],
  };
}

function moverText(m: Mover): string {
  return escapeMrkdwn(moverWords({ ...m, label: m.label || MISSING }, NAME_MAX));
}

/** "Top movers against Nov 6 – Nov 12, 2026: source x.com +212 (new), page /pricing +140, country Germany +96". */
function moversSection(view: DigestView, moved: DigestMovers): KnownBlock {
  const names =
    moved.compared === 0
      ? 'none compared'
      : moved.list.length > 0
        ? moved.list.map(moverText).join(', ')
        : 'no entry to name: no report changed, or its rises and falls cancel each other out';
  const cut =
    moved.cut.length > 0
      ? `\n_Not compared (${formatCount(moved.depth)} entries or more in a period): ${escapeMrkdwn(moved.cut.join(', '))}._`
      : '';
  return {
    type: 'section',
    text: mrkdwn(`*Top movers* against ${escapeMrkdwn(view.previous.label)}: ${names}${cut}`),
  };
}

/** One chart (Slack allows two a message), with its figures in words beneath. */
function trendBlocks(trend: Trend, zones: Zones): MessageBlock[] {
  const chart: ChartBlock = trendChart('visits', trend, zones);
  return [chart, { type: 'context', elements: [mrkdwn(trendFigures('visits', trend, zones))] }];
}

/** What could not be loaded, once more beside a warning-coloured bar (each part also says so in place). */
function failures(view: DigestView): SlackMessage['attachments'] {
  const failed = [...(view.totals ? [] : ['totals']), ...view.sections.filter((s) => !s.lines).map((s) => s.def.title)];
  if (failed.length === 0) return undefined;
  const text = `:warning: *Incomplete:* ${escapeMrkdwn(failed.join(', '))} could not be loaded; the rest of this digest is complete.`;
  return [colourBar('warning', [{ type: 'section', text: mrkdwn(text) }])];
}

/** A digest: headline totals with change, each report's top rows with their change, the period in words. */
export function digestMessage(view: DigestView): SlackMessage {
  const filters = describeFilters(view.filters);
  const context = [
    `${escapeMrkdwn(view.period.label)} · change against ${escapeMrkdwn(view.previous.label)} · ${escapeMrkdwn(apiDaysWords(view.apiZone))}`,
    // Visits are listed by their times, which are the reader's.
    ...(view.sections.some((s) => nameColumn(s.def).format === 'datetime')
      ? [`times in ${escapeMrkdwn(view.timeZone)}`]
      : []),
    ...(filters ? [`filters: ${filters}`] : []),
    `digest #${view.id}`,
    ...(view.demo ? ['_demo data_'] : []),
    ...(view.preview ? ['_preview: only you see this_'] : []),
  ].join(' · ');
  const blocks: MessageBlock[] = [
    { type: 'header', text: plainText(clip(view.title, LIMITS.headerText), LIMITS.headerText) },
    { type: 'context', elements: [mrkdwn(context)] },
    totalsSection(view),
    ...(view.trend ? trendBlocks(view.trend, { timeZone: view.timeZone, apiZone: view.apiZone }) : []),
    ...(view.movers ? [moversSection(view, view.movers)] : []),
    { type: 'divider' },
    ...view.sections.map(section),
  ];
  if (view.security) blocks.push({ type: 'context', elements: [mrkdwn(`:shield: ${escapeMrkdwn(view.security)}`)] });
  const total = view.totals
    ? `${formatCount(view.totals.visits)} visits ${formatDelta(view.totals.visits, view.totals.previousVisits)}`
    : 'totals unavailable';
  const attachments = failures(view);
  return {
    text: fallbackText(`${view.title}: ${total} (${view.period.label})`),
    blocks: capBlocks(blocks),
    ...(attachments ? { attachments } : {}),
  };
}

// --- The list --------------------------------------------------------------

export const DIGEST_ACTIONS = {
  preview: 'digest.preview',
  pause: 'digest.pause',
  resume: 'digest.resume',
  edit: 'digest.edit',
  remove: 'digest.remove',
} as const;

export interface DigestListItem {
  id: number;
  channelId: string;
  ownerId: string;
  reports: string[];
  schedule: string;
  nextRun?: string;
  lastRun?: string;
  paused: boolean;
  /** Why Slack refuses its channel, until fixed. */
  attention?: string;
  /** May this person change it (an admin, or its owner)? */
  canManage: boolean;
}

function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: plainText(text, LIMITS.buttonText),
    action_id: actionId,
    value,
    ...(style ? { style } : {}),
  };
}

/** Each digest with its schedule in words, next run, last result, and buttons (Remove asks first). */
export function digestList(items: DigestListItem[], scope: string): { text: string; blocks: KnownBlock[] } {
  if (items.length === 0) {
    return {
      text: fallbackText(`No digests ${scope}.`),
      blocks: [
        { type: 'section', text: mrkdwn(`No digests ${escapeMrkdwn(scope)}. Add one with \`/traffic digest add\`.`) },
      ],
    };
  }
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText(`Digests ${scope}`, LIMITS.headerText) }];
  // Two blocks a digest, within 50 in all: the rest are counted.
  const shown = items.slice(0, 23);
  for (const d of shown) {
    const state = d.paused ? ':double_vertical_bar: paused' : `next ${escapeMrkdwn(d.nextRun ?? 'unknown')}`;
    blocks.push({
      type: 'section',
      text: mrkdwn(
        `*#${d.id}* in <#${d.channelId}> · ${escapeMrkdwn(d.reports.join(', '))}\n` +
          `${escapeMrkdwn(d.schedule)} · ${state} · last: ${escapeMrkdwn(d.lastRun ?? 'never run')} · owner <@${d.ownerId}>` +
          (d.attention
            ? `\n:warning: Needs attention: Slack refuses its channel (${mrkdwnCode(d.attention)}). Invite Lookout there, or move it with Edit.`
            : ''),
      ),
    });
    const value = String(d.id);
    const buttons: Button[] = [button('Preview now', DIGEST_ACTIONS.preview, value)];
    if (d.canManage) {
      buttons.push(
        d.paused
          ? button('Resume', DIGEST_ACTIONS.resume, value, 'primary')
          : button('Pause', DIGEST_ACTIONS.pause, value),
      );
      buttons.push(button('Edit', DIGEST_ACTIONS.edit, value));
      buttons.push({
        ...button('Remove', DIGEST_ACTIONS.remove, value, 'danger'),
        confirm: {
          title: plainText('Remove this digest?', LIMITS.confirmTitle),
          text: plainText(`Digest #${d.id} will stop and be deleted. This cannot be undone.`, LIMITS.confirmText),
          confirm: plainText('Remove', LIMITS.confirmButton),
          deny: plainText('Keep it', LIMITS.confirmButton),
          style: 'danger',
        },
      });
    }
    blocks.push({ type: 'actions', block_id: `digest_${d.id}`, elements: buttons });
  }
  if (items.length > shown.length) {
    blocks.push({
      type: 'context',
      elements: [
        mrkdwn(`…and ${items.length - shown.length} more. \`/traffic digest list\` in a channel shows that channel's.`),
      ],
    });
  }
  return { text: fallbackText(`${counted(items.length, 'digest')} ${scope}`), blocks: capBlocks(blocks) };
}

/** A digest just created or saved, and when it runs next (the scheduler's slot, in words with its zone). */
export interface DigestSaved {
  id: number;
  verb: 'created' | 'saved';
  channelId: string;
  /** Said in the channel it posts in ("in this channel"), else it names the channel. */
  inChannel: boolean;
  /** Its schedule in words, with its zone (scheduleInWords). */
  schedule: string;
  /** Its next run, "Dec 2, 09:00 (Europe/Berlin)", and whether that slot is due already (an edit's catch-up); absent while paused. */
  next?: { at: string; due: boolean };
}

/** "Digest #3 created: it posts in this channel Mondays at 09:00 (Europe/Berlin), first on Dec 2, 09:00 (Europe/Berlin)." */
export function digestSavedMessage(d: DigestSaved): SlackMessage {
  const when = !d.next
    ? `; it is paused: \`/traffic digest resume ${d.id}\` starts it again`
    : d.next.due
      ? `; its ${d.next.at} run is due and posts now`
      : `, ${d.verb === 'created' ? 'first' : 'next'} on ${d.next.at}`;
  return infoMessage([
    `Digest #${d.id} ${d.verb}: it posts in `,
    ...(d.inChannel ? ['this channel'] : [{ channel: d.channelId }]),
    ` ${d.schedule}${when}. /traffic digest list${d.inChannel ? '' : ' all'} shows it.`,
  ]);
}
