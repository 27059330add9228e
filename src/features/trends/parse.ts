/**
 * `/traffic trend [report [filters…]] [range] [by visits|unique] [public]`: the trend's own
 * words (`by visits|unique`); the rest is a report and its refinements, as `/traffic` reads them.
 */
import { matchReport, type ReportCatalog } from '../../kernel/catalog.js';
import { findOperator } from '../../kernel/filters.js';
import { code, type Token, type UsageError } from '../../kernel/text.js';
import type { TrendMetric } from '../../kernel/trend.js';
import { readRange, suggestRange } from '../../kernel/range-words.js';

export const TREND_USAGE = '/traffic trend [report [filters…]] [range] [by visits|unique] [public]';

export const TREND_HELP = [
  TREND_USAGE,
  'Charts totals per day (per hour for today or yesterday, per week past 90 days) against the previous period; a report adds a pie of its top rows.',
  'Examples: `/traffic trend` · `/traffic trend sources source:google last30d` · `/traffic trend countries ytd by unique`',
];

/** The report words to parse (with `visits` first when no report is named) and the metric, if typed. */
export type TrendWords = { kind: 'trend'; report: Token[]; metric?: TrendMetric } | UsageError;

const fail = (message: string): UsageError => ({ kind: 'error', message, usage: TREND_USAGE });

const word = (text: string): Token => ({ segments: [{ text, quoted: false }], text, word: text });

export function parseTrendWords(args: readonly Token[], catalog: ReportCatalog): TrendWords {
  let metric: TrendMetric | undefined;
  const rest: Token[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (token.word === 'by') {
      const next = args[i + 1]?.word;
      if (metric) return fail('`by` is given twice; a trend is by visits or by unique.');
      if (next !== 'visits' && next !== 'unique')
        return fail(`A trend is \`by visits\` or \`by unique\`${next ? `, not ${code(next)}` : ''}.`);
      metric = next;
      i++;
    } else if (token.word === 'top' || (token.word !== undefined && /^top\d+$/.test(token.word))) {
      return fail('A trend charts totals, so `top` does not apply; `/traffic <report> top <n>` lists rows.');
    } else rest.push(token);
  }
  const first = rest[0];
  // A range first (or a near miss of one that names no report) means all visits: `trend this month`, `trend lastweak`.
  const rangeFirst =
    first !== undefined &&
    !matchReport(first.text, catalog).ok &&
    (readRange(rest, 0) !== undefined || suggestRange(first.text) !== undefined);
  const named = first !== undefined && !rangeFirst && !findOperator(first) && first.word !== 'public';
  return { kind: 'trend', report: named ? rest : [word('visits'), ...rest], ...(metric ? { metric } : {}) };
}
