/**
 * What a watch is, and the decision at each period: breach, update (still breaching),
 * recover, ok or unknown. Pure: a function of the watch's rule, its state and what was
 * observed. Hysteresis keeps a value hovering at the edge from flapping: a watch breaches
 * at its threshold but recovers only once the value is back past a band beyond it.
 */
import type { ReportId } from '../../kernel/catalog.js';
import type { FilterGroup } from '../../kernel/filters.js';
import { formatCount } from '../../kernel/format.js';

export type WatchMetric = 'visits' | 'unique' | 'bots';
export type WatchEvery = 'hour' | 'day';

export type Condition =
  | { kind: 'above' | 'below'; value: number }
  | { kind: 'change'; direction: 'drops' | 'rises'; pct: number; against: 'previous' | 'last_week' }
  | { kind: 'spike' }
  | { kind: 'new'; top: number };

export interface WatchRule {
  metric: WatchMetric;
  /** `visits`: all visits (no report named). */
  report: ReportId;
  filters: FilterGroup[];
  condition: Condition;
  every: WatchEvery;
}

/** What was measured for one period. `baseline` is what a change or a spike is measured against. */
export type Observation =
  | { ok: true; value: number; baseline?: number; entries?: string[]; label: string; baselineLabel?: string }
  | { ok: false; error: string };

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

export function metricNoun(metric: WatchMetric): string {
  return metric === 'visits' ? 'visits' : metric === 'unique' ? 'unique visitors' : 'share of visits by flagged visitors';
}

function amount(metric: WatchMetric, n: number): string {
  return metric === 'bots' ? `${Math.round(n * 10) / 10}%` : formatCount(Math.round(n));
}

/** The rule in words, as the list and the alert say it: "visits below 100 a day". */
export function describeRule(rule: WatchRule): string {
  const noun = metricNoun(rule.metric);
  const c = rule.condition;
  const per = rule.every === 'hour' ? 'an hour' : 'a day';
  switch (c.kind) {
    case 'above':
    case 'below':
      return `${noun} ${c.kind} ${amount(rule.metric, c.value)}${rule.metric === 'bots' ? ' in an hour' : ` ${per}`}`;
    case 'change':
      return `${noun} ${c.direction} ${c.pct}% against ${c.against === 'last_week' ? `the same ${rule.every} last week` : `the ${rule.every} before`}`;
    case 'spike':
      return `${noun} spike: ${SPIKE_RATIO}× the usual ${rule.every === 'hour' ? 'hour' : 'weekday'} (the median of the ${SPIKE_WEEKS} weeks before)`;
    case 'new':
      return `a new entry in the top ${c.top} by ${noun}`;
  }
}

/** What was seen, against the rule, in words: "85 visits on Nov 22, below 100 (back to normal at 110 or more)". */
export function describeObservation(rule: WatchRule, o: Extract<Observation, { ok: true }>, kind: DecisionKind): string {
  const c = rule.condition;
  const seen = `${amount(rule.metric, o.value)}${rule.metric === 'bots' ? ' of visits by flagged visitors' : ` ${metricNoun(rule.metric)}`} ${o.label}`;
  switch (c.kind) {
    case 'above':
    case 'below': {
      const edge = c.kind === 'above' ? c.value * (1 - HYSTERESIS.absolute) : c.value * (1 + HYSTERESIS.absolute);
      const back = kind === 'recover' ? '' : ` (back to normal at ${amount(rule.metric, edge)} or ${c.kind === 'above' ? 'less' : 'more'})`;
      return `${seen}, ${kind === 'recover' ? `no longer ${c.kind}` : c.kind} ${amount(rule.metric, c.value)}${back}`;
    }
    case 'change': {
      const pct = changePct(o.value, o.baseline) ?? 0;
      const sign = pct >= 0 ? '+' : '−';
      return `${seen}: ${sign}${Math.abs(Math.round(pct))}% against ${amount(rule.metric, o.baseline ?? 0)} ${o.baselineLabel ?? ''}`.trimEnd();
    }
    case 'spike': {
      const ratio = o.baseline && o.baseline > 0 ? `${(Math.round((o.value / o.baseline) * 10) / 10).toLocaleString('en-US')}×` : 'far above';
      return `${seen}: ${ratio} the usual ${o.baselineLabel ?? ''} (${amount(rule.metric, o.baseline ?? 0)})`.replace(/ +\(/, ' (');
    }
    case 'new':
      return o.entries && o.entries.length > 0 ? `New in the top ${c.top} ${o.label}: ${o.entries.join(', ')}` : `No new entries in the top ${c.top} ${o.label}`;
  }
}

/** The period a watch judges at an instant: the last complete hour or day in its zone. */
export interface WatchPeriod {
  /** `2026-11-23T09` or `2026-11-22`: also the trend bucket key. */
  key: string;
  date: string;
  hour?: number;
  /** How far into the current (incomplete) period `now` is, in ms: evaluation is spread over it. */
  elapsedMs: number;
}

function iso(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The last complete period, or undefined for a zone that is not one. */
export function lastPeriod(every: WatchEvery, timeZone: string, now: Date, parts: (d: Date, z: string) => Record<string, number> | undefined): WatchPeriod | undefined {
  const p = parts(now, timeZone);
  if (!p) return undefined;
  const today = iso(p.year!, p.month!, p.day!);
  const intoHour = (p.minute! * 60 + now.getUTCSeconds()) * 1000 + now.getUTCMilliseconds();
  const yesterday = new Date(Date.UTC(p.year!, p.month! - 1, p.day! - 1)).toISOString().slice(0, 10);
  if (every === 'day') return { key: yesterday, date: yesterday, elapsedMs: p.hour! * 3_600_000 + intoHour };
  const hour = p.hour! === 0 ? 23 : p.hour! - 1;
  const date = p.hour! === 0 ? yesterday : today;
  return { key: `${date}T${String(hour).padStart(2, '0')}`, date, hour, elapsedMs: intoHour };
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
