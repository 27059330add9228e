/**
 * The `why_moved` agent tool: what moved and who moved it (people or bots), for a period the
 * person names or for a watch's latest alert, as a watch's alert explains it (explainer.ts).
 */
import { z } from 'zod';
import { counted } from '../../kernel/format.js';
import type { ApiDays } from '../../kernel/trend.js';
import { AgentRefusal, toolSchemas, type AgentCaller, type AgentTool } from '../../platform/feature.js';
import { withinQuota, type Quota } from '../../platform/quota.js';
import { agentBlocks } from '../../platform/slack/kit/agent-blocks.js';
import { mrkdwn } from '../../platform/slack/kit/limits.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import { queryOf, type ReportService } from '../reports/index.js';
import type { Explanation } from './explanation-text.js';
import type { WatchExplainer } from './explainer.js';
import { type WatchRule } from './plan.js';
import { namedPeriod, periodLabel } from './period.js';
import type { WatchService } from './service.js';

const BREAKDOWN = ['sources', 'pages', 'countries'] as const;

const schemas = toolSchemas(() => {
  const input = {
    watch: z.number().int().min(1).optional().describe("A watch's id (from setup): its latest alert"),
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional()
      .describe('Or a past day'),
    hour: z.number().int().min(0).max(23).optional().describe('An hour of that day (absent: all day)'),
    metric: z.enum(['visits', 'unique']).default('visits').describe('The figure that moved'),
    report: z.enum(BREAKDOWN).optional().describe('Only this breakdown (absent: all three)'),
    filters: z.string().max(500).optional().describe('As in the report tool'),
  };

  const output = {
    watch: z.number().optional(),
    period: z.object({ key: z.string(), label: z.string() }),
    against: z.string(),
    movers: z.array(
      z.object({
        kind: z.string().optional(),
        label: z.string(),
        change: z.number(),

        isNew: z.boolean(),
      }),
    ),
    verdict: z.string().describe('mostly automated, mostly people, mixed or unknown'),
    whoMoved: z.string(),
    flaggedShare: z
      .object({ low: z.number(), high: z.number() })
      .optional()
      .describe("Flagged visitors' share of the change, 0–1 (unjudged: either way)"),
    flaggedVisitors: z.number(),
  };
  return { input, output };
});

type Input = typeof schemas.input;
type Args = { [K in keyof Input]: z.output<Input[K]> };

export interface WhyMovedDeps {
  watches: WatchService;
  explainer: Pick<WatchExplainer, 'explain'>;
  reports: ReportService;
  quota: Quota;
  apiDays: ApiDays;
  /** The zone a named hour is in (DEFAULT_TIMEZONE). */
  timeZone: string;
  now: () => Date;
  demo: boolean;
}

/** An explanation's two lines, without their mrkdwn marks: "What moved …", "Who moved it …". */
const linesOf = (e: Explanation) => e.text.replace(/\*/g, '').split('\n');

function answerOf(e: Explanation, label: string, watch?: number) {
  const [whatMoved = '', whoMoved = ''] = linesOf(e);
  const against = /^What moved \(against (.*)\):/.exec(whatMoved)?.[1] ?? 'the period before';
  return {
    text: `${watch ? `Watch #${watch}'s latest alert, ` : ''}${label}: ${whatMoved}. ${whoMoved}.`,
    structured: {
      ...(watch ? { watch } : {}),
      period: { key: e.period, label },
      against,
      movers: (e.moved ?? []).map((m) => ({
        ...(m.kind ? { kind: m.kind } : {}),
        label: m.label,
        change: m.change,
        isNew: m.isNew,
      })),
      verdict: e.verdict,
      whoMoved: e.who?.text ?? whoMoved.replace(/^Who moved it: /, ''),
      ...(e.who?.shares.changeShare ? { flaggedShare: e.who.shares.changeShare } : {}),
      flaggedVisitors: e.flaggedCount,
    },
  };
}

/** A watch's latest alert, explained, for a person in its channel. */
async function watchAnswer(d: WhyMovedDeps, tenant: Tenant, user: string, id: number) {
  const watch = await d.watches.find(tenant.team, id);
  if (!watch) throw new AgentRefusal(`There is no watch #${id}. See /traffic watch list.`);
  if ((await tenant.access.channelsOf(user, [watch.channelId])).length === 0)
    throw new AgentRefusal(`Watch #${id} posts in a channel you are not in. Ask a member of its channel.`);
  if (!watch.explanation)
    throw new AgentRefusal(
      watch.alertTs || watch.state === 'breaching'
        ? `Watch #${id}'s latest alert has no explanation yet. Try again in a minute.`
        : `Watch #${id} has not alerted yet, so there is nothing to explain. Name a period instead.`,
    );
  const label = d.watches.periodWords(watch, watch.explanation.period);
  return { ...answerOf(watch.explanation, label, id), blocks: agentBlocks(d.watches.alertOf(watch)) };
}

async function periodAnswer(d: WhyMovedDeps, tenant: Tenant, caller: AgentCaller, args: Args & { date: string }) {
  const report = args.report ?? 'visits';
  const filters = queryOf(d.reports, `${report} ${args.filters ?? ''}`).filters;
  const rule: WatchRule = {
    metric: args.metric,
    report,
    filters,
    condition: { kind: 'change', direction: 'rises', pct: 0, against: 'previous' },
    every: args.hour === undefined ? 'day' : 'hour',
  };
  const asked = { date: args.date, ...(args.hour !== undefined ? { hour: args.hour } : {}) };
  const zones = { timeZone: d.timeZone, apiZone: d.apiDays.timeZone };
  const label = periodLabel(asked, zones);
  const period = namedPeriod(asked, d.timeZone, d.now(), d.apiDays);
  if (!period)
    throw new AgentRefusal(
      `${label.replace(/^on /, '')} is not over yet, or its figures are not final: name an earlier ${rule.every}.`,
    );
  // Its requests: a page of visits or each report's rows for the period and the one before, and a sample of lookups.
  const explained = await withinQuota(d.quota, tenant.team, caller.user, 8, () =>
    d.explainer.explain(tenant, rule, period, d.timeZone),
  );
  if (!explained.ok) throw new AgentRefusal(explained.problem);
  const e = explained.value;
  const context = [label, `${counted(e.flaggedCount, 'flagged visitor')}`, ...(d.demo ? ['_demo data_'] : [])];
  return {
    ...answerOf(e, label),
    blocks: agentBlocks({
      blocks: [
        { type: 'section', text: mrkdwn(e.text) },
        { type: 'context', elements: [mrkdwn(context.join(' · '))] },
      ],
    }),
  };
}

export function whyMovedTool(deps: WhyMovedDeps): AgentTool {
  return {
    name: 'why_moved',
    title: 'Why it moved',
    description:
      "What moved a figure (sources, pages, countries) and who (people or bots), in a watch's latest alert or a past day or hour.",
    get input() {
      return schemas.input;
    },
    get output() {
      return schemas.output;
    },
    async run(raw, caller: AgentCaller) {
      const args = raw as Args;
      if ((args.watch === undefined) === (args.date === undefined))
        throw new AgentRefusal('Name a watch (its id) or a period (a date, and an hour if you like), not both.');
      const tenant = await caller.tenant();
      if (args.watch !== undefined) return watchAnswer(deps, tenant, caller.user, args.watch);
      return periodAnswer(deps, tenant, caller, { ...args, date: args.date! });
    },
  };
}
