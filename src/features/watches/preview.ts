/**
 * How a rule would have behaved over the past: the periods the watch would have judged, each
 * observed as the evaluator observes it and decided by the same `decide` with the same
 * hysteresis, from the state `ok`. Pure: the observations are the observer's (observe.ts).
 */
import { formatCount } from '../../kernel/format.js';
import { dayLabel, type ApiDays } from '../../kernel/trend.js';
import { lastPeriod, namedPeriod, periodBefore, type WatchPeriod } from './period.js';
import {
  decide,
  stateAfter,
  type Condition,
  type DecisionKind,
  type Observation,
  type WatchEvery,
  type WatchRule,
  type WatchState,
} from './plan.js';

/** Days a preview looks back: 4 weeks of hours, 8 weeks of days. */
export const PREVIEW_DAYS: Readonly<Record<WatchEvery, number>> = { hour: 28, day: 56 };
/** More alerts than one in this many days, on average, is too often: once a day for an hourly watch, once a week for a daily one. */
export const TOO_OFTEN_DAYS: Readonly<Record<WatchEvery, number>> = { hour: 1, day: 7 };
/** Breaches a preview names; the rest are counted. */
const NAMED = 8;

/** One period of the past as the watch would have judged it. */
export interface Replayed {
  period: WatchPeriod;
  observation: Observation;
  kind: DecisionKind;
}

/**
 * The periods a watch would have judged in the `days` days before `now`, oldest first: the
 * last one `lastPeriod` gives at `now`, and each before it (real hours across clock changes)
 * whose turn came after `now − days`.
 */
export function previewPeriods(
  every: WatchEvery,
  timeZone: string,
  now: Date,
  api: ApiDays,
  days: number = PREVIEW_DAYS[every],
): WatchPeriod[] {
  const since = now.getTime() - days * 86_400_000;
  const periods: WatchPeriod[] = [];
  let period = lastPeriod(every, timeZone, now, api);
  while (period && period.dueAt > since) {
    periods.push(period);
    period = namedPeriod(periodBefore(period, timeZone), timeZone, now, api);
  }
  return periods.reverse();
}

/** The decisions over the periods, in order, from the state `ok`: what the evaluator would have recorded. */
export function replay(
  condition: Condition,
  periods: readonly WatchPeriod[],
  observations: readonly Observation[],
): Replayed[] {
  let state: WatchState = 'ok';
  return periods.map((period, i) => {
    const observation = observations[i] ?? { ok: false, error: 'not observed' };
    const kind = decide(condition, state, observation);
    state = stateAfter(state, kind);
    return { period, observation, kind };
  });
}

/** The periods that would have alerted (each breach starts an alert). */
export const breachesOf = (replayed: readonly Replayed[]): Replayed[] => replayed.filter((r) => r.kind === 'breach');

/** Would the rule have alerted more often than TOO_OFTEN_DAYS allows over `days`? */
export function tooOften(every: WatchEvery, breaches: number, days: number): boolean {
  return breaches > days / TOO_OFTEN_DAYS[every];
}

/** A period as a preview names it, in the watch's zone: "Nov 3 14:00", or a day: "Nov 3". */
export function whenWords(period: Pick<WatchPeriod, 'date' | 'hour'>): string {
  const day = dayLabel(period.date);
  return period.hour === undefined ? day : `${day} ${String(period.hour).padStart(2, '0')}:00`;
}

/** "Would have alerted 3 times in the last 28 days: Nov 3 14:00, Nov 12 09:00, Nov 17 22:00", or "never". */
export function previewSentence(replayed: readonly Replayed[], days: number): string {
  const breaches = breachesOf(replayed);
  const span = days === 1 ? 'in the last day' : `in the last ${formatCount(days)} days`;
  if (breaches.length === 0) return `Would never have alerted ${span}.`;
  const named = breaches.slice(0, NAMED).map((r) => whenWords(r.period));
  const more = breaches.length > NAMED ? ` and ${formatCount(breaches.length - NAMED)} more` : '';
  const times = breaches.length === 1 ? 'once' : `${formatCount(breaches.length)} times`;
  return `Would have alerted ${times} ${span}: ${named.join(', ')}${more}.`;
}

/** "41 of the 672 hours could not be told: …": periods decided `unknown`, with the first reason. */
export function unknownSentence(replayed: readonly Replayed[], every: WatchEvery): string | undefined {
  const unknown = replayed.filter((r) => r.kind === 'unknown');
  if (unknown.length === 0) return undefined;
  const first = unknown.find((r) => !r.observation.ok)?.observation;
  const why = first && !first.ok ? ` (${first.error})` : '';
  const unit = every === 'hour' ? 'hours' : 'days';
  return `${formatCount(unknown.length)} of the ${formatCount(replayed.length)} ${unit} could not be judged${why}; they would neither have alerted nor recovered.`;
}

/** Stricter forms of a condition, mildest first (none for `new`): more spreads, a larger change, a farther threshold. */
export function stricterConditions(c: Condition): Condition[] {
  switch (c.kind) {
    case 'spike': {
      const now = c.spreads ?? 4;
      return [6, 8, 12, 20].filter((n) => n > now).map((spreads) => ({ kind: 'spike', spreads }));
    }
    case 'change': {
      const cap = c.direction === 'drops' ? 95 : 1000;
      const pcts = [1.5, 2, 3].map((f) => Math.min(cap, Math.round(c.pct * f))).filter((p) => p > c.pct);
      return [...new Set(pcts)].map((pct) => ({ ...c, pct }));
    }
    case 'above':
      return [1.25, 1.5, 2, 3].map((f) => ({ kind: 'above', value: roundNicely(c.value * f) }));
    case 'below':
      return [0.8, 0.6, 0.4, 0.2].map((f) => ({ kind: 'below', value: roundNicely(c.value * f) }));
    case 'new':
      return [];
  }
}

/** 137 → 140, 1,234 → 1,200: two significant figures. */
function roundNicely(n: number): number {
  if (n < 10) return Math.round(n * 10) / 10;
  const step = 10 ** (Math.floor(Math.log10(n)) - 1);
  return Math.round(n / step) * step;
}

/**
 * A stricter rule to offer when `replayed` alerted too often: the mildest stricter condition
 * that would not have, over the same observations, or else the strictest that alerts less.
 */
export function stricterRule(
  rule: WatchRule,
  periods: readonly WatchPeriod[],
  observations: readonly Observation[],
  days: number,
): { rule: WatchRule; breaches: number } | undefined {
  const base = breachesOf(replay(rule.condition, periods, observations)).length;
  if (!tooOften(rule.every, base, days)) return undefined;
  let best: { rule: WatchRule; breaches: number } | undefined;
  for (const condition of stricterConditions(rule.condition)) {
    const breaches = breachesOf(replay(condition, periods, observations)).length;
    if (breaches >= base) continue;
    best = { rule: { ...rule, condition }, breaches };
    if (!tooOften(rule.every, breaches, days)) return best;
  }
  return best;
}
