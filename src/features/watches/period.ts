/**
 * A watch's periods: the hour or day it judges at an instant, the one before, their real
 * length across clock changes, their trend buckets and their names in words. Pure.
 */
import {
  apiDayWords,
  dayStart,
  formatSpan,
  hourAt,
  hourEnd,
  hourSpans,
  shiftDate,
  type DateRange,
  type Zones,
} from '../../kernel/dates.js';
import { dayLabel, finalAt, type ApiDays, type Bucket } from '../../kernel/trend.js';
import type { WatchEvery } from './plan.js';

/** The period a watch judges at an instant: the last hour or day in its zone that is final at the API. */
export interface WatchPeriod {
  /** `2026-11-23T09` or `2026-11-22`: also the trend bucket key. */
  key: string;
  date: string;
  hour?: number;
  /** When it may be judged (ms): it is over in the zone and its figures are final at the API. */
  dueAt: number;
  /** How long ago that was, in ms: evaluations are spread over the time after it. */
  elapsedMs: number;
}

/** How long a watch waits for figures that are not settled before it records the period as unknown: within the period's turn. */
export const SETTLE_WAIT_MS: Readonly<Record<WatchEvery, number>> = { hour: 30 * 60_000, day: 2 * 3_600_000 };

export type Period = Pick<WatchPeriod, 'date' | 'hour'>;

export const keyOf = (p: Period) => (p.hour === undefined ? p.date : `${p.date}T${String(p.hour).padStart(2, '0')}`);

/** The trend bucket of a period `daysBack` days before it (the same hour of that day). */
export function periodBucket(period: Period, daysBack = 0): Bucket {
  const date = shiftDate(period.date, -daysBack);
  if (period.hour === undefined) return { key: date, startDate: date, endDate: date, label: dayLabel(date) };
  const hh = String(period.hour).padStart(2, '0');
  return { key: `${date}T${hh}`, startDate: date, endDate: date, hour: period.hour, label: `${hh}:00` };
}

/**
 * The period before: the day before, or the real hour before. Across a clock change that
 * is the hour that was before it in time: 01:00 is the hour before 03:00 on the day the
 * clocks skip 02:00, and the doubled 02:00 the hour before 03:00 on the day they repeat it.
 */
export function periodBefore(period: Period, timeZone: string): Period {
  if (period.hour === undefined) return { date: shiftDate(period.date, -1) };
  const span = hourSpans(period.date, timeZone)?.find((s) => s.hour === period.hour);
  const before = span ? hourAt(span.start - 1, timeZone) : undefined;
  if (before) return before;
  return period.hour === 0
    ? { date: shiftDate(period.date, -1), hour: 23 }
    : { date: period.date, hour: period.hour - 1 };
}

/** The minutes of a standard period: an hour's 60, a day's 1,440. */
export const standardMinutes = (period: Period) => (period.hour === undefined ? 1_440 : 60);

/**
 * The real minutes of a period: an hour of the zone is 60, or on the day its clocks change
 * 0 (skipped), 30, 90 or 120; a day is the API's day, 1,440 unless the API's own zone
 * changes its clocks.
 */
export function periodMinutes(period: Period, timeZone: string, api: ApiDays): number {
  if (period.hour !== undefined)
    return hourSpans(period.date, timeZone)?.find((s) => s.hour === period.hour)?.minutes ?? 0;
  const start = dayStart(period.date, api.timeZone);
  const end = dayStart(shiftDate(period.date, 1), api.timeZone);
  return start === undefined || end === undefined ? 1_440 : (end - start) / 60_000;
}

/**
 * A period with the zone it is in: "02:00–03:00 on Oct 25 (Europe/Berlin)", an hour of the
 * watch's zone (counted from visits by their time); "on Nov 22 (in UTC, as the analytics API
 * counts days)", a day, whose figures are the API's day. `note` joins the parenthesis.
 */
export function periodLabel(period: Period, zones: Zones, note?: string): string {
  const more = note ? `; ${note}` : '';
  if (period.hour === undefined) return `on ${dayLabel(period.date)} (${apiDayWords(zones.apiZone)}${more})`;
  const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
  return `${hh(period.hour)}–${hh(period.hour + 1)} on ${dayLabel(period.date)} (${zones.timeZone}${more})`;
}

/**
 * The periods an alert's chart shows: the judged hour's day up to that hour, or the 7 days up
 * to the judged day. Only complete periods: the one still going would be drawn as a fall.
 */
export function chartPeriods(period: Period): { range: DateRange; shown: number } {
  const startDate = period.hour === undefined ? shiftDate(period.date, -6) : period.date;
  const range = { startDate, endDate: period.date, label: formatSpan(startDate, period.date) };
  return { range, shown: period.hour === undefined ? 7 : period.hour + 1 };
}

/** The periods an alert's chart of the usual shows, as `chartPeriods`: the judged hour's day up to it, or the 7 days up to the judged day. */
export function chartPeriodList(period: Period, timeZone: string): Period[] {
  if (period.hour === undefined) return Array.from({ length: 7 }, (_, i) => ({ date: shiftDate(period.date, i - 6) }));
  const hours = [...new Set((hourSpans(period.date, timeZone) ?? []).map((s) => s.hour))];
  return hours.filter((h) => h <= period.hour!).map((hour) => ({ date: period.date, hour }));
}

/** What a watch judges, in words for its confirmation: "the last complete hour (Europe/Berlin)". */
export function judgedWords(every: WatchEvery, zones: Zones): string {
  return every === 'hour'
    ? `the last complete hour (${zones.timeZone})`
    : `the last complete day (${apiDayWords(zones.apiZone)})`;
}

/**
 * The period to judge at `now`: the last complete hour (a real hour: just after 03:00 on
 * the day the clocks skip 02:00, it is 01:00) or day in the zone, or an earlier one while
 * the API has not finished it (its day is still open there, or within the settling
 * margin). Undefined for a zone that is not one.
 */
export function lastPeriod(every: WatchEvery, timeZone: string, now: Date, api: ApiDays): WatchPeriod | undefined {
  const current = hourAt(now.getTime(), timeZone);
  if (!current) return undefined;
  let period: Period = every === 'day' ? { date: current.date } : current;
  // A day is at most a day and a half behind the API's; an hour, the settling margin (at most a day).
  for (let i = 0; i < 48; i++) {
    period = periodBefore(period, timeZone);
    const due = dueAtOf(period, timeZone, api);
    if (due === undefined) return undefined;
    if (due <= now.getTime()) return duePeriod(period, due, now);
  }
  return undefined;
}

/** A period someone names (a day, or an hour of `timeZone`'s), once it is over and final at the API; undefined before. */
export function namedPeriod(period: Period, timeZone: string, now: Date, api: ApiDays): WatchPeriod | undefined {
  const due = dueAtOf(period, timeZone, api);
  return due === undefined || due > now.getTime() ? undefined : duePeriod(period, due, now);
}

/** When a period is over in `timeZone` and final at the API (ms); undefined for a zone that is not one. */
function dueAtOf(period: Period, timeZone: string, api: ApiDays): number | undefined {
  const final = finalAt(periodBucket(period), timeZone, api);
  const over =
    period.hour === undefined
      ? dayStart(shiftDate(period.date, 1), timeZone)
      : hourEnd(period.date, period.hour, timeZone);
  return final === undefined || over === undefined ? undefined : Math.max(final, over);
}

function duePeriod(period: Period, dueAt: number, now: Date): WatchPeriod {
  return { ...period, key: keyOf(period), dueAt, elapsedMs: now.getTime() - dueAt };
}

/** A watch's place in the spread: evaluations of a period start over its first `spreadMs`, each watch at its own offset. */
export function spreadOffset(id: number, spreadMs: number): number {
  if (spreadMs <= 0) return 0;
  // Knuth's multiplicative hash spreads consecutive ids evenly.
  return ((id * 2654435761) >>> 0) % spreadMs;
}
