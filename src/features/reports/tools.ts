/** The `report` agent tool: a report of the catalog as `/traffic <report> …` answers it. */
import { z } from 'zod';
import { REPORT_IDS, type ReportDef } from '../../kernel/catalog.js';
import { apiDaysWords } from '../../kernel/dates.js';
import { counted, formatCount } from '../../kernel/format.js';
import { DEFAULT_TOP, MAX_PAGE, MAX_TOP, withPage, type ReportQuery } from '../../kernel/query.js';
import { DEFAULT_RANGE } from '../../kernel/ranges.js';
import { fieldOf, type ReportRow } from '../../kernel/records.js';
import { commandTokens } from '../../kernel/text.js';
import { AgentRefusal, toolSchemas, type AgentCaller, type AgentTool } from '../../platform/feature.js';
import { agentBlocks } from '../../platform/slack/kit/agent-blocks.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';
import type { ReportService } from './service.js';

const schemas = toolSchemas(() => {
  /** A period's figures: its dates, in words, and the zone its days are counted in. */
  const PERIOD = z.object({
    label: z.string(),
    startDate: z.string(),
    endDate: z.string(),
    zone: z.string(),
  });

  const VALUE = z.union([z.string(), z.number(), z.boolean(), z.null()]);

  const input = {
    report: z.enum(REPORT_IDS).describe('Which report'),
    range: z
      .string()
      .max(60)
      .default(DEFAULT_RANGE)
      .describe('yesterday, last7d, last30d, mtd, ytd, all, or 2024-11-01..2024-11-28'),
    filters: z
      .string()
      .max(500)
      .optional()
      .describe('country:Germany (is), page~/blog (contains); "or" between groups'),
    sort: z
      .string()
      .max(40)
      .optional()
      .describe('visits, unique, duration, name; created, first, last (visitors); date (visits)'),
    direction: z.enum(['asc', 'desc']).optional().describe('Default: names A→Z, counts biggest first'),
    top: z.number().int().min(1).max(MAX_TOP).default(DEFAULT_TOP).describe('Rows per page'),
    page: z.number().int().min(1).max(MAX_PAGE).default(1).describe('Page of rows'),
  };

  const output = {
    report: z.string(),
    title: z.string(),
    period: PERIOD,
    page: z.number(),
    sortedBy: z.string(),
    rows: z.array(z.record(z.string(), VALUE)),
    totals: z.record(z.string(), z.number()).describe('Count fields summed over these rows'),
    more: z.boolean(),
  };
  return { input, output };
});

type Input = typeof schemas.input;
type Args = { [K in keyof Input]: z.output<Input[K]> };

/** The words `/traffic` would be typed with for these arguments. */
function words(args: Args): string {
  const sort = args.sort ? `by ${args.sort}${args.direction ? ` ${args.direction}` : ''}` : '';
  return [args.report, args.range, args.filters ?? '', sort, `top ${args.top}`].filter(Boolean).join(' ');
}

/** The query `/traffic` would make of these arguments, or its usage error as a refusal. */
export function queryOf(reports: ReportService, text: string): ReportQuery {
  const tokens = commandTokens(text);
  if (!Array.isArray(tokens)) throw new AgentRefusal(tokens.error);
  const parsed = reports.parse(tokens);
  if (parsed.kind === 'error') throw new AgentRefusal(parsed.message);
  if (parsed.kind !== 'report') throw new AgentRefusal('Name a report.');
  const { public: _, ...query } = parsed.query;
  return query;
}

/** A refusal of an answer that did not come: its message's words. */
export const refusalOf = (message: SlackMessage): AgentRefusal => new AgentRefusal(message.text);

function plain(value: unknown): string | number | boolean | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : JSON.stringify(value);
}

function totalsOf(def: ReportDef, rows: readonly ReportRow[]): Record<string, number> {
  const counts = def.columns.filter((c) => c.format === 'count');
  return Object.fromEntries(
    counts.map((c) => [c.field, rows.reduce((n, r) => n + (Number(fieldOf(r, c.field)) || 0), 0)]),
  );
}

export function reportTool(reports: ReportService, apiZone: string): AgentTool {
  return {
    name: 'report',
    title: 'Report',
    description: 'Rows of one analytics report over a range, with filters, sort and totals.',
    get input() {
      return schemas.input;
    },
    get output() {
      return schemas.output;
    },
    async run(raw, caller: AgentCaller) {
      const args = raw as Args;
      const query = withPage(queryOf(reports, words(args)), args.page);
      const answer = await reports.answer(await caller.tenant(), query, {
        ephemeral: true,
        user: caller.user,
        log: caller.log,
      });
      if (!answer.ok) throw refusalOf(answer.message);
      const { rows, range, more } = answer.rows;
      const def = reports.catalog[query.report];
      const totals = totalsOf(def, rows);
      const period = { label: range.label, startDate: range.startDate, endDate: range.endDate, zone: apiZone };
      const count = def.countField;
      const first = (query.page - 1) * query.top + 1;
      const shown =
        rows.length === 0
          ? `no rows on page ${query.page}`
          : `${counted(rows.length, 'row')} (${formatCount(first)}–${formatCount(first + rows.length - 1)})${count ? `, ${counted(totals[count] ?? 0, 'visit')} in all` : ''}`;
      return {
        text: `${def.title}, ${range.label} (${range.startDate} to ${range.endDate}, ${apiDaysWords(apiZone)}): ${shown}.`,
        structured: {
          report: def.id,
          title: def.title,
          period,
          page: query.page,
          sortedBy: `${query.sort?.key ?? def.defaultSort} ${query.sort?.dir ?? 'desc'}`,
          rows: rows.map((r) => Object.fromEntries(def.columns.map((c) => [c.field, plain(fieldOf(r, c.field))]))),
          totals,
          more: more ?? rows.length >= query.top,
        },
        blocks: agentBlocks(answer.message),
      };
    },
  };
}
