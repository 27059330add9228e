import type { ActionsBlock, Button } from '@slack/types';
import type { ReportDef } from '../../kernel/catalog.js';
import { REPORTS } from '../../kernel/catalog.js';
import { formatCount, shortUrl } from '../../kernel/format.js';
import { BACK_TO_CARD_ACTION, bucketsWords, metricLabel, type Trend, type TrendSpec } from '../../kernel/trend.js';
import { USER_ID } from '../../kernel/text.js';
import { escapeMrkdwn, fallbackText } from '../../platform/slack/kit/escape.js';
import { describeFilters } from '../../platform/slack/kit/filter-words.js';
import { distinctLabels, trendChart, trendFigures, type ChartBlock } from '../../platform/slack/kit/charts.js';
import { capBlocks, clip, LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import type { MessageBlock, SlackMessage } from '../../platform/slack/kit/messages.js';

export const TREND_ACTIONS = {
  share: 'trend.share',
  table: 'trend.table',
} as const;

/** The top rows of a report over the trend's range, against the period's total. */
export interface Share {
  def: ReportDef;
  top: { name: string; value: number }[];
  rest: number;
  total: number;
}

export interface TrendView {
  spec: TrendSpec;
  trend: Trend;
  share?: Share;
  timeZone: string;
  /** The zone the API counts its days in: a day's or week's figures are its days. */
  apiZone: string;
  demo: boolean;
  ephemeral: boolean;
  sharedBy?: string;
  /** The Trend button value of this trend (for Post to channel). */
  ref: string;
  /** The report query behind it (for Show table), with the card to go back to. */
  tableRef: string;
  /** The visitor card it was opened from: a way back to it. */
  back?: string;
}

/** What a row is called on a chart, as the table shows it (a page's path, not its whole URL). */
function shownName(name: string): string {
  return /^[a-z]+:\/\//i.test(name) ? shortUrl(name) : name;
}

function pie(share: Share): ChartBlock {
  const labels = distinctLabels(share.top.map((s) => shownName(s.name)));
  const segments = share.top.map((s, i) => ({ label: labels[i]!, value: s.value }));
  if (share.rest > 0) segments.push({ label: 'Other', value: share.rest });
  return {
    type: 'data_visualization',
    title: clip(`Share of visits by ${share.def.title.toLowerCase()}`, LIMITS.chartTitle),
    chart: { type: 'pie', segments: segments.slice(0, LIMITS.chartSeries) },
  };
}

function shareFigures(share: Share): string {
  const pct = (n: number) => `${Math.round((n / share.total) * 100)}%`;
  const items = share.top.map(
    (s) => `${escapeMrkdwn(shownName(s.name) || '(none)')} ${pct(s.value)} (${formatCount(s.value)})`,
  );
  if (share.rest > 0) items.push(`other ${pct(share.rest)} (${formatCount(share.rest)})`);
  return `Share of visits: ${items.join(', ')}.`;
}

function button(text: string, actionId: string, value: string, style?: 'primary'): Button {
  return {
    type: 'button',
    text: plainText(text, LIMITS.buttonText),
    action_id: actionId,
    value: value.slice(0, LIMITS.buttonValue),
    ...(style ? { style } : {}),
  };
}

export function trendTitle(spec: TrendSpec): string {
  const what =
    spec.report === 'visits' ? 'Visits' : spec.report === 'visitors' ? 'Visitors' : REPORTS[spec.report].title;
  return `Trend: ${what}`;
}

export function trendMessage(view: TrendView): SlackMessage {
  const { spec, trend } = view;
  const per = `${metricLabel(spec.metric)} per ${trend.plan.grain}`;
  const context = [per, 'against the previous period'];
  const filters = describeFilters(spec.filters);
  if (filters) context.push(`filters: ${filters}`);
  const zones = { timeZone: view.timeZone, apiZone: view.apiZone };
  context.push(escapeMrkdwn(bucketsWords(trend.plan.grain, zones)));
  if (view.demo) context.push('_demo data_');
  if (view.sharedBy && USER_ID.test(view.sharedBy)) context.push(`shared by <@${view.sharedBy}>`);

  const figures = trendFigures(spec.metric, trend, zones);
  const blocks: MessageBlock[] = [
    {
      type: 'header',
      text: plainText(
        `${trendTitle(spec)} · ${trend.plan.clipped ? `last ${trend.plan.buckets.length} weeks of ${trend.plan.range.label}` : trend.plan.range.label}`,
        LIMITS.headerText,
      ),
    },
    { type: 'context', elements: [mrkdwn(context.join(' · '))] },
    { type: 'section', text: mrkdwn(figures) },
    trendChart(spec.metric, trend, zones),
  ];
  // A pie of one slice says nothing the figures do not: it needs two at least.
  if (view.share && view.share.top.length + (view.share.rest > 0 ? 1 : 0) >= 2) {
    blocks.push(pie(view.share), { type: 'context', elements: [mrkdwn(shareFigures(view.share))] });
  }
  const actions: ActionsBlock = {
    type: 'actions',
    elements: [button('Show table', TREND_ACTIONS.table, view.tableRef)],
  };
  if (view.back) actions.elements.unshift(button('◀ Back to card', BACK_TO_CARD_ACTION, view.back));
  if (view.ephemeral) actions.elements.push(button('Post to channel', TREND_ACTIONS.share, view.ref, 'primary'));
  blocks.push(actions);
  const plain = figures.replace(/\*/g, '');
  return { text: fallbackText(`${trendTitle(spec)}, ${trend.plan.range.label}: ${plain}`), blocks: capBlocks(blocks) };
}
