/**
 * Calendar dates (YYYY-MM-DD) and the hours of a day in an IANA time zone. Dates are
 * arithmetic on day numbers (days since 1970-01-01), so DST never shifts a date. The
 * words for ranges, and what they resolve to, are in when.ts.
 */
import { MONTHS, partsInZone } from './format.js';

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

export interface DateRange {
  startDate: string;
  endDate: string;
  label: string;
}

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

interface Ymd {
  y: number;
  m: number;
  d: number;
}

function daysInMonth(y: number, m: number): number {
  return (
    [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0
  );
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

/** A whole number zero-padded to `width` digits. */
export const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function iso({ y, m, d }: Ymd): string {
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
}

/** A real calendar date written YYYY-MM-DD (year 1000 or later). */
export function isIsoDate(text: string): boolean {
  return parseDate(text) !== undefined;
}

/** The day of the week of a YYYY-MM-DD date, 0 (Sunday) to 6; undefined for a date that is not one. */
export function weekdayOf(date: string): number | undefined {
  const ymd = parseDate(date);
  return ymd ? (dayNumber(ymd) + 4) % 7 : undefined; // 1970-01-01 was a Thursday.
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

/**
 * A span within a chart's 20 characters: "Nov 27, 2026", "Nov 21–27, 2026", "Nov 28–Dec 4, 2026";
 * across years by months ("Dec 2025–Jan 2026"): a chart's figures in words give its dates whole.
 */
export function compactSpan(startDate: string, endDate: string): string {
  const start = parseDate(startDate);
  const end = parseDate(endDate);
  if (!start || !end) return `${startDate}–${endDate}`;
  if (startDate === endDate) return `${short(end)}, ${end.y}`;
  if (start.y !== end.y) return `${MONTHS[start.m - 1] ?? ''} ${start.y}–${MONTHS[end.m - 1] ?? ''} ${end.y}`;
  if (start.m === end.m) return `${short(start)}–${end.d}, ${end.y}`;
  return `${short(start)}–${short(end)}, ${end.y}`;
}

/** The reader's zone (their hours, times and the ranges they ask for) and the zone the API counts its days in. */
export interface Zones {
  timeZone: string;
  apiZone: string;
}

/**
 * The API's days named as what they are, wherever a figure is one of them: the API counts
 * its dates in its own zone (ANALYTICS_API_TIMEZONE), not the reader's. "days in UTC, as
 * the analytics API counts them".
 */
export function apiDaysWords(apiZone: string): string {
  return `days in ${apiZone}, as the analytics API counts them`;
}

/** One of the API's days, after its date: "in UTC, as the analytics API counts days". */
export function apiDayWords(apiZone: string): string {
  return `in ${apiZone}, as the analytics API counts days`;
}

function span(start: Ymd, end: Ymd): DateRange {
  const startDate = iso(start);
  const endDate = iso(end);
  return { startDate, endDate, label: formatSpan(startDate, endDate) };
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

/** A day of the week as ISO numbers it: Monday 1 … Sunday 7. */
export type Weekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;
/** Weeks start on Monday unless a locale says otherwise. */
export const DEFAULT_WEEK_START: Weekday = 1;

/** A locale Intl knows (`en-GB`, `de-DE`). */
export function isLocale(locale: string): boolean {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([locale]).length > 0;
  } catch {
    return false;
  }
}

/** The first day of the week in a locale (`en-US`: Sunday, `de-DE`: Monday); Monday when it does not say. */
export function weekStartOf(locale: string | undefined): Weekday {
  if (!locale) return DEFAULT_WEEK_START;
  try {
    const info = new Intl.Locale(locale) as Intl.Locale & {
      weekInfo?: { firstDay?: number };
      getWeekInfo?: () => { firstDay?: number };
    };
    const first = info.getWeekInfo?.().firstDay ?? info.weekInfo?.firstDay;
    return first !== undefined && first >= 1 && first <= 7 ? (first as Weekday) : DEFAULT_WEEK_START;
  } catch {
    return DEFAULT_WEEK_START;
  }
}

/** The first day of the week `date` is in. */
export function weekOf(date: string, weekStart: Weekday): string {
  return shiftDate(date, -(((weekdayOf(date) ?? weekStart) - weekStart + 7) % 7));
}

/** The API's dates a day of the zone lies in (the API's days need not be the zone's). */
export function apiDatesOf(day: string, timeZone: string, apiZone: string): { startDate: string; endDate: string } {
  const start = dayStart(day, timeZone);
  const end = dayStart(shiftDate(day, 1), timeZone);
  const first = start === undefined ? undefined : localDate(new Date(start), apiZone);
  const last = end === undefined ? undefined : localDate(new Date(end - 1), apiZone);
  return first && last
    ? { startDate: first, endDate: last }
    : { startDate: shiftDate(day, -1), endDate: shiftDate(day, 1) };
}
