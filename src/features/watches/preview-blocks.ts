/** A preview in Block Kit: what the rule would have done in words, a chart with its alerts marked, and a stricter rule when it would have alerted too often. */
import type { Button } from '@slack/types';
import { apiDayWords } from '../../kernel/dates.js';
import { formatCount } from '../../kernel/format.js';
import { dayLabel, metricLabel } from '../../kernel/trend.js';
import { chartLabel, type ChartBlock } from '../../platform/slack/kit/charts.js';
import { escapeMrkdwn, fallbackText, mrkdwnCode } from '../../platform/slack/kit/escape.js';
import { clip, LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import type { MessageBlock, SlackMessage } from '../../platform/slack/kit/messages.js';
import { watchTitle } from './blocks.js';
import { ruleWords } from './parse.js';
import type { Preview } from './previewer.js';
import { breachesOf, previewSentence, tooOften, TOO_OFTEN_DAYS, unknownSentence, type Replayed } from './preview.js';

export const PREVIEW_ACTIONS = { stricter: 'watch.stricter' } as const;

/** "once", "5 times". */
const times = (n: number) => (n === 1 ? 'once' : `${formatCount(n)} times`);

/**
 * The figure over the preview's periods with the alerts marked: an hourly watch's busiest hour
 * of each day beside the highest hour that would have alerted that day (0 when none); a daily
 * watch's days beside those that would have alerted. Periods that could not be judged are left out.
 */
export function previewChart(preview: Preview, apiZone: string): ChartBlock {
  const hourly = preview.rule.every === 'hour';
  const days = new Map<string, { peak: number; alerted: number }>();
  for (const r of preview.replayed) {
    const day = days.get(r.period.date) ?? { peak: 0, alerted: 0 };
    const value = r.observation.ok ? r.observation.value : 0;
    day.peak = Math.max(day.peak, value);
    if (r.kind === 'breach') day.alerted = Math.max(day.alerted, value);
    days.set(r.period.date, day);
  }
  const categories = [...days.keys()].map((d) => chartLabel(dayLabel(d)));
  const points = (pick: (d: { peak: number; alerted: number }) => number) =>
    [...days.values()].map((d, i) => ({ label: categories[i]!, value: Math.round(pick(d) * 10) / 10 }));
  const metric = metricLabel(preview.rule.metric === 'unique' ? 'unique' : 'visits');
  return {
    type: 'data_visualization',
    title: clip(hourly ? `${metric} in the busiest hour of each day` : `${metric} per day`, LIMITS.chartTitle),
    chart: {
      type: 'line',
      series: [
        { name: hourly ? 'busiest hour' : metric.toLowerCase(), data: points((d) => d.peak) },
        { name: 'would have alerted', data: points((d) => d.alerted) },
      ],
      axis_config: {
        categories,
        x_label: clip(`day (${hourly ? preview.timeZone : apiDayWords(apiZone)})`, LIMITS.chartLabel * 3),
        y_label: metric,
      },
    },
  };
}

/** The preview's blocks, for a confirmation or a preview alone; `watchId`: the saved watch a stricter rule can replace. */
export function previewBlocks(preview: Preview, apiZone: string, watchId?: number): MessageBlock[] {
  const { rule, replayed, days } = preview;
  const hourly = rule.every === 'hour';
  const zone = hourly ? `hours in ${preview.timeZone}` : `days ${apiDayWords(apiZone)}`;
  const blocks: MessageBlock[] = [
    {
      type: 'section',
      text: mrkdwn(`*Preview:* ${escapeMrkdwn(previewSentence(replayed, days))} (${escapeMrkdwn(zone)})`),
    },
  ];
  const breaches = breachesOf(replayed).length;
  if (tooOften(rule.every, breaches, days)) {
    const often = `That is more than once a ${TOO_OFTEN_DAYS[rule.every] === 1 ? 'day' : 'week'} on average: people mute a watch that cries wolf.`;
    const stricter = preview.stricter;
    const words = stricter ? ruleWords(stricter.rule) : undefined;
    const offer =
      stricter && words
        ? ` A stricter rule, ${mrkdwnCode(words, 400)}, would ${stricter.breaches === 0 ? 'never have alerted' : `have alerted ${times(stricter.breaches)}`}.`
        : '';
    const value = watchId !== undefined && words ? `${watchId} ${words}` : undefined;
    const button: Button | undefined =
      value && value.length <= LIMITS.buttonValue
        ? {
            type: 'button',
            action_id: PREVIEW_ACTIONS.stricter,
            text: plainText('Use the stricter rule', LIMITS.buttonText),
            value,
          }
        : undefined;
    blocks.push({
      type: 'section',
      text: mrkdwn(`:warning: ${escapeMrkdwn(often)}${offer}`),
      ...(button ? { accessory: button } : {}),
    });
  }
  const unknown = unknownSentence(replayed, rule.every);
  if (unknown) blocks.push({ type: 'context', elements: [mrkdwn(escapeMrkdwn(unknown))] });
  if (replayed.length > 0) blocks.push(previewChart(preview, apiZone));
  return blocks;
}

/** A preview alone: of a rule (`/traffic watch preview <rule>`, with how to add it), or of watch `watchId` (the Home's Preview). */
export function previewMessage(preview: Preview, apiZone: string, watchId?: number): SlackMessage {
  const title = watchTitle(preview.rule);
  const of = watchId === undefined ? 'If this watch had been on' : `Watch #${watchId}, over the past weeks`;
  return {
    text: fallbackText(`${of}: ${title}: ${previewSentence(preview.replayed, preview.days)}`),
    blocks: [
      { type: 'section', text: mrkdwn(`*${of}:* ${escapeMrkdwn(title)}`) },
      ...previewBlocks(preview, apiZone, watchId),
      ...(watchId === undefined
        ? [
            {
              type: 'context' as const,
              elements: [mrkdwn(`Add it with ${mrkdwnCode(`/traffic watch ${ruleWords(preview.rule)}`, 500)}`)],
            },
          ]
        : []),
    ],
  };
}

/** What the preview's chart and sentence count: the periods that would have alerted. */
export const alertedPeriods = (replayed: readonly Replayed[]): string[] =>
  breachesOf(replayed).map((r) => r.period.key);
