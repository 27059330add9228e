/**
 * Range words → inclusive YYYY-MM-DD start and end dates in an IANA time zone.
 * Only "today" depends on the clock and the zone; the rest is calendar arithmetic
 * on day numbers (days since 1970-01-01), so DST never shifts a date.
 */
import { MONTHS, partsInZone } from './format.js';
import { code } from './text.js';

export const RANGE_WORDS = [
  'today',
  'yesterday',
  'last7d',
  'last30d',
  'last90d',
  'mtd',
  'lastmonth',
  'ytd',
  'all',
] as const;
export type RangeWord = (typeof RANGE_WORDS)[number];

export const DEFAULT_RANGE: RangeWord = 'last7d';

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

export const RANGE_LABELS: Readonly<Record<RangeWord, string>> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last7d: 'Last 7 days',
  last30d: 'Last 30 days',
  last90d: 'Last 90 days',
  mtd: 'Month to date',
  lastmonth: 'Last month',
  ytd: 'Year to date',
  all: 'All time',
};

/** Other words people type for the same ranges. "week" and "month" are rolling. */
export const RANGE_ALIASES: Readonly<Record<string, RangeWord>> = {
  '7d': 'last7d',
  last7: 'last7d',
  week: 'last7d',
  '30d': 'last30d',
  last30: 'last30d',
  month: 'last30d',
  '90d': 'last90d',
  last90: 'last90d',
  'last-month': 'lastmonth',
  thismonth: 'mtd',
  thisyear: 'ytd',
  alltime: 'all',
};

/** How the accepted ranges are described in error and help messages. */
export const RANGE_HINT = `${RANGE_WORDS.join(', ')}, YYYY-MM-DD..YYYY-MM-DD or one date YYYY-MM-DD`;

export interface DateRange {
  startDate: string;
  endDate: string;
  label: string;
}

export type RangeResult = { ok: true; range: DateRange } | { ok: false; error: string };
export type NormalizedRange = { ok: true; range: string } | { ok: false; error: string };

const DAY_MS = 86_400_000;
const ALL_START = '1970-01-01';
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

interface Ymd {
  y: number;
  m: number;
  d: number;
}

function daysInMonth(y: number, m: number): number {
  return [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][
    m - 1
  ] ?? 0;
}

function parseDate(text: string): Ymd | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  const y = Number(match[1]);
  const m = Number(match[2]);
  const d = Number(match[3]);
  if (y < 1000 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return undefined;
  return { y, m, d };
}

function dayNumber({ y, m, d }: Ymd): number {
  return Date.UTC(y, m - 1, d) / DAY_MS;
}

function fromDayNumber(n: number): Ymd {
  const date = new Date(n * DAY_MS);
  return { y: date.getUTCFullYear(), m: date.getUTCMonth() + 1, d: date.getUTCDate() };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function iso({ y, m, d }: Ymd): string {
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
}

function isRangeWord(word: string): word is RangeWord {
  return (RANGE_WORDS as readonly string[]).includes(word);
}

/** The canonical word for a range word or alias, case-insensitive. */
export function rangeWord(text: string): RangeWord | undefined {
  const word = text.trim().toLowerCase();
  if (isRangeWord(word)) return word;
  return Object.hasOwn(RANGE_ALIASES, word) ? RANGE_ALIASES[word] : undefined;
}

/**
 * Checks a range without resolving it: a word or alias becomes its canonical word,
 * `YYYY-MM-DD` and `YYYY-MM-DD..YYYY-MM-DD` stay as they are once they are real
 * calendar dates in order.
 */
export function normalizeRange(text: string): NormalizedRange {
  const trimmed = text.trim();
  const word = rangeWord(trimmed);
  if (word) return { ok: true, range: word };
  const parts = trimmed.split('..');
  if (parts.length > 2 || !parts.every((p) => /^\d+-/.test(p))) {
    return { ok: false, error: `Unknown range ${code(trimmed)}.` };
  }
  const dates: Ymd[] = [];
  for (const part of parts) {
    const date = parseDate(part);
    if (!date) {
      const what = DATE.test(part) ? 'is not a real date' : 'is not a date in the form YYYY-MM-DD';
      return { ok: false, error: `${code(part)} ${what}.` };
    }
    dates.push(date);
  }
  const [start, end = start] = dates as [Ymd, Ymd?];
  if (dayNumber(start) > dayNumber(end)) {
    return { ok: false, error: `The range ${code(trimmed)} starts after it ends.` };
  }
  return { ok: true, range: trimmed };
}

export function isValidTimeZone(timeZone: string): boolean {
  return typeof timeZone === 'string' && timeZone.length > 0 && partsInZone(new Date(0), timeZone) !== undefined;
}

/** The calendar date it is at `now` in `timeZone`, as YYYY-MM-DD. */
export function localDate(now: Date, timeZone: string): string | undefined {
  const parts = partsInZone(now, timeZone);
  if (!parts) return undefined;
  const { year, month, day } = parts;
  if (year === undefined || month === undefined || day === undefined) return undefined;
  return iso({ y: year, m: month, d: day });
}

function short({ m, d }: Ymd): string {
  return `${MONTHS[m - 1] ?? ''} ${d}`;
}

/** "Nov 21, 2026", "Nov 15 – Nov 21, 2026", "Dec 25, 2025 – Jan 3, 2026". */
export function formatSpan(startDate: string, endDate: string): string {
  const start = parseDate(startDate);
  const end = parseDate(endDate);
  if (!start || !end) return `${startDate} – ${endDate}`;
  if (startDate === endDate) return `${short(end)}, ${end.y}`;
  if (start.y === end.y) return `${short(start)} – ${short(end)}, ${end.y}`;
  return `${short(start)}, ${start.y} – ${short(end)}, ${end.y}`;
}

function span(start: Ymd, end: Ymd, word?: RangeWord): DateRange {
  const startDate = iso(start);
  const endDate = iso(end);
  const dates = formatSpan(startDate, endDate);
  const label = word === 'all' ? RANGE_LABELS.all : word ? `${RANGE_LABELS[word]} (${dates})` : dates;
  return { startDate, endDate, label };
}

function resolveWord(word: RangeWord, today: Ymd): DateRange {
  const t = dayNumber(today);
  const back = (days: number): Ymd => fromDayNumber(t - days);
  switch (word) {
    case 'today':
      return span(today, today, word);
    case 'yesterday':
      return span(back(1), back(1), word);
    case 'last7d':
      return span(back(6), today, word);
    case 'last30d':
      return span(back(29), today, word);
    case 'last90d':
      return span(back(89), today, word);
    case 'mtd':
      return span({ ...today, d: 1 }, today, word);
    case 'lastmonth': {
      const end = fromDayNumber(dayNumber({ ...today, d: 1 }) - 1);
      return span({ ...end, d: 1 }, end, word);
    }
    case 'ytd':
      return span({ y: today.y, m: 1, d: 1 }, today, word);
    case 'all': {
      const start = parseDate(ALL_START) as Ymd;
      return span(start, dayNumber(start) <= t ? today : start, word);
    }
  }
}

/**
 * Resolves a range (a word, an alias, a date or `start..end`; empty means last7d)
 * to dates in `timeZone` at the instant `now`.
 */
export function resolveRange(text: string | undefined, timeZone: string, now: Date): RangeResult {
  const normalized = normalizeRange(text === undefined || text.trim() === '' ? DEFAULT_RANGE : text);
  if (!normalized.ok) return normalized;
  const todayText = localDate(now, timeZone);
  if (todayText === undefined) {
    return {
      ok: false,
      error: isValidTimeZone(timeZone)
        ? 'The current time is not a valid date.'
        : `Unknown time zone ${code(String(timeZone))}; use an IANA name like Europe/Berlin.`,
    };
  }
  const today = parseDate(todayText);
  if (!today) return { ok: false, error: 'The current time is outside the supported calendar.' };
  const word = rangeWord(normalized.range);
  if (word) return { ok: true, range: resolveWord(word, today) };
  const [start = '', end = start] = normalized.range.split('..');
  return { ok: true, range: span(parseDate(start) as Ymd, parseDate(end) as Ymd) };
}

/** A word that reads as a range (a range word or something starting with a digit), valid or not. */
export function looksLikeRange(word: string | undefined): boolean {
  return word !== undefined && (rangeWord(word) !== undefined || /^\d/.test(word));
}

/** Number of days in a range, both ends included. */
export function rangeDays(range: Pick<DateRange, 'startDate' | 'endDate'>): number {
  const start = parseDate(range.startDate);
  const end = parseDate(range.endDate);
  return start && end ? dayNumber(end) - dayNumber(start) + 1 : 0;
}

/**
 * The range of the same number of days ending the day before `range` starts, for
 * "change against the previous period". A range that is not valid comes back as it is.
 */
export function previousPeriod(range: Pick<DateRange, 'startDate' | 'endDate'>): DateRange {
  const start = parseDate(range.startDate);
  const days = rangeDays(range);
  if (!start || days < 1) {
    return { startDate: range.startDate, endDate: range.endDate, label: formatSpan(range.startDate, range.endDate) };
  }
  const endDay = dayNumber(start) - 1;
  return span(fromDayNumber(endDay - days + 1), fromDayNumber(endDay));
}

/** The date `days` after (or before) an ISO date: `shiftDate('2026-03-01', -1)` is `2026-02-28`. */
export function shiftDate(date: string, days: number): string {
  const ymd = parseDate(date);
  return ymd ? iso(fromDayNumber(dayNumber(ymd) + days)) : date;
}

const QUARTER_HOUR_MS = 900_000;
const DAY_STARTS = new Map<string, number>();

/**
 * The instant (ms since the epoch) a calendar date begins in a zone: the first quarter
 * hour that is on that date there (offsets and clock changes fall on quarter hours).
 * Undefined for a date or zone that is not one.
 */
export function dayStart(date: string, timeZone: string): number | undefined {
  const key = `${timeZone}|${date}`;
  const known = DAY_STARTS.get(key);
  if (known !== undefined) return known;
  const ymd = parseDate(date);
  if (!ymd) return undefined;
  const utcMidnight = dayNumber(ymd) * DAY_MS;
  // Zones run from UTC−12 to UTC+14: a date begins within 15 hours either side of its UTC midnight.
  for (let t = utcMidnight - 15 * 3_600_000; t <= utcMidnight + 15 * 3_600_000; t += QUARTER_HOUR_MS) {
    const local = localDate(new Date(t), timeZone);
    if (local === undefined) return undefined;
    if (local >= date) {
      if (DAY_STARTS.size > 20_000) DAY_STARTS.clear();
      DAY_STARTS.set(key, t);
      return t;
    }
  }
  return undefined;
}

/** The date and wall-clock hour (0–23) an instant (ms) falls on in a zone; undefined for a bad instant or zone. */
export function hourAt(ms: number, timeZone: string): { date: string; hour: number } | undefined {
  if (!Number.isFinite(ms)) return undefined;
  const parts = partsInZone(new Date(ms), timeZone, true);
  if (!parts) return undefined;
  return { date: iso({ y: parts.year!, m: parts.month!, d: parts.day! }), hour: parts.hour! };
}

/** One wall-clock hour of a zone's date and the real instants it covers, [start, end). */
export interface HourSpan {
  hour: number;
  start: number;
  end: number;
  /** Real minutes: 60, or 30, 90 or 120 on a day the clocks change. */
  minutes: number;
}

const HOUR_SPANS = new Map<string, readonly HourSpan[]>();

/**
 * The wall-clock hours of a zone's date, in order, each with the real time it covers: 24
 * of 60 minutes on most days; on the day the clocks go forward the skipped hour is not
 * there (23 hours; 02:00 lasts 30 minutes where they move by half an hour), and on the day
 * they go back the repeated hour lasts 120 minutes (90 for half an hour). Undefined for a
 * date or zone that is not one.
 */
export function hourSpans(date: string, timeZone: string): readonly HourSpan[] | undefined {
  const key = `${timeZone}|${date}`;
  const known = HOUR_SPANS.get(key);
  if (known) return known;
  const start = dayStart(date, timeZone);
  const end = dayStart(shiftDate(date, 1), timeZone);
  if (start === undefined || end === undefined) return undefined;
  const spans: HourSpan[] = [];
  for (let t = start; t < end; t += QUARTER_HOUR_MS) {
    const at = hourAt(t, timeZone);
    if (!at || at.date !== date) continue;
    const { hour } = at;
    const span = spans.find((s) => s.hour === hour);
    if (span) {
      span.end = t + QUARTER_HOUR_MS;
      span.minutes += 15;
    } else spans.push({ hour, start: t, end: t + QUARTER_HOUR_MS, minutes: 15 });
  }
  spans.sort((a, b) => a.hour - b.hour);
  if (HOUR_SPANS.size > 5_000) HOUR_SPANS.clear();
  HOUR_SPANS.set(key, spans);
  return spans;
}

/** When a wall-clock hour of a zone's date is over: the start of the next hour there (an hour the clocks skipped is over when the skip happens). */
export function hourEnd(date: string, hour: number, timeZone: string): number | undefined {
  const spans = hourSpans(date, timeZone);
  if (!spans) return undefined;
  return spans.find((s) => s.hour > hour)?.start ?? dayStart(shiftDate(date, 1), timeZone);
}
