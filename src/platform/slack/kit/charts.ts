/** Charts (Slack's data_visualization block) and the figures they show, in words. */
import type { Block } from '@slack/types';
import { compactSpan, formatSpan, type Zones } from '../../../kernel/dates.js';
import { formatCount, formatDelta } from '../../../kernel/format.js';
import { neutralize } from '../../../kernel/text.js';
import {
  grainLabel,
  metricLabel,
  type Bucket,
  type Grain,
  type Trend,
  type TrendMetric,
} from '../../../kernel/trend.js';
import { escapeMrkdwn } from './escape.js';
import { clip, LIMITS } from './limits.js';

/** Slack's data_visualization block: @slack/types has no type for it yet. */
export interface ChartBlock extends Block {
  type: 'data_visualization';
  title: string;
  chart:
    | {
        type: 'line' | 'area' | 'bar';
        series: { name: string; data: { label: string; value: number }[] }[];
        axis_config: { categories: string[]; x_label?: string; y_label?: string };
      }
    | { type: 'pie'; segments: { label: string; value: number }[] };
}

/** A chart label: no disguising characters, at most 20 characters. */
export function chartLabel(text: string): string {
  return clip(neutralize(text).trim() || '(none)', LIMITS.chartLabel);
}

/**
 * Chart labels for these names, each within Slack's 20 characters and told apart: a name cut
 * at its end that meets another keeps its start and its end instead (`/blog/…/post-1`), and
 * one that still meets another is numbered.
 */
export function distinctLabels(names: readonly string[]): string[] {
  const max = LIMITS.chartLabel;
  const middle = (text: string) => {
    const points = Array.from(neutralize(text).trim());
    if (points.length <= max) return points.join('');
    const head = Math.ceil((max - 1) / 2);
    return `${points.slice(0, head).join('')}…${points.slice(points.length - (max - 1 - head)).join('')}`;
  };
  const first = names.map(chartLabel);
  const seen = new Map<string, number>();
  for (const l of first) seen.set(l, (seen.get(l) ?? 0) + 1);
  const second = names.map((n, i) => ((seen.get(first[i]!) ?? 0) > 1 ? middle(n) || '(none)' : first[i]!));
  const used = new Map<string, number>();
  return second.map((l) => {
    const n = (used.get(l) ?? 0) + 1;
    used.set(l, n);
    if (n === 1) return l;
    const suffix = ` (${n})`;
    return `${Array.from(l)
      .slice(0, max - suffix.length)
      .join('')}${suffix}`;
  });
}

/** "Visits per hour (Europe/Berlin)": hours Lookout counts from visits, in the reader's zone; "Visits per day (UTC, the API's days)". */
function chartTitle(metric: TrendMetric, grain: Grain, zones: Zones): string {
  const zone = grain === 'hour' ? zones.timeZone : `${zones.apiZone}, the API's days`;
  return clip(`${metricLabel(metric)} per ${grain} (${zone})`, LIMITS.chartTitle);
}

/** A series named by its dates ("Nov 21–27, 2026"), so the previous period says which it is. */
function seriesName(buckets: readonly Bucket[]): string {
  return chartLabel(compactSpan(buckets[0]!.startDate, buckets.at(-1)!.endDate));
}

/**
 * This period against the previous one, bucket by bucket, on this period's x-axis: its
 * title names the zone of its buckets, each series its dates. Buckets past `begun` are not
 * drawn.
 */
export function trendChart(
  metric: TrendMetric,
  trend: Pick<Trend, 'plan' | 'current' | 'previous' | 'begun'>,
  zones: Zones,
): ChartBlock {
  const { plan, current, previous } = trend;
  const buckets = plan.buckets;
  // Hours and days that have not happened are not drawn (as zeros they would read as a fall).
  const categories = buckets.slice(0, Math.max(1, trend.begun ?? buckets.length)).map((b) => chartLabel(b.label));
  const points = (values: readonly number[]) => categories.map((c, i) => ({ label: c, value: values[i] ?? 0 }));
  return {
    type: 'data_visualization',
    title: chartTitle(metric, plan.grain, zones),
    chart: {
      type: 'line',
      series: [
        { name: seriesName(buckets), data: points(current.values) },
        { name: seriesName(plan.previous), data: points(previous.values) },
      ],
      axis_config: { categories, x_label: grainLabel(plan.grain), y_label: metricLabel(metric) },
    },
  };
}

/**
 * The figures a chart shows, in words: for notifications, screen readers and clients without
 * the block. Hours carry their zone (the day's hours add up to the zone's day, not the API's).
 */
export function trendFigures(metric: TrendMetric, trend: Trend, zones: Zones): string {
  const noun = metric === 'visits' ? 'visits' : 'unique visitors';
  const unit = trend.plan.grain;
  const { current, previous } = trend;
  const change = formatDelta(current.total, previous.total);
  const hourly = unit === 'hour' ? ` (${escapeMrkdwn(zones.timeZone)})` : '';
  const parts = [
    `*${formatCount(current.total)} ${noun}*${hourly}${trend.plan.clipped ? ` in the last ${trend.plan.buckets.length} weeks` : ''}`,
  ];
  const before = trend.plan.previous;
  const period = `the previous period, ${formatSpan(before[0]!.startDate, before.at(-1)!.endDate)}`;
  const was = `${period} (${formatCount(previous.total)})`;
  parts.push(
    change === '–' ? `the same as ${was}` : change === 'new' ? `up from none in ${period}` : `${change} against ${was}`,
  );
  let line = parts.join(', ') + '.';
  if (current.peak)
    line += ` Busiest ${unit}: ${escapeMrkdwn(current.peak.label)}${hourly} with ${formatCount(current.peak.value)}.`;
  if (trend.partial) line += ` The last ${unit} is not over yet.`;
  if (metric === 'unique') line += ` A visitor seen in two ${unit}s counts in each.`;
  return line;
}
