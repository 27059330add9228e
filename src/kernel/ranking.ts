/**
 * A report sorted by time spent ranks averages, and an average of a few visits is mostly
 * chance: one long visit puts a page of 3 visits above every page people really read. So
 * such a report ranks only the rows with at least RANK_MIN_VISITS visits and at least
 * RANK_MIN_SHARE of the report's visits, and says so under its table.
 */
import type { ReportDef, ReportRow } from './catalog.js';
import type { ReportQuery, SortDir } from './query.js';
import { fieldOf } from './records.js';

export const RANK_MIN_VISITS = 10;
export const RANK_MIN_SHARE = 0.01;

/** The rule that chose the rows a report sorted by an average ranks. */
export interface RankingRule {
  /** A row with fewer visits than this is not ranked. */
  minVisits: number;
  /** The report's visits the minimum is a share of; absent when not every row was read. */
  total?: number;
}

/** The rows ranked, in the order asked for, and the rule that chose them. */
export interface Ranking extends RankingRule {
  rows: ReportRow[];
}

/** One page of a ranking: its rows, the rule (absent when the report has no rows at all), whether more follow, and the most visits of any row (for bars). */
export interface RankedPage {
  rows: ReportRow[];
  ranking?: RankingRule;
  more: boolean;
  barMax?: number;
}

/** The field a query ranks by average, when it does: the report's `duration` sort on a report with counts. */
export function averageSortOf(def: ReportDef, query: ReportQuery): string | undefined {
  const key = def.sortKeys.duration;
  return key !== undefined && def.countField !== undefined && query.sort?.key === key ? key : undefined;
}

/** The fewest visits a row needs to be ranked by its average, among `total` visits. */
export function minVisitsToRank(total: number): number {
  return Math.max(RANK_MIN_VISITS, Math.ceil(total * RANK_MIN_SHARE));
}

const numberOf = (row: ReportRow, field: string): number => {
  const value = Number(fieldOf(row, field));
  return Number.isFinite(value) ? value : 0;
};

/**
 * Ranks `byVisits` (a report's rows, most visits first) by the average in `field`.
 * `complete`: they are every row of the report. Otherwise the rows not read have at most
 * the last row's visits, so the minimum is raised above it: no row that would qualify is missed.
 */
export function rankByAverage(
  def: ReportDef,
  byVisits: readonly ReportRow[],
  complete: boolean,
  field: string,
  dir: SortDir,
): Ranking {
  const count = def.countField;
  if (!count) return { rows: [...byVisits], minVisits: 0 };
  const visits = (row: ReportRow) => numberOf(row, count);
  const read = byVisits.reduce((n, row) => n + visits(row), 0);
  const last = byVisits.at(-1);
  const minVisits = complete ? minVisitsToRank(read) : Math.max(minVisitsToRank(read), last ? visits(last) + 1 : 0);
  const sign = dir === 'asc' ? 1 : -1;
  const rows = byVisits
    .filter((row) => visits(row) >= minVisits)
    .sort((a, b) => sign * (numberOf(a, field) - numberOf(b, field)) || visits(b) - visits(a));
  return { rows, minVisits, ...(complete ? { total: read } : {}) };
}

/** The page `query` asks for of the ranking of `byVisits` (see rankByAverage). */
export function rankedPage(
  def: ReportDef,
  query: ReportQuery,
  byVisits: readonly ReportRow[],
  complete: boolean,
  field: string,
): RankedPage {
  const { rows, ...ranking } = rankByAverage(def, byVisits, complete, field, query.sort?.dir ?? 'desc');
  const start = (query.page - 1) * query.top;
  const top = byVisits[0] && def.countField ? numberOf(byVisits[0], def.countField) : 0;
  return {
    rows: rows.slice(start, start + query.top),
    ...(byVisits.length > 0 ? { ranking } : {}),
    more: rows.length > start + query.top,
    ...(top > 0 ? { barMax: top } : {}),
  };
}
