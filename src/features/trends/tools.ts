/** The `trend` agent tool: a figure over a range against the previous period, as `/traffic trend …` answers it. */
import { z } from 'zod';
import { counted, formatCount } from '../../kernel/format.js';
import { DEFAULT_RANGE } from '../../kernel/ranges.js';
import { commandTokens } from '../../kernel/text.js';
import { bucketsWords, metricLabel, type Series } from '../../kernel/trend.js';
import { AgentRefusal, toolSchemas, type AgentCaller, type AgentTool } from '../../platform/feature.js';
import { agentBlocks } from '../../platform/slack/kit/agent-blocks.js';
import { queryOf, refusalOf, type ReportService } from '../reports/index.js';
import { parseTrendWords } from './parse.js';
import type { TrendService } from './service.js';

const schemas = toolSchemas(() => {
  const input = {
    metric: z.enum(['visits', 'unique']).default('visits').describe('Visits, or unique visitors'),
    report: z.string().max(40).optional().describe('A report of the report tool (absent: all visits)'),
    filters: z.string().max(500).optional().describe('As in the report tool'),
    range: z.string().max(60).default(DEFAULT_RANGE).describe('As in the report tool'),
  };

  const SERIES = z
    .object({
      startDate: z.string(),
      endDate: z.string(),
      total: z.number(),
      values: z.array(z.number()).describe('One per label'),
    })
    .meta({ id: 'series' });

  const output = {
    metric: z.string(),
    report: z.string(),
    grain: z.enum(['hour', 'day', 'week']),
    label: z.string(),
    zone: z.string(),
    labels: z.array(z.string()),
    current: SERIES,
    previous: SERIES,
    change: z.number(),
    changePct: z.number().nullable().describe('null when the previous total is 0'),
    partial: z.boolean().describe('Last period not over yet'),
  };
  return { input, output };
});

type Input = typeof schemas.input;
type Args = { [K in keyof Input]: z.output<Input[K]> };

export function trendTool(trends: TrendService, reports: ReportService, apiZone: string): AgentTool {
  return {
    name: 'trend',
    title: 'Trend',
    description: 'Visits or unique visitors per hour, day or week over a range, against the period before.',
    get input() {
      return schemas.input;
    },
    get output() {
      return schemas.output;
    },
    async run(raw, caller: AgentCaller) {
      const args = raw as Args;
      const text = [args.report ?? '', args.filters ?? '', args.range, `by ${args.metric}`].filter(Boolean).join(' ');
      const tokens = commandTokens(text);
      if (!Array.isArray(tokens)) throw new AgentRefusal(tokens.error);
      const words = parseTrendWords(tokens, reports.catalog);
      if (words.kind === 'error') throw new AgentRefusal(words.message);
      const query = queryOf(reports, words.report.map((t) => t.text).join(' '));
      const answer = await trends.answer(await caller.tenant(), query, args.metric, {
        ephemeral: true,
        user: caller.user,
        log: caller.log,
      });
      if (!answer.ok) throw refusalOf(answer.message);
      const { spec, trend } = answer;
      const { plan } = trend;
      const zone = plan.grain === 'hour' ? spec.timeZone : apiZone;
      const series = (s: Series, buckets: typeof plan.buckets) => {
        const first = buckets[0];
        const last = buckets[buckets.length - 1];
        const startDate = first?.startDate ?? plan.range.startDate;
        const endDate = last?.endDate ?? plan.range.endDate;
        return { startDate, endDate, total: s.total, values: buckets.map((_, i) => s.values[i] ?? 0) };
      };
      const current = series(trend.current, plan.buckets);
      const previous = series(trend.previous, plan.previous);
      const change = trend.current.total - trend.previous.total;
      const changePct = trend.previous.total > 0 ? Math.round((change / trend.previous.total) * 1000) / 10 : null;
      const sign = change >= 0 ? '+' : '−';
      const signed = `${sign}${counted(Math.abs(change), spec.metric === 'visits' ? 'visit' : 'unique visitor')}${changePct === null ? '' : ` (${sign}${Math.abs(changePct)}%)`}`;
      const zones = bucketsWords(plan.grain, { timeZone: spec.timeZone, apiZone });
      return {
        text: `${metricLabel(spec.metric)}${spec.report === 'visits' ? '' : ` (${spec.report})`}: ${formatCount(trend.current.total)} ${plan.range.label} (${current.startDate} to ${current.endDate}) against ${formatCount(trend.previous.total)} the period before (${previous.startDate} to ${previous.endDate}), ${signed}; ${zones}.`,
        structured: {
          metric: spec.metric,
          report: spec.report,
          grain: plan.grain,
          label: plan.range.label,
          zone,
          labels: plan.buckets.map((b) => b.label),
          current,
          previous,
          change,
          changePct,
          partial: trend.partial,
        },
        blocks: agentBlocks(answer.message),
      };
    },
  };
}
