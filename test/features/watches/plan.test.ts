import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REPORTS } from '../../../src/kernel/catalog.js';
import { commandTokens, type Token } from '../../../src/kernel/text.js';
import { parseWatchCommand } from '../../../src/features/watches/parse.js';
import {
  comparedWith,
  decide,
  describeObservation,
  describeRule,
  HYSTERESIS,
  median,
  observationOf,
  type Condition,
  type Observation,
  type WatchRule,
  type WatchState,
} from '../../../src/features/watches/plan.js';
import {
  chartPeriods,
  lastPeriod,
  judgedWords,
  periodBefore,
  periodLabel,
  spreadOffset,
} from '../../../src/features/watches/period.js';

const ok = (value: number, baseline?: number): Observation => ({
  ok: true,
  value,
  ...(baseline === undefined ? {} : { baseline }),
  label: 'on Nov 22',
});

/** Runs a watch over a sequence of observations: the decisions, and the state after each. */
function run(condition: Condition, observations: Observation[], start: WatchState = 'ok') {
  let state = start;
  return observations.map((o) => {
    const kind = decide(condition, state, o);
    if (kind === 'breach' || kind === 'update') state = 'breaching';
    if (kind === 'recover') state = 'ok';
    return kind;
  });
}

const threshold = fc.integer({ min: 10, max: 100_000 });

describe('decide: breach, update, recover, and nothing on missing data', () => {
  it('missing data (an API failure) is unknown and changes nothing, whatever the state', () => {
    const conditions: Condition[] = [
      { kind: 'above', value: 10 },
      { kind: 'below', value: 10 },
      { kind: 'change', direction: 'drops', pct: 40, against: 'last_week' },
      { kind: 'spike' },
      { kind: 'new', top: 10 },
    ];
    for (const c of conditions)
      for (const s of ['ok', 'breaching'] as const) expect(decide(c, s, { ok: false, error: 'down' })).toBe('unknown');
  });

  it('nothing to compare with (a baseline of 0 or none) is unknown for a change or a spike: never a breach or a recovery', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.constantFrom<WatchState>('ok', 'breaching'),
        fc.constantFrom<Condition>(
          { kind: 'change', direction: 'drops', pct: 40, against: 'previous' },
          { kind: 'change', direction: 'rises', pct: 40, against: 'last_week' },
          { kind: 'spike' },
        ),
        (value, state, c) => {
          expect(decide(c, state, ok(value, c.kind === 'spike' ? undefined : 0))).toBe('unknown');
        },
      ),
    );
  });

  it('above: no flapping within the band; one breach per crossing; recovery only past the band', () => {
    fc.assert(
      fc.property(
        threshold,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.constantFrom<WatchState>('ok', 'breaching'),
        (t, fractions, start) => {
          const low = t * (1 - HYSTERESIS.absolute);
          // Values strictly inside the band (low, t]: whatever the state, it stays.
          const band = fractions.map((f) => ok(low + (t - low) * Math.max(f, 1e-9)));
          const decisions = run({ kind: 'above', value: t }, band, start);
          expect(decisions.every((d) => d === (start === 'ok' ? 'ok' : 'update'))).toBe(true);
        },
      ),
    );
  });

  it('below and change: no flapping within their bands', () => {
    fc.assert(
      fc.property(
        threshold,
        fc.array(fc.double({ min: 0.001, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.constantFrom<WatchState>('ok', 'breaching'),
        (t, fractions, start) => {
          const high = t * (1 + HYSTERESIS.absolute);
          const below = run(
            { kind: 'below', value: t },
            fractions.map((f) => ok(t + (high - t) * f)),
            start,
          );
          expect(new Set(below)).toEqual(new Set([start === 'ok' ? 'ok' : 'update']));
          // drops 40%: the band is a change between −40% and −30%.
          const base = 1000;
          const drops = run(
            { kind: 'change', direction: 'drops', pct: 40, against: 'previous' },
            fractions.map((f) => ok(base * (1 - 0.4 + 0.1 * f), base)),
            start,
          );
          expect(new Set(drops)).toEqual(new Set([start === 'ok' ? 'ok' : 'update']));
        },
      ),
    );
  });

  it('any sequence: breaches and recoveries alternate, each breach starts when the value crosses the threshold', () => {
    fc.assert(
      fc.property(
        threshold,
        fc.array(fc.option(fc.double({ min: 0, max: 3, noNaN: true }), { nil: undefined }), { maxLength: 60 }),
        (t, values) => {
          const observations = values.map((v): Observation =>
            v === undefined ? { ok: false, error: 'down' } : ok(v * t),
          );
          const decisions = run({ kind: 'above', value: t }, observations);
          const events = decisions.filter((d) => d === 'breach' || d === 'recover');
          events.forEach((e, i) => expect(e).toBe(i % 2 === 0 ? 'breach' : 'recover'));
          decisions.forEach((d, i) => {
            if (d === 'breach') expect((observations[i] as { value: number }).value).toBeGreaterThan(t);
            if (d === 'unknown') expect(observations[i]!.ok).toBe(false);
          });
        },
      ),
    );
  });

  it('spike: far from the usual in units of its noise, and large enough; back within half of each', () => {
    const seen = (value: number, history: number[]): Observation => ({
      ...(ok(value) as { ok: true; value: number; label: string }),
      history,
    });
    const steady = [100, 110, 90, 105]; // usual 102.5, spread max(1.4826 × 7.5, √102.5) ≈ 11.1
    expect(decide({ kind: 'spike' }, 'ok', seen(160, steady))).toBe('breach'); // 5.2 spreads, +58%
    expect(decide({ kind: 'spike' }, 'ok', seen(140, steady))).toBe('ok'); // 3.4 spreads: noise
    expect(decide({ kind: 'spike', spreads: 6 }, 'ok', seen(160, steady))).toBe('ok'); // a stricter rule
    expect(decide({ kind: 'spike' }, 'ok', seen(12, [1, 2, 1, 2]))).toBe('ok'); // far, but 10.5 visits: too few
    expect(decide({ kind: 'spike' }, 'ok', seen(400, [200, 400, 100, 300]))).toBe('ok'); // +60%, in a noisy hour
    expect(decide({ kind: 'spike' }, 'breaching', seen(130, steady))).toBe('update'); // 2.5 spreads: still up
    expect(decide({ kind: 'spike' }, 'breaching', seen(120, steady))).toBe('recover'); // 1.6 spreads
    expect(decide({ kind: 'spike' }, 'ok', seen(500, [100, 100]))).toBe('unknown'); // 2 weeks of the 3 needed
    const drop: Condition = { kind: 'change', direction: 'drops', pct: 40, against: 'usual' };
    expect(decide(drop, 'ok', seen(50, steady))).toBe('breach'); // −51%, 4.7 spreads below
    expect(decide(drop, 'ok', seen(70, steady))).toBe('ok'); // −32%
    expect(decide(drop, 'ok', seen(200, steady))).toBe('ok'); // a rise is not a drop
  });

  it('new: entries breach, none recovers', () => {
    expect(decide({ kind: 'new', top: 10 }, 'ok', { ok: true, value: 1, entries: ['Chile'], label: 'on Nov 22' })).toBe(
      'breach',
    );
    expect(decide({ kind: 'new', top: 10 }, 'breaching', { ok: true, value: 0, entries: [], label: 'on Nov 23' })).toBe(
      'recover',
    );
  });
});

describe('the rule and what was seen, in words', () => {
  const rule = (condition: Condition, extra: Partial<WatchRule> = {}): WatchRule => ({
    metric: 'visits',
    report: 'visits',
    filters: [],
    condition,
    every: 'day',
    ...extra,
  });
  it('says the threshold, the band and the usual', () => {
    expect(describeRule(rule({ kind: 'below', value: 100 }))).toBe('visits below 100 a day');
    expect(describeObservation(rule({ kind: 'below', value: 100 }), ok(85) as never, 'breach')).toBe(
      '85 visits on Nov 22, below 100 (back to normal at 110 or more)',
    );
    expect(describeRule(rule({ kind: 'change', direction: 'drops', pct: 40, against: 'last_week' }))).toBe(
      'visits drop by 40% or more against the same day last week',
    );
    expect(
      describeRule(
        rule(
          { kind: 'change', direction: 'rises', pct: 12.5, against: 'previous' },
          { every: 'hour', metric: 'unique' },
        ),
      ),
    ).toBe('unique visitors rise by 12.5% or more against the hour before');
    expect(
      describeRule(rule({ kind: 'change', direction: 'drops', pct: 30, against: 'previous' }, { who: 'people' })),
    ).toBe('visits by people drop by 30% or more against the day before');
    expect(
      describeObservation(
        rule({ kind: 'change', direction: 'drops', pct: 40, against: 'last_week' }),
        { ...ok(60, 120), baselineLabel: 'the same day last week' } as never,
        'breach',
      ),
    ).toBe('60 visits on Nov 22: −50% against 120 the same day last week');
    const friday = [120, 102, 138, 126, 110];
    expect(
      describeObservation(
        rule({ kind: 'spike' }, { every: 'hour' }),
        { ok: true, value: 312, history: friday, label: '15:00–16:00 on Nov 27', baselineLabel: 'Friday 15:00' },
        'breach',
      ),
    ).toBe('312 visits 15:00–16:00 on Nov 27: the usual Friday 15:00 is 120 ± 15; this is 12.8 spreads above');
    expect(describeRule(rule({ kind: 'spike' }, { every: 'hour' }))).toBe(
      'visits spike: 4 spreads above the usual hour (the median of the same hour of the week in the 4 weeks before; a spread is how much it varies), and at least 20 more and 50% above it',
    );
    expect(describeRule(rule({ kind: 'change', direction: 'drops', pct: 40, against: 'usual' }))).toBe(
      'visits drop by 40% or more against the usual weekday (the median of the same weekday in the 4 weeks before; a spread is how much it varies), and by at least 4 spreads and 20',
    );
    expect(describeRule(rule({ kind: 'above', value: 20 }, { metric: 'bots', every: 'hour' }))).toBe(
      'share of visits by flagged visitors above 20% in an hour',
    );
  });

  it('says nothing beside "ok" that reads as a breach, and counts agree with their nouns', () => {
    // The status that read "ok: 1 visits 20:00–21:00 on Nov 24: far above the usual (0)".
    const hour = {
      ok: true as const,
      value: 1,
      history: [0, 0, 0, 0],
      label: '20:00–21:00 on Nov 24',
      baselineLabel: 'Tuesday 20:00',
    };
    expect(decide({ kind: 'spike' }, 'ok', hour)).toBe('ok');
    expect(describeObservation(rule({ kind: 'spike' }, { every: 'hour' }), hour, 'ok')).toBe(
      '1 visit 20:00–21:00 on Nov 24: the usual Tuesday 20:00 is 0 ± 1; this is 1 spread above, and a spike takes 4 spreads, 20 visits and 50% above the usual',
    );
    expect(describeObservation(rule({ kind: 'below', value: 100 }), ok(120) as never, 'ok')).toBe(
      '120 visits on Nov 22, not below 100',
    );
    expect(describeObservation(rule({ kind: 'below', value: 100 }), ok(115) as never, 'recover')).toBe(
      '115 visits on Nov 22, no longer below 100',
    );
    expect(describeObservation(rule({ kind: 'spike' }, { every: 'hour' }), { ...hour, value: 24 }, 'breach')).toBe(
      '24 visits 20:00–21:00 on Nov 24: the usual Tuesday 20:00 is 0 ± 1; this is 24 spreads above',
    );
    const breachWords = /(?<!not |no longer )\b(above|below) [\d,.]+%?(?! of)|spreads? (above|below)$/;
    fc.assert(
      fc.property(
        fc.constantFrom<Condition>(
          { kind: 'above', value: 100 },
          { kind: 'below', value: 100 },
          { kind: 'spike' },
          { kind: 'change', direction: 'drops', pct: 40, against: 'previous' },
        ),
        fc.constantFrom<WatchState>('ok', 'breaching'),
        fc.nat(5000),
        fc.option(fc.nat(5000), { nil: undefined }),
        (condition, state, value, baseline) => {
          const o = {
            ok: true as const,
            value,
            ...(baseline !== undefined ? { baseline, history: [baseline, baseline, baseline] } : {}),
            label: 'on Nov 22',
            baselineLabel: 'the day before',
          };
          const kind = decide(condition, state, o);
          if (kind === 'unknown') return;
          const words = describeObservation(rule(condition), o, kind);
          expect(words).not.toMatch(/\b1 visits\b/);
          if (kind === 'ok' || kind === 'recover') expect(words).not.toMatch(breachWords);
          if (kind === 'breach' && condition.kind !== 'change') expect(words).toMatch(breachWords);
        },
      ),
    );
  });
});

describe('periods', () => {
  const api = { timeZone: 'UTC', settleMs: 0 };
  it('the last complete hour or day in the zone, and how long since it could be judged', () => {
    const at = new Date('2026-11-23T09:12:30Z'); // 10:12:30 in Berlin
    expect(lastPeriod('hour', 'Europe/Berlin', at, api)).toMatchObject({
      key: '2026-11-23T09',
      date: '2026-11-23',
      hour: 9,
      elapsedMs: 12.5 * 60_000,
    });
    // Berlin's Nov 22 is the API's (UTC) Nov 22, over at midnight UTC.
    expect(lastPeriod('day', 'Europe/Berlin', at, api)).toMatchObject({
      key: '2026-11-22',
      date: '2026-11-22',
      elapsedMs: (9 * 60 + 12.5) * 60_000,
    });
    expect(lastPeriod('hour', 'Europe/Berlin', new Date('2026-11-22T23:05:00Z'), api)).toMatchObject({
      key: '2026-11-22T23',
      hour: 23,
    });
    expect(lastPeriod('hour', 'Not/AZone', at, api)).toBeUndefined();
  });

  it("names each period's zone: an hour is the watch's zone's, a day the API's (issue 34)", () => {
    const rule = (every: 'hour' | 'day'): WatchRule => ({
      metric: 'visits',
      report: 'visits',
      filters: [],
      condition: { kind: 'above', value: 30 },
      every,
    });
    const hour = observationOf(rule('hour'), { date: '2026-11-27', hour: 14 }, 'Europe/Berlin', api, [48]);
    expect(hour).toMatchObject({ ok: true, label: '14:00–15:00 on Nov 27 (Europe/Berlin)' });
    expect(describeObservation(rule('hour'), hour as Extract<Observation, { ok: true }>, 'breach')).toBe(
      '48 visits 14:00–15:00 on Nov 27 (Europe/Berlin), above 30 (back to normal at 27 or less)',
    );
    // A daily watch in Berlin judges the API's day: its figure is that day as the API (UTC) counts it.
    const day = observationOf(rule('day'), { date: '2026-11-27' }, 'Europe/Berlin', api, [1440]);
    expect(day).toMatchObject({ ok: true, label: 'on Nov 27 (in UTC, as the analytics API counts days)' });
    expect(periodLabel({ date: '2026-11-27' }, { timeZone: 'Asia/Tokyo', apiZone: 'America/New_York' })).toBe(
      'on Nov 27 (in America/New_York, as the analytics API counts days)',
    );
    expect(judgedWords('hour', { timeZone: 'Europe/Berlin', apiZone: 'UTC' })).toBe(
      'the last complete hour (Europe/Berlin)',
    );
    expect(judgedWords('day', { timeZone: 'Europe/Berlin', apiZone: 'UTC' })).toBe(
      'the last complete day (in UTC, as the analytics API counts days)',
    );
  });

  it("an alert's chart shows the periods up to the one judged, none after it (issue 34)", () => {
    expect(chartPeriods({ date: '2026-11-27', hour: 14 })).toEqual({
      range: { startDate: '2026-11-27', endDate: '2026-11-27', label: 'Nov 27, 2026' },
      shown: 15,
    });
    expect(chartPeriods({ date: '2026-11-27' })).toEqual({
      range: { startDate: '2026-11-21', endDate: '2026-11-27', label: 'Nov 21 – Nov 27, 2026' },
      shown: 7,
    });
  });

  it('hours are real hours: the hour before is the one before in time across a clock change, and a skipped hour is never a period', () => {
    const berlin = 'Europe/Berlin';
    expect(periodBefore({ date: '2026-03-29', hour: 3 }, berlin)).toEqual({ date: '2026-03-29', hour: 1 });
    expect(periodBefore({ date: '2026-10-25', hour: 3 }, berlin)).toEqual({ date: '2026-10-25', hour: 2 });
    expect(periodBefore({ date: '2026-10-25', hour: 2 }, berlin)).toEqual({ date: '2026-10-25', hour: 1 });
    expect(periodBefore({ date: '2026-11-23', hour: 0 }, berlin)).toEqual({ date: '2026-11-22', hour: 23 });
    // 03:30 in Berlin on Mar 29 (01:30 UTC): the last complete hour is 01:00–02:00 (it ended at 03:00).
    expect(lastPeriod('hour', berlin, new Date('2026-03-29T01:30:00Z'), api)).toMatchObject({ key: '2026-03-29T01' });
    // On Oct 25 the doubled 02:00 is complete once its second pass ends (03:00 CET, 02:00 UTC).
    expect(lastPeriod('hour', berlin, new Date('2026-10-25T01:30:00Z'), api)).toMatchObject({ key: '2026-10-25T01' });
    expect(lastPeriod('hour', berlin, new Date('2026-10-25T02:30:00Z'), api)).toMatchObject({ key: '2026-10-25T02' });
  });

  it('figures are counted per 60 minutes of real time, and an hour the clocks skipped is nothing to compare with', () => {
    const hourly = (condition: Condition): WatchRule => ({
      metric: 'visits',
      report: 'visits',
      filters: [],
      condition,
      every: 'hour',
    });
    const above = observationOf(
      hourly({ kind: 'above', value: 90 }),
      { date: '2026-10-25', hour: 2 },
      'Europe/Berlin',
      api,
      [120],
    );
    expect(above).toMatchObject({
      ok: true,
      value: 60,
      label: '02:00–03:00 on Oct 25 (Europe/Berlin; 120 in its 120 minutes, as the clocks went back: counted per 60)',
    });
    // Lord Howe's 02:00 of Oct 4 lasts 30 minutes: 30 visits are 60 an hour.
    expect(
      observationOf(
        hourly({ kind: 'below', value: 50 }),
        { date: '2026-10-04', hour: 2 },
        'Australia/Lord_Howe',
        api,
        [30],
      ),
    ).toMatchObject({ ok: true, value: 60 });
    const lastWeek = hourly({ kind: 'change', direction: 'rises', pct: 50, against: 'last_week' });
    expect(comparedWith(lastWeek, { date: '2026-04-05', hour: 2 }, 'Europe/Berlin')).toEqual([
      { date: '2026-03-29', hour: 2 },
    ]);
    const skipped = observationOf(lastWeek, { date: '2026-04-05', hour: 2 }, 'Europe/Berlin', api, [60, 0]);
    expect(skipped).toEqual({
      ok: false,
      error:
        'There was no 02:00–03:00 on Mar 29 (Europe/Berlin; the clocks skipped it): nothing to compare 02:00–03:00 on Apr 5 (Europe/Berlin) with.',
    });
    expect(decide(lastWeek.condition, 'ok', skipped)).toBe('unknown');
  });

  it('a period is judged only once it is final at the API: after the settling margin, and once the API (UTC) has ended its day', () => {
    const settled = { timeZone: 'UTC', settleMs: 10 * 60_000 };
    // 10:05 in Berlin: 09:00–10:00 is still settling, so 08:00–09:00 is the last final hour.
    expect(lastPeriod('hour', 'Europe/Berlin', new Date('2026-11-23T09:05:00Z'), settled)).toMatchObject({
      key: '2026-11-23T08',
    });
    expect(lastPeriod('hour', 'Europe/Berlin', new Date('2026-11-23T09:10:00Z'), settled)).toMatchObject({
      key: '2026-11-23T09',
      elapsedMs: 0,
    });
    // 00:50 on Nov 21 in Tokyo: the API's Nov 20 is open until 09:00 there (plus 10 minutes), so Nov 19 is the last final day.
    expect(lastPeriod('day', 'Asia/Tokyo', new Date('2026-11-20T15:50:00Z'), settled)).toMatchObject({
      key: '2026-11-19',
    });
    expect(lastPeriod('day', 'Asia/Tokyo', new Date('2026-11-21T00:10:00Z'), settled)).toMatchObject({
      key: '2026-11-20',
      elapsedMs: 0,
    });
    // Behind UTC, a day is final at the API before it is over in the zone: it is judged once it is over.
    expect(lastPeriod('day', 'America/Los_Angeles', new Date('2026-11-21T07:59:00Z'), settled)).toMatchObject({
      key: '2026-11-19',
    });
    expect(lastPeriod('day', 'America/Los_Angeles', new Date('2026-11-21T08:00:00Z'), settled)).toMatchObject({
      key: '2026-11-20',
      elapsedMs: 0,
    });
  });

  it('spreads watches over the first part of a period', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 3_600_000 }), (id, spread) => {
        const o = spreadOffset(id, spread);
        expect(o).toBeGreaterThanOrEqual(0);
        expect(o).toBeLessThan(spread);
      }),
    );
    const offsets = Array.from({ length: 200 }, (_, i) => spreadOffset(i + 1, 20 * 60_000));
    const minutes = new Set(offsets.map((o) => Math.floor(o / 60_000)));
    expect(minutes.size).toBeGreaterThanOrEqual(18); // 200 watches land across the 20 minutes
    expect(median([5, 1, 3, 100])).toBe(4);
  });
});

describe('parseWatchCommand', () => {
  const parse = (text: string) => parseWatchCommand(commandTokens(text) as Token[], REPORTS);
  it("reads the issue's examples", () => {
    expect(parse('visits drops 40% vs last week')).toEqual({
      kind: 'add',
      rule: {
        metric: 'visits',
        report: 'visits',
        filters: [],
        condition: { kind: 'change', direction: 'drops', pct: 40, against: 'last_week' },
        every: 'day',
      },
    });
    expect(parse('sources source:google visits below 100 per day')).toMatchObject({
      kind: 'add',
      rule: {
        report: 'sources',
        condition: { kind: 'below', value: 100 },
        every: 'day',
        filters: [{ filters: [{ object: 'source', value: ['google'] }] }],
      },
    });
    expect(parse('pages page~/checkout spike')).toMatchObject({
      rule: { report: 'pages', condition: { kind: 'spike' }, every: 'hour' },
    });
    expect(parse('countries new')).toMatchObject({
      rule: { report: 'countries', condition: { kind: 'new', top: 10 } },
    });
    expect(parse('bots above 20%')).toMatchObject({
      rule: { metric: 'bots', condition: { kind: 'above', value: 20 }, every: 'hour' },
    });
    expect(parse('visits above 500 every hour #marketing')).toMatchObject({
      rule: { every: 'hour' },
      channel: { name: 'marketing' },
    });
  });

  it('answers what is wrong and changes nothing', () => {
    for (const [text, problem] of [
      ['', /Say what to watch/],
      ['visits', /Add a condition/],
      ['visits above lots', /needs a number/],
      ['visits drops 40', /needs a percentage/],
      ['visits above 5 below 3', /One condition/],
      ['bots above 120%', /a share from 0% to 100%/],
      ['bots above 120', /at most 100%/],
      ['bots spike', /bots above/],
      ['visits new', /name one/],
      ['sorces above 5', /Don't understand `sorces`/],
      ['pause', /Which watch/],
      ['mute 3 for ever', /how long/],
    ] as const)
      expect(parse(text)).toMatchObject({ kind: 'error', message: expect.stringMatching(problem) });
    expect(parse('list all')).toEqual({ kind: 'list', all: true });
    expect(parse('remove #4')).toEqual({ kind: 'remove', id: 4 });
    expect(parse('mute 4 for 7d')).toMatchObject({ kind: 'mute', id: 4, forMs: 7 * 86_400_000 });
    expect(parse('mute 4 forever')).toMatchObject({ kind: 'mute', forMs: null });
    expect(parse('edit 4 visits above 9')).toMatchObject({
      kind: 'edit',
      id: 4,
      rule: { condition: { kind: 'above', value: 9 } },
    });
  });
});

describe('the watch list (issue 34)', () => {
  it("says when each watch was checked in its own zone, after the hour it judged had ended, whatever the list's zone", async () => {
    const { watchListMessage } = await import('../../../src/features/watches/blocks.js');
    const rule = (every: 'hour' | 'day'): WatchRule => ({
      metric: 'visits',
      report: 'visits',
      filters: [],
      condition: { kind: 'above', value: 30 },
      every,
    });
    const item = (id: number, every: 'hour' | 'day', timeZone: string, lastText: string) => ({
      id,
      rule: rule(every),
      channelId: 'C1',
      ownerId: 'U1',
      paused: false,
      state: 'breaching' as const,
      lastOutcome: 'breach',
      lastText,
      lastEvaluatedAt: new Date('2026-11-27T14:10:00Z'),
      timeZone,
      createdAt: new Date('2026-09-01T00:00:00Z'),
      alerts: 0,
      canManage: false,
    });
    const message = watchListMessage(
      [
        item(1, 'hour', 'Europe/Berlin', '48 visits 14:00–15:00 on Nov 27 (Europe/Berlin), above 30'),
        item(2, 'day', 'Asia/Tokyo', '1,440 visits on Nov 26 (in UTC, as the analytics API counts days), above 30'),
      ],
      { now: new Date('2026-11-27T14:10:00Z'), heading: 'this channel' },
    );
    const [berlin, tokyo] = JSON.stringify(message.blocks)
      .split('*#')
      .slice(1)
      .map((t) => t.split('"}')[0]!);
    expect(berlin).toContain(
      ':rotating_light: breaching: 48 visits 14:00–15:00 on Nov 27 (Europe/Berlin), above 30 · checked Nov 27, 15:10 (Europe/Berlin), after that hour ended',
    );
    expect(tokyo).toContain('· checked Nov 27, 23:10 (Asia/Tokyo), after that day ended at the API');
  });
});
