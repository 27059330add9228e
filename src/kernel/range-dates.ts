/** The dates a range resolves to, in a time zone at an instant ("Last 7 days (Nov 15 – Nov 21, 2026)"). Pure. */
import {
  DEFAULT_WEEK_START,
  formatSpan,
  isIsoDate,
  isValidTimeZone,
  localDate,
  pad,
  shiftDate,
  weekOf,
  type DateRange,
  type Weekday,
} from './dates.js';
import { normalizeRange } from './range-words.js';
import { DEFAULT_RANGE, labelOf, readCanonicalRange, type Range } from './ranges.js';
import { code } from './text.js';

export type RangeResult = { ok: true; range: DateRange } | { ok: false; error: string };

const ALL_START = '1970-01-01';

function startEnd(range: Range, today: string, weekStart: Weekday): [string, string] {
  const back = (days: number) => shiftDate(today, -days);
  if (range.kind === 'days') return [back(range.days - 1), today];
  if (range.kind === 'dates') return [range.start, range.end];
  const weekBegan = weekOf(today, weekStart);
  const year = Number(today.slice(0, 4));
  switch (range.name) {
    case 'today':
      return [today, today];
    case 'yesterday':
      return [back(1), back(1)];
    case 'wtd':
      return [weekBegan, today];
    case 'lastweek':
      return [shiftDate(weekBegan, -7), shiftDate(weekBegan, -1)];
    case 'mtd':
      return [`${today.slice(0, 8)}01`, today];
    case 'lastmonth': {
      const end = shiftDate(`${today.slice(0, 8)}01`, -1);
      return [`${end.slice(0, 8)}01`, end];
    }
    case 'ytd':
      return [`${today.slice(0, 4)}-01-01`, today];
    case 'lastyear':
      return [`${pad(year - 1, 4)}-01-01`, `${pad(year - 1, 4)}-12-31`];
    case 'all':
      return [ALL_START, ALL_START <= today ? today : ALL_START];
  }
}

/**
 * Resolves a range (any form; empty means last7d) to dates in `timeZone` at the instant
 * `now`, labelled "Last 7 days (Nov 15 – Nov 21, 2026)".
 */
export function resolveRange(
  text: string | undefined,
  timeZone: string,
  now: Date,
  weekStart: Weekday = DEFAULT_WEEK_START,
): RangeResult {
  const normalized = normalizeRange(text === undefined || text.trim() === '' ? DEFAULT_RANGE : text);
  if (!normalized.ok) return normalized;
  const today = localDate(now, timeZone);
  if (today === undefined) {
    return {
      ok: false,
      error: isValidTimeZone(timeZone)
        ? 'The current time is not a valid date.'
        : `Unknown time zone ${code(String(timeZone))}; use an IANA name like Europe/Berlin.`,
    };
  }
  if (!isIsoDate(today)) return { ok: false, error: 'The current time is outside the supported calendar.' };
  const range = readCanonicalRange(normalized.range)!;
  const [startDate, endDate] = startEnd(range, today, weekStart);
  const dates = formatSpan(startDate, endDate);
  const label =
    range.kind === 'dates'
      ? dates
      : range.kind === 'named' && range.name === 'all'
        ? labelOf(range)
        : `${labelOf(range)} (${dates})`;
  return { ok: true, range: { startDate, endDate, label } };
}
