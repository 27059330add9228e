import type { Button, KnownBlock } from '@slack/types';
import { REPORTS } from '../../kernel/catalog.js';
import { formatCount, formatDateTimeIn, counted } from '../../kernel/format.js';
import { metricLabel, type Trend } from '../../kernel/trend.js';
import { localDate } from '../../kernel/dates.js';
import { USER_ID } from '../../kernel/text.js';
import { inColour } from '../../platform/slack/kit/colour.js';
import { chartLabel, trendChart, type ChartBlock } from '../../platform/slack/kit/charts.js';
import { escapeMrkdwn, fallbackText } from '../../platform/slack/kit/escape.js';
import { describeFilters } from '../../platform/slack/kit/filter-words.js';
import { filtersToText } from '../../kernel/filters.js';
import { capBlocks, clip, LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import type { MessageBlock, SlackMessage } from '../../platform/slack/kit/messages.js';
import type { Explanation } from './explanation-text.js';
import { describeRule, type WatchRule, type WatchState } from './plan.js';

export const WATCH_ACTIONS = {
  ack: 'watch.ack',
  mute24h: 'watch.mute.24h',
  unmute: 'watch.unmute',
  details: 'watch.details',
  pause: 'watch.pause',
  resume: 'watch.resume',
  remove: 'watch.remove',
  flagged: 'watch.flagged',
  flaggedCard: 'watch.flagged.card',
  ignoreAutomated: 'watch.ignore-automated',
} as const;

/** What a watch's alert shows: the store's Watch, structurally. */
export interface WatchAlertView {
  id: number;
  rule: WatchRule;
  state: WatchState;
  /** The latest observation in words. */
  text: string;
  breachSince?: Date;
  acknowledgedBy?: string;
  acknowledgedAt?: Date;
  mutedUntil?: Date;
  /** The watch's zone: its hours, and the times the alert shows. */
  timeZone: string;
  /** The zone the API counts its days in: a day's figures are its days. */
  apiZone: string;
  now: Date;
  demo: boolean;
  /** A small chart of the periods up to the one judged, where it could be built. */
  trend?: Trend;
  /** For a rule judged against the usual: each period up to the one judged, its figure and its usual (in place of `trend`). */
  usual?: UsualPoint[];
  /** The period the figure (`text`) is of: an explanation is shown only beside its own period's figure. */
  lastPeriod?: string;
  /** Why the figure moved (explainer.ts), once told. */
  explanation?: Pick<Explanation, 'period' | 'text' | 'flagged' | 'verdict'>;
}

/** A period on an alert's chart: its label ("14:00", "Nov 27"), the watch's figure, and the usual it was judged against. */
export interface UsualPoint {
  label: string;
  value: number;
  usual: number;
}

/** The figure beside its usual, period by period up to the one judged: the alert's figures are the last point's. */
export function usualChart(
  rule: WatchRule,
  points: readonly UsualPoint[],
  timeZone: string,
  apiZone: string,
): ChartBlock {
  const metric = metricLabel(rule.metric === 'unique' ? 'unique' : 'visits');
  const hourly = rule.every === 'hour';
  const categories = points.map((p) => chartLabel(p.label));
  const series = (name: string, pick: (p: UsualPoint) => number) => ({
    name,
    data: points.map((p, i) => ({ label: categories[i]!, value: Math.round(pick(p)) })),
  });
  return {
    type: 'data_visualization',
    title: clip(
      `${metric} per ${hourly ? `hour (${timeZone})` : `day (${apiZone}, the API's days)`}`,
      LIMITS.chartTitle,
    ),
    chart: {
      type: 'line',
      series: [series(metric.toLowerCase(), (p) => p.value), series('the usual', (p) => p.usual)],
      axis_config: { categories, x_label: hourly ? 'hour' : 'day', y_label: metric },
    },
  };
}

/** A watch of all visits that "Ignore automated spikes" can make count visits by people only. */
export function mayIgnoreAutomated(rule: WatchRule): boolean {
  return (
    rule.metric === 'visits' &&
    rule.who === undefined &&
    rule.report === 'visits' &&
    rule.filters.length === 0 &&
    (rule.condition.kind === 'spike' ||
      rule.condition.kind === 'above' ||
      (rule.condition.kind === 'change' && rule.condition.direction === 'rises'))
  );
}

/** The watch's whole rule, its filters included: "Pages: visits spike: … , where page~/checkout". */
export function watchTitle(rule: WatchRule): string {
  const what = rule.report === 'visits' ? '' : `${REPORTS[rule.report].title}: `;
  const filters = filtersToText(rule.filters);
  return `${what}${describeRule(rule)}${filters ? `, where ${filters}` : ''}`;
}

function when(date: Date, view: { timeZone: string; now: Date }): string {
  return formatDateTimeIn(date.toISOString(), view.timeZone, view.now);
}

/** The alert, as first posted and as updated in place: breaching (coloured by it) or back to normal. */
export function watchAlertMessage(alert: WatchAlertView): SlackMessage {
  const { explanation, ...rest } = alert;
  // A later period's figure (an ok or unknown evaluation since) is never shown beside an earlier one's explanation.
  const view: WatchAlertView = {
    ...rest,
    ...(explanation && explanation.period === alert.lastPeriod ? { explanation } : {}),
  };
  const breaching = view.state === 'breaching';
  const title = watchTitle(view.rule);
  const filters = describeFilters(view.rule.filters);
  const status: string[] = [];
  if (view.acknowledgedBy && USER_ID.test(view.acknowledgedBy) && view.acknowledgedAt)
    status.push(
      `:white_check_mark: Acknowledged by <@${view.acknowledgedBy}> at ${escapeMrkdwn(when(view.acknowledgedAt, view))}`,
    );
  if (view.mutedUntil && view.mutedUntil > view.now)
    status.push(
      view.mutedUntil.getUTCFullYear() >= 9999
        ? ':mute: Muted for good'
        : `:mute: Muted until ${escapeMrkdwn(when(view.mutedUntil, view))}`,
    );
  const context = [
    `watch #${view.id}`,
    ...(filters ? [`filters: ${filters}`] : []),
    `times in ${escapeMrkdwn(view.timeZone)}`,
  ];
  if (view.breachSince) context.push(`since ${escapeMrkdwn(when(view.breachSince, view))}`);
  if (view.demo) context.push('_demo data_');

  const blocks: MessageBlock[] = [
    { type: 'header', text: plainText(`${breaching ? 'Watch' : 'Back to normal'}: ${title}`, LIMITS.headerText) },
    {
      type: 'section',
      text: mrkdwn(`${breaching ? ':rotating_light:' : ':white_check_mark:'} ${escapeMrkdwn(view.text)}`),
    },
    ...(view.explanation ? [{ type: 'section' as const, text: mrkdwn(view.explanation.text) }] : []),
    { type: 'context', elements: [mrkdwn(context.join(' · '))] },
  ];
  if (view.usual && view.usual.length > 0) blocks.push(usualChart(view.rule, view.usual, view.timeZone, view.apiZone));
  else if (view.trend)
    blocks.push(
      trendChart(view.rule.metric === 'unique' ? 'unique' : 'visits', view.trend, {
        timeZone: view.timeZone,
        apiZone: view.apiZone,
      }),
    );
  if (status.length > 0) blocks.push({ type: 'context', elements: [mrkdwn(status.join(' · '))] });
  const value = String(view.id);
  const buttons: Button[] = [];
  if (breaching && !view.acknowledgedBy)
    buttons.push({
      type: 'button',
      action_id: WATCH_ACTIONS.ack,
      text: plainText('Acknowledge', LIMITS.buttonText),
      style: 'primary',
      value,
    });
  if (view.mutedUntil && view.mutedUntil > view.now)
    buttons.push({
      type: 'button',
      action_id: WATCH_ACTIONS.unmute,
      text: plainText('Unmute', LIMITS.buttonText),
      value,
    });
  else
    buttons.push({
      type: 'button',
      action_id: WATCH_ACTIONS.mute24h,
      text: plainText('Mute 24h', LIMITS.buttonText),
      value,
    });
  buttons.push({
    type: 'button',
    action_id: WATCH_ACTIONS.details,
    text: plainText('Details', LIMITS.buttonText),
    value,
  });
  if (view.explanation && view.explanation.flagged.length > 0)
    buttons.push({
      type: 'button',
      action_id: WATCH_ACTIONS.flagged,
      text: plainText('Flagged visitors', LIMITS.buttonText),
      value,
    });
  if (
    breaching &&
    (view.explanation?.verdict === 'mostly automated' || view.explanation?.verdict === 'mixed') &&
    mayIgnoreAutomated(view.rule)
  )
    buttons.push({
      type: 'button',
      action_id: WATCH_ACTIONS.ignoreAutomated,
      text: plainText('Ignore automated spikes', LIMITS.buttonText),
      value,
      confirm: {
        title: plainText('Count people only?', LIMITS.buttonText),
        text: mrkdwn(
          'This watch will count visits by people only: visits by visitors the threat scan flagged (threats, scrapers, VPN abusers) no longer count, so a wave of them alerts no more.',
        ),
        confirm: plainText('Count people only', LIMITS.buttonText),
        deny: plainText('Keep all visits', LIMITS.buttonText),
      },
    });
  blocks.push({ type: 'actions', elements: buttons });
  const level = !breaching ? 'success' : view.acknowledgedBy ? 'neutral' : 'warning';
  return inColour(
    {
      text: fallbackText(`${breaching ? 'Watch' : 'Back to normal'}: ${title}: ${view.text}`),
      blocks: capBlocks(blocks),
    },
    level,
  );
}

/** A reply in the alert's thread: still breaching, or back to normal. */
export function watchReply(kind: 'update' | 'recover', text: string): SlackMessage {
  const line = kind === 'recover' ? `:white_check_mark: Back to normal: ${text}` : `Still on: ${text}`;
  return { text: fallbackText(line), blocks: [{ type: 'section', text: mrkdwn(escapeMrkdwn(line)) }] };
}

export interface WatchListItem {
  id: number;
  rule: WatchRule;
  channelId: string;
  ownerId: string;
  paused: boolean;
  state: WatchState;
  mutedUntil?: Date;
  lastOutcome?: string;
  lastText?: string;
  lastError?: string;
  lastEvaluatedAt?: Date;
  /** The watch's zone: its hours, and when it was checked. */
  timeZone: string;
  createdAt: Date;
  /** Its alerts in the last ALERT_WINDOW_DAYS days. */
  alerts: number;
  canManage: boolean;
}

/** The days over which the list and App Home count a watch's alerts. */
export const ALERT_WINDOW_DAYS = 30;
const ALERT_WINDOW_MS = ALERT_WINDOW_DAYS * 86_400_000;

/** Since when alerts are counted at `now`. */
export function alertsSince(now: Date): Date {
  return new Date(now.getTime() - ALERT_WINDOW_MS);
}

/**
 * A watch's alerts counted from `alertsSince(now)`, in words: "3 alerts in the last 30 days";
 * for a watch added since, "1 alert since it was added on Nov 20 (Europe/Berlin)".
 */
export function alertsWords(alerts: number, watch: { createdAt: Date; timeZone: string }, now: Date): string {
  const count = alerts === 0 ? 'no alerts' : counted(alerts, 'alert');
  if (watch.createdAt <= alertsSince(now)) return `${count} in the last ${ALERT_WINDOW_DAYS} days`;
  const day = localDate(watch.createdAt, watch.timeZone) ?? watch.createdAt.toISOString().slice(0, 10);
  return `${count} since it was added on ${formatDateTimeIn(day, watch.timeZone, now)}`;
}

/** When a watch was last checked, in its zone, and that what it judged was over: "Nov 27, 15:10 (Europe/Berlin), after that hour ended". */
function checkedWords(at: Date, every: WatchRule['every'], timeZone: string, now: Date): string {
  const ended = every === 'hour' ? 'after that hour ended' : 'after that day ended at the API';
  return `${formatDateTimeIn(at.toISOString(), timeZone, now)}, ${ended}`;
}

/** The list: each watch's rule, where it posts, its state and last result in words, and its buttons. */
export function watchListMessage(items: readonly WatchListItem[], view: { now: Date; heading: string }): SlackMessage {
  if (items.length === 0) {
    return {
      text: 'No watches here.',
      blocks: [
        {
          type: 'section',
          text: mrkdwn('No watches here. Add one, e.g. `/traffic watch visits drops 40% vs last week`.'),
        },
      ],
    };
  }
  const blocks: KnownBlock[] = [{ type: 'header', text: plainText(`Watches (${view.heading})`, LIMITS.headerText) }];
  for (const w of items.slice(0, 15)) {
    const state = w.paused
      ? ':double_vertical_bar: paused'
      : w.lastOutcome === 'unknown'
        ? `:grey_question: unknown: ${escapeMrkdwn(w.lastError ?? w.lastText ?? '')}`
        : w.state === 'breaching'
          ? `:rotating_light: breaching: ${escapeMrkdwn(w.lastText ?? '')}`
          : w.lastText
            ? `:white_check_mark: ok: ${escapeMrkdwn(w.lastText)}`
            : ':hourglass: not evaluated yet';
    const checked = w.lastEvaluatedAt
      ? ` · checked ${escapeMrkdwn(checkedWords(w.lastEvaluatedAt, w.rule.every, w.timeZone, view.now))}`
      : '';
    const muted = w.mutedUntil && w.mutedUntil > view.now ? ' · :mute: muted' : '';
    const alerts = escapeMrkdwn(alertsWords(w.alerts, w, view.now));
    const text = `*#${w.id}* ${escapeMrkdwn(watchTitle(w.rule))} · every ${w.rule.every} · <#${w.channelId}> · owner <@${w.ownerId}>\n${state}${checked}${muted} · ${alerts}`;
    blocks.push({ type: 'section', block_id: `watch-${w.id}`, text: mrkdwn(text) });
    if (w.canManage) {
      const value = String(w.id);
      blocks.push({
        type: 'actions',
        block_id: `watch-actions-${w.id}`,
        elements: [
          w.paused
            ? { type: 'button', action_id: WATCH_ACTIONS.resume, text: plainText('Resume', LIMITS.buttonText), value }
            : { type: 'button', action_id: WATCH_ACTIONS.pause, text: plainText('Pause', LIMITS.buttonText), value },
          {
            type: 'button',
            action_id: WATCH_ACTIONS.remove,
            style: 'danger',
            text: plainText('Remove', LIMITS.buttonText),
            value,
            confirm: {
              title: plainText('Remove this watch?', LIMITS.confirmTitle),
              text: plainText(watchTitle(w.rule), LIMITS.confirmText),
              confirm: plainText('Remove', LIMITS.confirmButton),
              deny: plainText('Keep', LIMITS.confirmButton),
            },
          },
        ],
      });
    }
  }
  if (items.length > 15) blocks.push({ type: 'context', elements: [mrkdwn(`…and ${items.length - 15} more.`)] });
  return { text: fallbackText(counted(items.length, 'watch', 'watches')), blocks: capBlocks(blocks) };
}

/**
 * The flagged visitors behind an alert's period, with the threat scan's verdict on each and a
 * button to open their card. `verdicts` holds those it still has a verdict on.
 */
export function flaggedVisitorsMessage(
  watch: { id: number; rule: WatchRule; explanation?: Pick<Explanation, 'flagged' | 'flaggedCount'> },
  period: string,
  verdicts: ReadonlyMap<string, { name: string; reasons: readonly string[] }>,
): SlackMessage {
  const ids = watch.explanation?.flagged ?? [];
  const all = Math.max(ids.length, watch.explanation?.flaggedCount ?? 0);
  const shown =
    all > ids.length
      ? `the ${formatCount(ids.length)} with the most visits of ${counted(all, 'flagged visitor')}`
      : counted(all, 'flagged visitor');
  const blocks: MessageBlock[] = [
    {
      type: 'section',
      text: mrkdwn(
        `*Flagged visitors ${escapeMrkdwn(period)}* (watch #${watch.id}: ${escapeMrkdwn(watchTitle(watch.rule))}): ${shown}, most visits first.`,
      ),
    },
  ];
  for (const id of ids) {
    const v = verdicts.get(id);
    const said = v ? `${v.name}${v.reasons.length > 0 ? `: ${v.reasons.join('; ')}` : ''}` : 'verdict no longer kept';
    blocks.push({
      type: 'section',
      text: mrkdwn(`\`${escapeMrkdwn(id)}\` · ${escapeMrkdwn(said)}`),
      accessory: {
        type: 'button',
        action_id: WATCH_ACTIONS.flaggedCard,
        text: plainText('Card', LIMITS.buttonText),
        value: id.slice(0, 2000),
      },
    });
  }
  return { text: fallbackText(`Flagged visitors ${period}: ${ids.length}`), blocks: capBlocks(blocks) };
}
