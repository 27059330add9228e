/**
 * What a watch is, and the decision at each period: breach, update (still breaching),
 * recover, ok or unknown. Pure: a function of the watch's rule, its state and what was
 * observed. Hysteresis keeps a value hovering at the edge from flapping: a watch breaches
 * at its threshold but recovers only once the value is back past a band beyond it.
 */
import type { ReportId } from '../../kernel/catalog.js';
import {
  apiDayWords,
  dayStart,
  formatSpan,
  hourAt,
  hourEnd,
  hourSpans,
  shiftDate,
  WEEKDAYS,
  type DateRange,
  type Zones,
} from '../../kernel/dates.js';
import type { FilterGroup } from '../../kernel/filters.js';
import { counted, formatCount } from '../../kernel/format.js';
import { dayLabel, finalAt, type ApiDays, type Bucket } from '../../kernel/trend.js';

export type WatchMetric = 'visits' | 'unique' | 'bots';
/** Whose visits a `visits` watch counts: by people (visitors the threat scan did not flag), or by bots (those it flagged). */
export type WatchWho = 'people' | 'bots';
export type WatchEvery = 'hour' | 'day';

export type Condition =
  | { kind: 'above' | 'below'; value: number }
  | { kind: 'change'; direction: 'drops' | 'rises'; pct: number; against: 'previous' | 'last_week' }
  | { kind: 'spike' }
  | { kind: 'new'; top: number };

export interface WatchRule {
  metric: WatchMetric;
  /** With `visits` only: whose visits count (all when absent). */
  who?: WatchWho;
  /** `visits`: all visits (no report named). */
  report: ReportId;
  filters: FilterGroup[];
  condition: Condition;
  every: WatchEvery;
}

/**
 * What was measured for one period. `baseline` is what a change or a spike is measured
 * against. `wait`: the figures are not settled yet (a suspect empty answer, a partial one):
 * the period is judged again shortly rather than recorded.
 */
export type Observation =
  | { ok: true; value: number; baseline?: number; entries?: string[]; label: string; baselineLabel?: string }
  | { ok: false; error: string; wait?: boolean };

export type WatchState = 'ok' | 'breaching';
export type DecisionKind = 'breach' | 'update' | 'recover' | 'ok' | 'unknown';

/** The band past the threshold a value must clear to recover: 10% of an absolute threshold, a quarter of a change. */
export const HYSTERESIS = { absolute: 0.1, change: 0.25 } as const;
/** A spike: at least this many times the usual value, and at least SPIKE_MIN more; it recovers below SPIKE_RECOVER times. */
export const SPIKE_RATIO = 3;
export const SPIKE_RECOVER = 2;
export const SPIKE_MIN = 10;
/** Weeks of the same hour (or weekday) a spike is measured against. */
export const SPIKE_WEEKS = 4;
/** A row entering this many top rows counts as new. */
export const NEW_TOP = 10;

/** The relative change in percent, or undefined when there is nothing to compare with. */
export function changePct(value: number, baseline: number | undefined): number | undefined {
  return baseline === undefined || baseline <= 0 ? undefined : ((value - baseline) / baseline) * 100;
}

/** Is the condition met (breached) by this observation? Undefined: it cannot be told (no baseline). */
function breached(c: Condition, o: Extract<Observation, { ok: true }>): boolean | undefined {
  switch (c.kind) {
    case 'above':
      return o.value > c.value;
    case 'below':
      return o.value < c.value;
    case 'change': {
      const pct = changePct(o.value, o.baseline);
      if (pct === undefined) return undefined;
      return c.direction === 'drops' ? pct <= -c.pct : pct >= c.pct;
    }
    case 'spike':
      if (o.baseline === undefined) return undefined;
      return o.value >= SPIKE_RATIO * o.baseline && o.value - o.baseline >= SPIKE_MIN;
    case 'new':
      return (o.entries?.length ?? 0) > 0;
  }
}

/** Is the value back past the band (recovered)? Undefined: it cannot be told. */
function recovered(c: Condition, o: Extract<Observation, { ok: true }>): boolean | undefined {
  switch (c.kind) {
    case 'above':
      return o.value <= c.value * (1 - HYSTERESIS.absolute);
    case 'below':
      return o.value >= c.value * (1 + HYSTERESIS.absolute);
    case 'change': {
      const pct = changePct(o.value, o.baseline);
      if (pct === undefined) return undefined;
      const band = c.pct * (1 - HYSTERESIS.change);
      return c.direction === 'drops' ? pct > -band : pct < band;
    }
    case 'spike':
      if (o.baseline === undefined) return undefined;
      return o.value < SPIKE_RECOVER * o.baseline || o.value - o.baseline < SPIKE_MIN;
    case 'new':
      return (o.entries?.length ?? 0) === 0;
  }
}

/**
 * The decision for one period. Missing data (an API failure, nothing to compare with) is
 * `unknown` and changes nothing: never a breach, never a recovery.
 */
export function decide(condition: Condition, state: WatchState, observation: Observation): DecisionKind {
  if (!observation.ok) return 'unknown';
  if (state === 'breaching') {
    const back = recovered(condition, observation);
    return back === undefined ? 'unknown' : back ? 'recover' : 'update';
  }
  const hit = breached(condition, observation);
  return hit === undefined ? 'unknown' : hit ? 'breach' : 'ok';
}

export function metricNoun(metric: WatchMetric, who?: WatchWho): string {
  return metric === 'visits'
    ? who
      ? `visits by ${who}`
      : 'visits'
    : metric === 'unique'
      ? 'unique visitors'
      : 'share of visits by flagged visitors';
}

function amount(metric: WatchMetric, n: number): string {
  return metric === 'bots' ? `${Math.round(n * 10) / 10}%` : formatCount(Math.round(n));
}

/** The rule in words, as the confirmation, the list, the Home and the alert say it: "visits below 100 a day", "visits drop by 40% or more against the same day last week". */
export function describeRule(rule: WatchRule): string {
  const noun = metricNoun(rule.metric, rule.who);
  const c = rule.condition;
  const per = rule.every === 'hour' ? 'an hour' : 'a day';
  switch (c.kind) {
    case 'above':
    case 'below':
      return `${noun} ${c.kind} ${amount(rule.metric, c.value)}${rule.metric === 'bots' ? ' in an hour' : ` ${per}`}`;
    case 'change': {
      // The verb agrees with the noun: "visits drop", "the share … drops" (a breach is a change of at least pct).
      const verb = rule.metric === 'bots' ? c.direction : c.direction === 'drops' ? 'drop' : 'rise';
      return `${noun} ${verb} by ${c.pct}% or more against ${c.against === 'last_week' ? `the same ${rule.every} last week` : `the ${rule.every} before`}`;
    }
    case 'spike':
      return `${noun} spike: ${SPIKE_RATIO}× the usual ${rule.every === 'hour' ? 'hour' : 'weekday'} (the median of the ${SPIKE_WEEKS} weeks before)`;
    case 'new':
      return `a new entry in the top ${c.top} by ${noun}`;
  }
}

/** A figure with its noun: "1 visit", "408 visits", "2 unique visitors", "12.5% of visits by flagged visitors". */
function figure(metric: WatchMetric, n: number, who?: WatchWho): string {
  if (metric === 'bots') return `${amount(metric, n)} of visits by flagged visitors`;
  if (metric === 'unique') return counted(Math.round(n), 'unique visitor');
  return `${counted(Math.round(n), 'visit')}${who ? ` by ${who}` : ''}`;
}

/**
 * What was seen, against the rule, in words that agree with the decision: "85 visits on
 * Nov 22 (in UTC, as the analytics API counts days), below 100 (back to normal at 110 or
 * more)" for a breach, "120 visits on Nov 22 (…), not below 100" when all is well. Nothing
 * said beside "ok" reads as a breach.
 */
export function describeObservation(
  rule: WatchRule,
  o: Extract<Observation, { ok: true }>,
  kind: DecisionKind,
): string {
  const c = rule.condition;
  const seen = `${figure(rule.metric, o.value, rule.who)} ${o.label}`;
  const on = kind === 'breach' || kind === 'update';
  const usual = `${amount(rule.metric, o.baseline ?? 0)}`;
  switch (c.kind) {
    case 'above':
    case 'below': {
      const edge = c.kind === 'above' ? c.value * (1 - HYSTERESIS.absolute) : c.value * (1 + HYSTERESIS.absolute);
      const limit = amount(rule.metric, c.value);
      if (on)
        return `${seen}, ${c.kind} ${limit} (back to normal at ${amount(rule.metric, edge)} or ${c.kind === 'above' ? 'less' : 'more'})`;
      return `${seen}, ${kind === 'recover' ? 'no longer' : 'not'} ${c.kind} ${limit}`;
    }
    case 'change': {
      const pct = changePct(o.value, o.baseline) ?? 0;
      const sign = pct >= 0 ? '+' : '−';
      return `${seen}: ${sign}${Math.abs(Math.round(pct))}% against ${usual} ${o.baselineLabel ?? ''}`.trimEnd();
    }
    case 'spike': {
      const against = `the usual ${o.baselineLabel ? `${o.baselineLabel} ` : ''}(${usual})`;
      if (on) {
        const ratio =
          o.baseline && o.baseline > 0
            ? `${(Math.round((o.value / o.baseline) * 10) / 10).toLocaleString('en-US')}×`
            : `${amount(rule.metric, o.value - (o.baseline ?? 0))} more than`;
        return `${seen}: ${ratio} ${against}`;
      }
      if (kind === 'recover') return `${seen}: no longer a spike against ${against}`;
      return `${seen}: not a spike against ${against}, which takes ${SPIKE_RATIO}× and at least ${SPIKE_MIN} more`;
    }
    case 'new':
      return o.entries && o.entries.length > 0
        ? `New in the top ${c.top} ${o.label}: ${o.entries.join(', ')}`
        : `No new entries in the top ${c.top} ${o.label}`;
  }
}

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

type Period = Pick<WatchPeriod, 'date' | 'hour'>;

const keyOf = (p: Period) => (p.hour === undefined ? p.date : `${p.date}T${String(p.hour).padStart(2, '0')}`);

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
const standardMinutes = (period: Period) => (period.hour === undefined ? 1_440 : 60);

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
 * The periods a rule compares a period with: the period before or the same one a week
 * before (a change), the same hour or weekday of the 4 weeks before (a spike); none for
 * a threshold.
 */
export function comparedWith(rule: WatchRule, period: Period, timeZone: string): Period[] {
  const c = rule.condition;
  const back = (days: number): Period => ({ ...period, date: shiftDate(period.date, -days) });
  if (c.kind === 'change') return [c.against === 'last_week' ? back(7) : periodBefore(period, timeZone)];
  if (c.kind === 'spike') return Array.from({ length: SPIKE_WEEKS }, (_, i) => back(7 * (i + 1)));
  return [];
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

/** What a watch judges, in words for its confirmation: "the last complete hour (Europe/Berlin)". */
export function judgedWords(every: WatchEvery, zones: Zones): string {
  return every === 'hour'
    ? `the last complete hour (${zones.timeZone})`
    : `the last complete day (${apiDayWords(zones.apiZone)})`;
}

/**
 * What a period's figures show against a rule, per standard period of real time, so a day
 * with 23 or 25 hours compares like with like: a figure is counted per 60 minutes (per
 * 1,440 for the API's days). The hour the clocks repeat (120 minutes) is not a spike and
 * one they shorten is not a drop; an hour they skip is no period at all, and nothing to
 * compare with (the period is unknown, never a zero). `figures`: the period's, then
 * those of `comparedWith`.
 */
export function observationOf(
  rule: WatchRule,
  period: Period,
  timeZone: string,
  api: ApiDays,
  figures: readonly number[],
): Observation {
  const standard = standardMinutes(period);
  const perStandard = (p: Period, figure: number) => {
    const minutes = periodMinutes(p, timeZone, api);
    return minutes > 0 ? (figure * standard) / minutes : undefined;
  };
  const compared = comparedWith(rule, period, timeZone);
  const raw = figures[0] ?? 0;
  const minutes = periodMinutes(period, timeZone, api);
  const value = perStandard(period, raw) ?? raw;
  const unit = period.hour === undefined ? 'day' : 'hour';
  const zones = { timeZone, apiZone: api.timeZone };
  const label =
    minutes === standard || minutes === 0
      ? periodLabel(period, zones)
      : periodLabel(period, zones, lengthNote(raw, minutes, standard));
  const c = rule.condition;
  if (c.kind === 'change') {
    const baseline = perStandard(compared[0]!, figures[1] ?? 0);
    const baselineLabel = c.against === 'last_week' ? `the same ${unit} last week` : `the ${unit} before`;
    if (baseline === undefined)
      return {
        ok: false,
        error: `There was no ${periodLabel(compared[0]!, zones, 'the clocks skipped it')}: nothing to compare ${periodLabel(period, zones)} with.`,
      };
    return { ok: true, value, baseline, label, baselineLabel };
  }
  if (c.kind === 'spike') {
    const usual = median(
      compared.map((p, i) => perStandard(p, figures[i + 1] ?? 0)).filter((v): v is number => v !== undefined),
    );
    const when = `${WEEKDAYS[new Date(`${period.date}T00:00:00Z`).getUTCDay()] ?? ''}${period.hour === undefined ? '' : ` ${String(period.hour).padStart(2, '0')}:00`}`;
    return { ok: true, value, ...(usual === undefined ? {} : { baseline: usual }), label, baselineLabel: when };
  }
  return { ok: true, value, label };
}

/** "120 in its 120 minutes, as the clocks went back: counted per 60". */
function lengthNote(raw: number, minutes: number, standard: number): string {
  const moved = minutes > standard ? 'back' : 'forward';
  const length = standard === 60 ? `${minutes} minutes` : `${minutes / 60} hours`;
  return `${formatCount(Math.round(raw))} in its ${length}, as the clocks went ${moved}: counted per ${standard === 60 ? 60 : 24}`;
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
    const final = finalAt(periodBucket(period), timeZone, api);
    const over =
      period.hour === undefined
        ? dayStart(shiftDate(period.date, 1), timeZone)
        : hourEnd(period.date, period.hour, timeZone);
    if (final === undefined || over === undefined) return undefined;
    const dueAt = Math.max(final, over);
    if (dueAt <= now.getTime()) return { ...period, key: keyOf(period), dueAt, elapsedMs: now.getTime() - dueAt };
  }
  return undefined;
}

/** A period someone names (a day, or an hour of `timeZone`'s), once it is over and final at the API; undefined before. */
export function namedPeriod(period: Period, timeZone: string, now: Date, api: ApiDays): WatchPeriod | undefined {
  const final = finalAt(periodBucket(period), timeZone, api);
  const over =
    period.hour === undefined
      ? dayStart(shiftDate(period.date, 1), timeZone)
      : hourEnd(period.date, period.hour, timeZone);
  if (final === undefined || over === undefined) return undefined;
  const dueAt = Math.max(final, over);
  if (dueAt > now.getTime()) return undefined;
  return { ...period, key: keyOf(period), dueAt, elapsedMs: now.getTime() - dueAt };
}

/** A watch's place in the spread: evaluations of a period start over its first `spreadMs`, each watch at its own offset. */
export function spreadOffset(id: number, spreadMs: number): number {
  if (spreadMs <= 0) return 0;
  // Knuth's multiplicative hash spreads consecutive ids evenly.
  return ((id * 2654435761) >>> 0) % spreadMs;
}

/** The median of the values (the "usual" of a spike), undefined for none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
