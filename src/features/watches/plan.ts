/**
 * What a watch is, and the decision at each period: breach, update (still breaching),
 * recover, ok or unknown. Pure: a function of the watch's rule, its state and what was
 * observed. Hysteresis keeps a value hovering at the edge from flapping: a watch breaches
 * at its threshold but recovers only once the value is back past a band beyond it.
 */
import type { ReportId } from '../../kernel/catalog.js';
import { shiftDate, WEEKDAYS } from '../../kernel/dates.js';
import type { FilterGroup } from '../../kernel/filters.js';
import { counted, formatCount } from '../../kernel/format.js';
import { judgeAgainstNoise, NOISE_RULE, type NoiseRule, type NoiseVerdict } from '../../kernel/robust-spike.js';
import type { ApiDays } from '../../kernel/trend.js';
import { periodBefore, periodLabel, periodMinutes, standardMinutes, type Period } from './period.js';

export type WatchMetric = 'visits' | 'unique' | 'bots';
/** Whose visits a `visits` watch counts: by people (visitors the threat scan did not flag), or by bots (those it flagged). */
export type WatchWho = 'people' | 'bots';
export type WatchEvery = 'hour' | 'day';

export type Condition =
  | { kind: 'above' | 'below'; value: number }
  | { kind: 'change'; direction: 'drops' | 'rises'; pct: number; against: 'previous' | 'last_week' | 'usual' }
  /** `spreads`: how far above the usual, in its noise, a spike is (NOISE_RULE's when absent). */
  | { kind: 'spike'; spreads?: number }
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
 * against; `history`, the figures of the same hour-of-week (or weekday) in the weeks before,
 * whose median is the usual (the baseline) and whose spread is the noise. `wait`: the figures are not settled yet (a suspect empty answer, a partial one):
 * the period is judged again shortly rather than recorded.
 */
export type Observation =
  | {
      ok: true;
      value: number;
      baseline?: number;
      history?: number[];
      entries?: string[];
      label: string;
      baselineLabel?: string;
    }
  | { ok: false; error: string; wait?: boolean };

export type WatchState = 'ok' | 'breaching';
export type DecisionKind = 'breach' | 'update' | 'recover' | 'ok' | 'unknown';

/**
 * The band past the threshold a value must clear to recover: 10% of an absolute threshold, a
 * quarter of a change; against the usual, half of each of the rule's three measures.
 */
export const HYSTERESIS = { absolute: 0.1, change: 0.25, noise: 0.5 } as const;
/** Weeks of the same hour (or weekday) whose median is the usual and whose spread is the noise. */
export const USUAL_WEEKS = 4;
/** A row entering this many top rows counts as new. */
export const NEW_TOP = 10;

/** The relative change in percent, or undefined when there is nothing to compare with. */
export function changePct(value: number, baseline: number | undefined): number | undefined {
  return baseline === undefined || baseline <= 0 ? undefined : ((value - baseline) / baseline) * 100;
}

/** Is a rule judged against the usual and its noise (a spike, a change `vs usual`)? */
export function againstUsual(c: Condition): boolean {
  return c.kind === 'spike' || (c.kind === 'change' && c.against === 'usual');
}

/** The measures a rule judged against the usual applies: a spike's spreads, a change's percent, the rest NOISE_RULE's. */
export function noiseRuleOf(c: Condition): NoiseRule {
  if (c.kind === 'spike') return { ...NOISE_RULE, minSpreads: c.spreads ?? NOISE_RULE.minSpreads };
  if (c.kind === 'change') return { ...NOISE_RULE, minRelative: c.pct / 100 };
  return NOISE_RULE;
}

/** The value against its usual and noise; undefined when the observation has no history. */
export function noiseVerdict(c: Condition, o: Extract<Observation, { ok: true }>, relax = 1): NoiseVerdict | undefined {
  if (!o.history) return undefined;
  const r = noiseRuleOf(c);
  return judgeAgainstNoise(o.value, o.history, {
    ...r,
    minSpreads: r.minSpreads * relax,
    minCount: r.minCount * relax,
    minRelative: r.minRelative * relax,
  });
}

/** Does the verdict go the rule's way: up for a spike or a rise, down for a drop? Undefined: not known. */
function movedAsRuled(c: Condition, v: NoiseVerdict | undefined): boolean | undefined {
  if (!v || v.kind === 'unknown') return undefined;
  const wanted = c.kind === 'change' && c.direction === 'drops' ? 'drop' : 'spike';
  return v.kind === wanted;
}

/** Is the condition met (breached) by this observation? Undefined: it cannot be told (no baseline). */
function breached(c: Condition, o: Extract<Observation, { ok: true }>): boolean | undefined {
  switch (c.kind) {
    case 'above':
      return o.value > c.value;
    case 'below':
      return o.value < c.value;
    case 'change': {
      if (c.against === 'usual') return movedAsRuled(c, noiseVerdict(c, o));
      const pct = changePct(o.value, o.baseline);
      if (pct === undefined) return undefined;
      return c.direction === 'drops' ? pct <= -c.pct : pct >= c.pct;
    }
    case 'spike':
      return movedAsRuled(c, noiseVerdict(c, o));
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
      if (c.against === 'usual') {
        const still = movedAsRuled(c, noiseVerdict(c, o, HYSTERESIS.noise));
        return still === undefined ? undefined : !still;
      }
      const pct = changePct(o.value, o.baseline);
      if (pct === undefined) return undefined;
      const band = c.pct * (1 - HYSTERESIS.change);
      return c.direction === 'drops' ? pct > -band : pct < band;
    }
    case 'spike': {
      const still = movedAsRuled(c, noiseVerdict(c, o, HYSTERESIS.noise));
      return still === undefined ? undefined : !still;
    }
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

/** The state a decision leaves a watch in. */
export function stateAfter(state: WatchState, kind: DecisionKind): WatchState {
  return kind === 'breach' || kind === 'update' ? 'breaching' : kind === 'recover' ? 'ok' : state;
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
      if (c.against === 'usual') {
        const r = noiseRuleOf(c);
        return `${noun} ${verb} by ${c.pct}% or more against ${usualWords(rule.every)}, and by at least ${spreadsWord(r.minSpreads)} and ${formatCount(r.minCount)}`;
      }
      return `${noun} ${verb} by ${c.pct}% or more against ${c.against === 'last_week' ? `the same ${rule.every} last week` : `the ${rule.every} before`}`;
    }
    case 'spike': {
      const r = noiseRuleOf(c);
      return `${noun} spike: ${spreadsWord(r.minSpreads)} above ${usualWords(rule.every)}, and at least ${formatCount(r.minCount)} more and ${Math.round(r.minRelative * 100)}% above it`;
    }
    case 'new':
      return `a new entry in the top ${c.top} by ${noun}`;
  }
}

/** "the usual hour (the median of the same hour of the week in the 4 weeks before; a spread is how much it varies)". */
function usualWords(every: WatchEvery): string {
  const what = every === 'hour' ? 'hour' : 'weekday';
  return `the usual ${what} (the median of the same ${every === 'hour' ? 'hour of the week' : 'weekday'} in the ${USUAL_WEEKS} weeks before; a spread is how much it varies)`;
}

/** "4 spreads", "1 spread", "10.7 spreads". */
function spreadsWord(n: number): string {
  const shown = Math.round(Math.abs(n) * 10) / 10;
  return `${shown.toLocaleString('en-US')} ${shown === 1 ? 'spread' : 'spreads'}`;
}

/**
 * A value against its usual and noise, as an alert says it: "the usual Friday 15:00 is 120 ± 18;
 * this is 10.7 spreads above". When all is well it adds what it takes.
 */
function againstNoiseWords(rule: WatchRule, o: Extract<Observation, { ok: true }>, kind: DecisionKind): string {
  const c = rule.condition;
  const seen = `${figure(rule.metric, o.value, rule.who)} ${o.label}`;
  const v = noiseVerdict(c, o);
  const usualOf = `the usual ${o.baselineLabel ?? ''}`.trimEnd();
  if (!v || v.kind === 'unknown') return `${seen}: ${usualOf} is not known (${v?.why ?? 'no past weeks'})`;
  // The distance is told in the figures shown (rounded), so a reader's own sum agrees with it.
  const [shownUsual, shownSpread] = [Math.round(v.usual), Math.max(1, Math.round(v.spread))];
  const spreads = (o.value - shownUsual) / shownSpread;
  const usual = `${usualOf} is ${amount(rule.metric, shownUsual)} ± ${amount(rule.metric, shownSpread)}`;
  const far = `this is ${spreadsWord(spreads)} ${spreads >= 0 ? 'above' : 'below'}`;
  if (kind === 'breach' || kind === 'update') return `${seen}: ${usual}; ${far}`;
  if (kind === 'recover')
    return `${seen}: back to normal, ${spreadsWord(spreads)} ${spreads >= 0 ? 'above' : 'below'} ${usualOf} (${amount(rule.metric, shownUsual)} ± ${amount(rule.metric, shownSpread)})`;
  const r = noiseRuleOf(c);
  const drop = c.kind === 'change' && c.direction === 'drops';
  const takes = `${drop ? 'a drop' : c.kind === 'spike' ? 'a spike' : 'a rise'} takes ${spreadsWord(r.minSpreads)}, ${figure(rule.metric, r.minCount, rule.who)} and ${Math.round(r.minRelative * 100)}% ${drop ? 'below' : 'above'} the usual`;
  return `${seen}: ${usual}; ${far}, and ${takes}`;
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
  if (againstUsual(c)) return againstNoiseWords(rule, o, kind);
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
    case 'spike':
      return againstNoiseWords(rule, o, kind);
    case 'new':
      return o.entries && o.entries.length > 0
        ? `New in the top ${c.top} ${o.label}: ${o.entries.join(', ')}`
        : `No new entries in the top ${c.top} ${o.label}`;
  }
}

/**
 * The periods a rule compares a period with: the period before or the same one a week
 * before (a change), the same hour or weekday of the 4 weeks before (a spike, a change
 * against the usual); none for
 * a threshold.
 */
export function comparedWith(rule: WatchRule, period: Period, timeZone: string): Period[] {
  const c = rule.condition;
  const back = (days: number): Period => ({ ...period, date: shiftDate(period.date, -days) });
  if (againstUsual(c)) return Array.from({ length: USUAL_WEEKS }, (_, i) => back(7 * (i + 1)));
  if (c.kind === 'change') return [c.against === 'last_week' ? back(7) : periodBefore(period, timeZone)];
  return [];
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
  if (againstUsual(c)) {
    const history = compared
      .map((p, i) => perStandard(p, figures[i + 1] ?? 0))
      .filter((v): v is number => v !== undefined);
    const when = `${WEEKDAYS[new Date(`${period.date}T00:00:00Z`).getUTCDay()] ?? ''}${period.hour === undefined ? '' : ` ${String(period.hour).padStart(2, '0')}:00`}`;
    if (history.length < NOISE_RULE.minHistory)
      return {
        ok: false,
        error: `The usual ${when} is not known for ${periodLabel(period, zones)}: ${history.length} of the ${NOISE_RULE.minHistory} past weeks needed (the clocks skipped the others).`,
      };
    return { ok: true, value, baseline: median(history) ?? 0, history, label, baselineLabel: when };
  }
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
  return { ok: true, value, label };
}

/** "120 in its 120 minutes, as the clocks went back: counted per 60". */
function lengthNote(raw: number, minutes: number, standard: number): string {
  const moved = minutes > standard ? 'back' : 'forward';
  const length = standard === 60 ? `${minutes} minutes` : `${minutes / 60} hours`;
  return `${formatCount(Math.round(raw))} in its ${length}, as the clocks went ${moved}: counted per ${standard === 60 ? 60 : 24}`;
}

/** The median of the values (the "usual" of a spike), undefined for none. */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
