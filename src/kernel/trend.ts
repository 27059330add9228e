/**
 * A trend's periods: the buckets a range is cut into (hours of one day, days, or weeks
 * past 90 days), the previous period's buckets beside them, and when a bucket's figures
 * are final at the API and how they are kept. Pure: calendar arithmetic on ISO dates.
 */
import type { ReportId } from './catalog.js';
import { REPORTS } from './catalog.js';
import {
  apiDaysWords,
  dayStart,
  DEFAULT_WEEK_START,
  hourAt,
  hourEnd,
  previousPeriod,
  rangeDays,
  shiftDate,
  weekOf,
  type DateRange,
  type Weekday,
  type Zones,
} from './dates.js';

import type { FilterGroup } from './filters.js';
import { MONTHS } from './format.js';

export type Grain = 'hour' | 'day' | 'week';
export type TrendMetric = 'visits' | 'unique';
export const TREND_METRICS: readonly TrendMetric[] = ['visits', 'unique'];

/** Days up to which a trend goes by day; longer ranges go by week. */
export const DAILY_UP_TO = 90;
/** The most weeks a trend shows: a longer range (`all`) shows its last weeks. */
export const MAX_WEEKS = 53;

export interface Bucket {
  /** What the store keys it on: `2026-11-21`, `2026-11-21T09` or `W2026-11-16` (the week's first day). */
  key: string;
  /** The day (or, for a week, the first and last days) the API is asked about. */
  startDate: string;
  endDate: string;
  /** The hour of `startDate`, for an hourly bucket. */
  hour?: number;
  /** The x-axis category: ≤ 20 characters. */
  label: string;
}

export interface TrendPlan {
  grain: Grain;
  /** The range actually charted: `range`, or its last MAX_WEEKS weeks. */
  range: DateRange;
  clipped: boolean;
  buckets: Bucket[];
  /** The previous period's buckets, one for each of `buckets`. */
  previous: Bucket[];
}

export function dayLabel(date: string): string {
  const month = MONTHS[Number(date.slice(5, 7)) - 1] ?? date.slice(5, 7);
  return `${month} ${Number(date.slice(8, 10))}`;
}

/** The 24 hourly buckets of a day. */
export function hoursOf(date: string): Bucket[] {
  return Array.from({ length: 24 }, (_, h) => {
    const hh = String(h).padStart(2, '0');
    return { key: `${date}T${hh}`, startDate: date, endDate: date, hour: h, label: `${hh}:00` };
  });
}

function days(range: Pick<DateRange, 'startDate' | 'endDate'>): Bucket[] {
  const out: Bucket[] = [];
  for (let d = range.startDate; d <= range.endDate; d = shiftDate(d, 1))
    out.push({ key: d, startDate: d, endDate: d, label: dayLabel(d) });
  return out;
}

/** A week's label: its first day, or its days when the range holds only part of it. */
function weekLabel(start: string, end: string): string {
  if (rangeDays({ startDate: start, endDate: end }) >= 7) return dayLabel(start);
  if (start === end) return `${dayLabel(start)} (part)`;
  const last = start.slice(0, 7) === end.slice(0, 7) ? String(Number(end.slice(8, 10))) : dayLabel(end);
  return `${dayLabel(start)}–${last} (part)`;
}

/** The range cut into the locale's weeks: the first and last may be part of a week, and say so. */
function weeks(range: Pick<DateRange, 'startDate' | 'endDate'>, weekStart: Weekday): Bucket[] {
  const out: Bucket[] = [];
  for (let d = range.startDate; d <= range.endDate; d = shiftDate(weekOf(d, weekStart), 7)) {
    const last = shiftDate(weekOf(d, weekStart), 6);
    const end = last < range.endDate ? last : range.endDate;
    out.push({ key: `W${d}..${end}`, startDate: d, endDate: end, label: weekLabel(d, end) });
  }
  return out;
}

/** The previous period's weeks: each of `buckets` as many days earlier as the charted range is long. */
function weeksBefore(buckets: readonly Bucket[], days: number): Bucket[] {
  return buckets.map((b) => {
    const startDate = shiftDate(b.startDate, -days);
    const endDate = shiftDate(b.endDate, -days);
    return { key: `W${startDate}..${endDate}`, startDate, endDate, label: weekLabel(startDate, endDate) };
  });
}

/**
 * How a range is charted: by hour for one day, by day up to 90 days, by the locale's weeks
 * beyond (at most MAX_WEEKS of them: a longer range shows its last ones, from a whole week).
 * The previous period is the same number of days just before, bucket for bucket.
 */
export function planTrend(range: DateRange, weekStart: Weekday = DEFAULT_WEEK_START): TrendPlan {
  const length = rangeDays(range);
  if (length <= 1) {
    const previous = shiftDate(range.startDate, -1);
    return { grain: 'hour', range, clipped: false, buckets: hoursOf(range.startDate), previous: hoursOf(previous) };
  }
  if (length <= DAILY_UP_TO) {
    return { grain: 'day', range, clipped: false, buckets: days(range), previous: days(previousPeriod(range)) };
  }
  const firstKept = shiftDate(weekOf(range.endDate, weekStart), -(MAX_WEEKS - 1) * 7);
  const clipped = range.startDate < firstKept;
  const charted: DateRange = clipped ? { ...range, startDate: firstKept } : range;
  const buckets = weeks(charted, weekStart);
  return { grain: 'week', range: charted, clipped, buckets, previous: weeksBefore(buckets, rangeDays(charted)) };
}

/** The zone the API's dates are in, and how long after a period ends its figures take to settle there. */
export interface ApiDays {
  timeZone: string;
  settleMs: number;
}

/**
 * When a bucket's figures are final at the API (ms since the epoch): a day or week once the
 * API's own last day of it has ended, an hour of the zone (counted from visit records by
 * their time) once it has ended; either plus the settling margin. Undefined for a bad date
 * or zone.
 */
export function finalAt(bucket: Bucket, timeZone: string, api: ApiDays): number | undefined {
  const end =
    bucket.hour !== undefined
      ? hourEnd(bucket.startDate, bucket.hour, timeZone)
      : dayStart(shiftDate(bucket.endDate, 1), api.timeZone);
  return end === undefined ? undefined : end + api.settleMs;
}

/**
 * A period younger than this (past its finality) when fetched is provisional: it is asked
 * again, once, at this age. A first read not confirmed whole waits as long after it was read.
 */
export const YOUNG_MS = 3 * 86_400_000;

/**
 * How a period's figure is kept: final, or provisional until `recheckAt` (ms); a suspect one is
 * not to be judged by. `confirmed`: its answer is known whole (the row past its last page was
 * asked for and was not there, or a re-check found the same figure); a first read is not.
 */
export interface Keeping {
  final: boolean;
  suspect: boolean;
  confirmed: boolean;
  recheckAt?: number;
}

/**
 * How a complete answer for a period final at the API is kept. An empty answer is
 * suspect unless it is corroborated (the figure kept before was 0, or a period beside it
 * is empty too): it is asked again once the settling margin has passed again. A period
 * younger than YOUNG_MS is provisional, asked again once at that age. An answer not
 * confirmed whole is provisional too, asked again YOUNG_MS after it was read. The rest is
 * final.
 */
export function keeping(answer: {
  empty: boolean;
  corroborated: boolean;
  confirmed: boolean;
  now: number;
  finalAt: number;
  settleMs: number;
}): Keeping {
  const { confirmed, now } = answer;
  // Not sooner than a minute: answers are shared for that long.
  if (answer.empty && !answer.corroborated)
    return { final: false, suspect: true, confirmed, recheckAt: now + Math.max(answer.settleMs, 60_000) };
  const settled = answer.finalAt + YOUNG_MS;
  if (now < settled) return { final: false, suspect: false, confirmed, recheckAt: settled };
  if (!confirmed) return { final: false, suspect: false, confirmed, recheckAt: now + YOUNG_MS };
  return { final: true, suspect: false, confirmed };
}

/**
 * Whether a period's visits look cut short beside its neighbours' (the periods just before
 * and after it, over at the API): under half of each. A first read that does is asked again
 * at once, whole, rather than kept.
 */
export function looksShort(visits: number, beside: readonly number[]): boolean {
  return beside.length > 0 && beside.every((n) => visits * 2 < n);
}

/**
 * The zone a grain's buckets are in, in words: hours are the reader's zone's (Lookout counts
 * them from visits by their time), days and weeks are the API's days.
 */
export function bucketsWords(grain: Grain, zones: Zones): string {
  return grain === 'hour' ? `hours in ${zones.timeZone}` : apiDaysWords(zones.apiZone);
}

/** The x-axis title for a grain. */
export function grainLabel(grain: Grain): string {
  return grain === 'hour' ? 'Hour' : grain === 'day' ? 'Day' : 'Week starting';
}

export function metricLabel(metric: TrendMetric): string {
  return metric === 'visits' ? 'Visits' : 'Unique visitors';
}

export interface Series {
  values: number[];
  total: number;
  peak?: { label: string; value: number };
}

/** A series' total and its highest bucket. */
export function summarize(values: readonly number[], buckets: readonly Bucket[]): Series {
  let peak: Series['peak'];
  values.forEach((value, i) => {
    if (value > 0 && (!peak || value > peak.value)) peak = { label: buckets[i]!.label, value };
  });
  return { values: [...values], total: values.reduce((n, v) => n + v, 0), ...(peak ? { peak } : {}) };
}

/** What a trend charts: a report's rows (with filters) summed per period. */
export interface TrendSpec {
  report: ReportId;
  filters: FilterGroup[];
  metric: TrendMetric;
  range: DateRange;
  timeZone: string;
}

export interface Trend {
  plan: TrendPlan;
  current: Series;
  previous: Series;
  /** The report whose rows were summed. */
  source: ReportId;
  /** The last bucket is not over yet (its figure is live). */
  partial: boolean;
  /** How many of the period's buckets have begun: those after them are not drawn (absent: all). */
  begun?: number;
}

/** How many of `buckets` (in order) have begun by `now` in `timeZone`: an hour, a day or a week that has not started is not data yet. */
export function begunCount(buckets: readonly Bucket[], now: Date, timeZone: string): number {
  const here = hourAt(now.getTime(), timeZone);
  if (!here) return buckets.length;
  const begun = (b: Bucket) =>
    b.startDate < here.date || (b.startDate === here.date && (b.hour === undefined || b.hour <= here.hour));
  let n = 0;
  while (n < buckets.length && begun(buckets[n]!)) n++;
  return n;
}

/**
 * The report whose rows are summed for a trend. Visits and visitors have no counts of
 * their own: every visit has one country, so the countries report sums to the total.
 */
export function trendSource(report: ReportId): ReportId {
  const kind = REPORTS[report].kind;
  return kind === 'visits' || kind === 'visitors' ? 'countries' : report;
}

export function defaultMetric(report: ReportId): TrendMetric {
  return report === 'visitors' ? 'unique' : 'visits';
}

/** The action of every Trend button (report answers, visitor cards). */
export const TREND_ACTION = 'trend.open';

/**
 * The action of every "Back to card" button, on a trend or a table opened from a visitor
 * card: its value is the card's ref (`v1|…`), which the card's own handler checks.
 */
export const BACK_TO_CARD_ACTION = 'visitor.back';

const CARD_MARK = '|v1|';

/** A button value that also carries the card to go back to: `<value>|v1|…`. */
export function withBack(value: string, back: string | undefined): string {
  return back ? `${value}|${back}` : value;
}

/** A button value and the card it carries, if any (the card's ref is checked when it is used). */
export function splitBack(value: unknown): { value: string; back?: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const at = value.indexOf(CARD_MARK);
  return at < 0 ? { value } : { value: value.slice(0, at), back: value.slice(at + 1) };
}

/** A Trend button's value: the metric and where the query is (`t|v|q1.…`), and the card it was opened from. */
export function encodeTrendRef(metric: TrendMetric, ref: string, back?: string): string {
  return withBack(`t|${metric === 'unique' ? 'u' : 'v'}|${ref}`, back);
}

export function decodeTrendRef(value: unknown): { metric: TrendMetric; ref: string; back?: string } | undefined {
  const split = splitBack(value);
  const match = split && /^t\|([vu])\|([^|]{1,2000})$/s.exec(split.value);
  return match
    ? { metric: match[1] === 'u' ? 'unique' : 'visits', ref: match[2]!, ...(split.back ? { back: split.back } : {}) }
    : undefined;
}
