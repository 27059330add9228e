/**
 * No false alert comes from the clock alone. With visits at a constant rate, over real zones
 * that change their clocks (north and south, by an hour or by half an hour, at 02:00 or at
 * midnight) and their changes from 2025 to 2027, no watch rule (above, below, a drop or a
 * rise against the period before or the same one last week, a spike) breaches on any hour
 * or day around a change, nor 1 to 4 weeks after it (when last week's hour is the changed one).
 *
 * The figures are counted as the trend service counts them (each visit in the wall-clock hour
 * of the zone's day it falls in, a day being the API's), for the periods the watch reads
 * (plan.ts: the period to judge, what it is compared with) and judged as the evaluator does.
 * The changes themselves and the API's days are found here with Intl, independently.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hourAt, shiftDate } from '../../../src/kernel/dates.js';
import type { ApiDays } from '../../../src/kernel/trend.js';
import {
  comparedWith,
  decide,
  observationOf,
  type Condition,
  type WatchEvery,
  type WatchRule,
} from '../../../src/features/watches/plan.js';
import { lastPeriod, periodMinutes } from '../../../src/features/watches/period.js';
import { startOfDate } from '../../support/steady-api.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const ZONES = [
  'Europe/Berlin',
  'Europe/London',
  'America/New_York',
  'America/St_Johns', // UTC−3:30
  'America/Havana', // changes at midnight
  'America/Santiago', // southern, at midnight
  'Australia/Sydney', // southern
  'Australia/Lord_Howe', // southern, by half an hour
  'Pacific/Auckland', // southern
  'Pacific/Chatham', // UTC+12:45
  'Africa/Cairo', // at midnight
];

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** The zone's offset from UTC at an instant, in minutes (Intl's longOffset: "GMT+05:45"). */
function offsetAt(ms: number, zone: string): number {
  let f = offsetFormats.get(zone);
  if (!f)
    offsetFormats.set(zone, (f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })));
  const name = f.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** Every instant from 2025 to 2027 at which the zone's clocks change. */
function changesOf(zone: string): number[] {
  const out: number[] = [];
  for (let t = Date.parse('2025-01-01T00:00:00Z'); t < Date.parse('2028-01-01T00:00:00Z'); t += DAY) {
    if (offsetAt(t, zone) === offsetAt(t + DAY, zone)) continue;
    let [lo, hi] = [t, t + DAY];
    while (hi - lo > MINUTE) {
      const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
      if (offsetAt(mid, zone) === offsetAt(lo, zone)) lo = mid;
      else hi = mid;
    }
    out.push(hi);
  }
  return out;
}

const CHANGES = ZONES.flatMap((zone) => changesOf(zone).map((at) => ({ zone, at })));

/** Visits in a wall-clock hour of the zone's date, `rate` a minute, counted by the hour each falls in. */
function hourFigure(date: string, hour: number, zone: string, rate: number): number {
  const dayStart = startOfDate(date, zone);
  let n = 0;
  for (let t = dayStart + (hour - 3) * HOUR; t < dayStart + (hour + 4) * HOUR; t += MINUTE) {
    const at = hourAt(t, zone);
    if (at?.date === date && at.hour === hour) n += rate;
  }
  return n;
}

/** Visits on the API's date, `rate` a minute. */
const dayFigure = (date: string, apiZone: string, rate: number) =>
  ((startOfDate(shiftDate(date, 1), apiZone) - startOfDate(date, apiZone)) / MINUTE) * rate;

function condition(perPeriod: number): fc.Arbitrary<Condition> {
  return fc.oneof(
    fc
      .double({ min: 0, max: 2, noNaN: true })
      .map((x): Condition => ({ kind: 'above', value: Math.ceil(perPeriod * (1 + x)) })),
    fc
      .double({ min: 0.01, max: 1, noNaN: true })
      .map((x): Condition => ({ kind: 'below', value: Math.max(1, Math.floor(perPeriod * x)) })),
    fc
      .record({
        direction: fc.constantFrom('drops' as const, 'rises' as const),
        pct: fc.integer({ min: 1, max: 100 }),
        against: fc.constantFrom('previous' as const, 'last_week' as const),
      })
      .map((c): Condition => ({ kind: 'change', ...c })),
    fc.constant<Condition>({ kind: 'spike' }),
  );
}

const cases = fc
  .record({
    change: fc.constantFrom(...CHANGES),
    every: fc.constantFrom<WatchEvery>('hour', 'day'),
    hoursAround: fc.integer({ min: -30, max: 30 }),
    weeksAfter: fc.integer({ min: 0, max: 4 }),
    minute: fc.integer({ min: 0, max: 59 }),
    rate: fc.integer({ min: 1, max: 3 }),
    apiInZone: fc.boolean(),
    settleMs: fc.constantFrom(MINUTE, 10 * MINUTE, 45 * MINUTE),
  })
  .chain((c) => condition(c.rate * (c.every === 'hour' ? 60 : 1_440)).map((cond) => ({ ...c, condition: cond })));

describe('hours are local hours: the clock alone raises no alert', () => {
  it('finds the changes it is about: 3 years of them in every zone', () => {
    for (const zone of ZONES) expect(changesOf(zone).length, zone).toBeGreaterThanOrEqual(5);
    // Lord Howe moves by half an hour; Berlin's spring change of 2026 is at 01:00 UTC on Mar 29.
    const howe = changesOf('Australia/Lord_Howe')[0]!;
    expect(Math.abs(offsetAt(howe, 'Australia/Lord_Howe') - offsetAt(howe - MINUTE, 'Australia/Lord_Howe'))).toBe(30);
    expect(changesOf('Europe/Berlin')).toContain(Date.parse('2026-03-29T01:00:00Z'));
  });

  it('with visits at a constant rate, no watch rule breaches on any period around a clock change', () => {
    fc.assert(
      fc.property(cases, (c) => {
        const { zone } = c.change;
        const api: ApiDays = { timeZone: c.apiInZone && c.every === 'day' ? zone : 'UTC', settleMs: c.settleMs };
        const now = new Date(c.change.at + c.weeksAfter * 7 * DAY + c.hoursAround * HOUR + c.minute * MINUTE);
        const rule: WatchRule = {
          metric: 'visits',
          report: 'visits',
          filters: [],
          condition: c.condition,
          every: c.every,
        };
        const period = lastPeriod(c.every, zone, now, api);
        expect(period).toBeDefined();
        // A period is a real one: never the hour the clocks skipped.
        expect(periodMinutes(period!, zone, api)).toBeGreaterThan(0);
        const periods = [period!, ...comparedWith(rule, period!, zone)];
        const figures = periods.map((p) =>
          p.hour === undefined ? dayFigure(p.date, api.timeZone, c.rate) : hourFigure(p.date, p.hour, zone, c.rate),
        );
        const observation = observationOf(rule, period!, zone, api, figures);
        const decision = decide(rule.condition, 'ok', observation);
        expect(
          decision,
          `${zone} ${now.toISOString()} ${period!.key} ${JSON.stringify(c.condition)} ${JSON.stringify(figures)} ${JSON.stringify(observation)}`,
        ).not.toBe('breach');
        if (observation.ok) expect(observation.value).toBe(c.rate * (c.every === 'hour' ? 60 : 1_440));
      }),
      { numRuns: 2_000 },
    );
  });
});
