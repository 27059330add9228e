/**
 * Date ranges in their canonical forms: the named ranges, the last N days and dates, what a
 * query keeps (`lastweek`, `last14d`, `2024-11-01..2024-11-28`), and their labels. Reading
 * what people type is range-words.ts; the dates a range resolves to, range-dates.ts. Pure.
 */
import { formatSpan, isIsoDate } from './dates.js';

/** The ranges with a name. The others are the last N days (`last14d`) and dates. */
export const NAMED_RANGES = [
  'today',
  'yesterday',
  'wtd',
  'lastweek',
  'mtd',
  'lastmonth',
  'ytd',
  'lastyear',
  'all',
] as const;
export type NamedRange = (typeof NAMED_RANGES)[number];

/** How many days "the last N days" may span: one day is `today`; past a year, dates or `all`. */
export const LAST_DAYS = { min: 2, max: 365 } as const;

/** The ranges menus and help offer, in order. */
export const RANGE_MENU = [
  'today',
  'yesterday',
  'last7d',
  'last30d',
  'last90d',
  'wtd',
  'lastweek',
  'mtd',
  'lastmonth',
  'ytd',
  'lastyear',
  'all',
] as const;

export const DEFAULT_RANGE = 'last7d';

export type Range =
  | { kind: 'named'; name: NamedRange }
  /** Today and the N − 1 days before it. */
  | { kind: 'days'; days: number }
  | { kind: 'dates'; start: string; end: string };

const NAMED_LABELS: Readonly<Record<NamedRange, string>> = {
  today: 'Today',
  yesterday: 'Yesterday',
  wtd: 'Week to date',
  lastweek: 'Last week',
  mtd: 'Month to date',
  lastmonth: 'Last month',
  ytd: 'Year to date',
  lastyear: 'Last year',
  all: 'All time',
};

/**
 * Other words for ranges, as read with spaces and hyphens taken out (so "this month",
 * "this-month" and "thismonth" are one); a named range's label reads as it too ("Month to
 * date"). "week" and "month" alone are rolling: the last 7 and 30 days.
 */
export const RANGE_ALIASES: Readonly<Record<string, string>> = {
  thisweek: 'wtd',
  thismonth: 'mtd',
  thisyear: 'ytd',
  week: 'last7d',
  month: 'last30d',
};

export const isNamedRange = (word: string): word is NamedRange => (NAMED_RANGES as readonly string[]).includes(word);

/** The canonical text of a range: `lastweek`, `last14d`, `2024-11-01..2024-11-28`, `2024-11-21`. */
export function canonicalRange(range: Range): string {
  switch (range.kind) {
    case 'named':
      return range.name;
    case 'days':
      return `last${range.days}d`;
    case 'dates':
      return range.start === range.end ? range.start : `${range.start}..${range.end}`;
  }
}

/** A range's label: "Last 7 days", "Month to date", "Nov 1 – Nov 28, 2024". */
export function labelOf(range: Range): string {
  switch (range.kind) {
    case 'named':
      return NAMED_LABELS[range.name];
    case 'days':
      return `Last ${range.days} days`;
    case 'dates':
      return formatSpan(range.start, range.end);
  }
}

/** A range in words, as menus and answers name it: "Last 7 days", "Month to date", "Nov 1 – Nov 28, 2024". */
export function rangeLabel(canonical: string): string {
  const range = readCanonicalRange(canonical);
  return range ? labelOf(range) : canonical;
}

/** How the accepted ranges are described in error and help messages. */
export const RANGE_HINT =
  `today, yesterday, last7d (any number of days from ${LAST_DAYS.min} to ${LAST_DAYS.max}: \`last 14 days\`), ` +
  'wtd (this week), lastweek, mtd (this month), lastmonth, ytd (this year), lastyear, all, YYYY-MM-DD..YYYY-MM-DD or one date YYYY-MM-DD';

/** A canonical range's parts; undefined for anything else (an alias too). */
export function readCanonicalRange(text: string): Range | undefined {
  if (isNamedRange(text)) return { kind: 'named', name: text };
  const days = /^last(\d{1,3})d$/.exec(text);
  if (days) {
    const n = Number(days[1]);
    return n >= LAST_DAYS.min && n <= LAST_DAYS.max && String(n) === days[1] ? { kind: 'days', days: n } : undefined;
  }
  const [start = '', end = start, ...more] = text.split('..');
  return more.length === 0 && isIsoDate(start) && isIsoDate(end) && start <= end
    ? { kind: 'dates', start, end }
    : undefined;
}
