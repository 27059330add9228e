import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORTS } from '../../../src/kernel/catalog.js';
import { commandTokens, type Token } from '../../../src/kernel/text.js';
import { parseRule, parseWatchCommand, ruleWords } from '../../../src/features/watches/parse.js';
import { periodBefore } from '../../../src/features/watches/period.js';
import type { Condition, Observation, WatchRule } from '../../../src/features/watches/plan.js';
import {
  breachesOf,
  previewPeriods,
  previewSentence,
  replay,
  stricterRule,
  unknownSentence,
} from '../../../src/features/watches/preview.js';

const tokens = (text: string) => commandTokens(text) as Token[];
const parse = (text: string) => parseWatchCommand(tokens(text), REPORTS);
const API = { timeZone: 'UTC', settleMs: 0 };

describe('the words of a preview and of the rules judged against the noise', () => {
  it('reads `spike <n> spreads`, `vs usual` and `preview <rule>`; refuses what is out of range', () => {
    expect(parse('visits spike 6 spreads')).toMatchObject({
      kind: 'add',
      rule: { condition: { kind: 'spike', spreads: 6 } },
    });
    expect(parse('visits drops 50% vs usual')).toMatchObject({
      rule: { condition: { kind: 'change', direction: 'drops', pct: 50, against: 'usual' }, every: 'day' },
    });
    expect(parse('preview visits spike')).toMatchObject({ kind: 'preview', rule: { condition: { kind: 'spike' } } });
    expect(parse('preview')).toMatchObject({ kind: 'error', message: expect.stringMatching(/Preview which rule/) });
    expect(parse('visits spike 1 spreads')).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/from 2 to 50/),
    });
    expect(parse('visits drops 40% vs usually')).toMatchObject({ kind: 'error' });
  });

  it('a rule in words reads back as the same rule', () => {
    const conditions = fc.oneof(
      fc.constant<Condition>({ kind: 'spike' }),
      fc.integer({ min: 2, max: 50 }).map((spreads): Condition => ({ kind: 'spike', spreads })),
      fc.record({
        kind: fc.constant('change' as const),
        direction: fc.constantFrom('drops' as const, 'rises' as const),
        pct: fc.integer({ min: 1, max: 1000 }),
        against: fc.constantFrom('usual' as const, 'previous' as const, 'last_week' as const),
      }),
      fc.record({ kind: fc.constantFrom('above' as const, 'below' as const), value: fc.nat(1_000_000) }),
    );
    const filters = fc.constantFrom('', 'country:Germany', 'page~/checkout source:google', 'country:US or country:DE');
    fc.assert(
      fc.property(conditions, filters, fc.constantFrom('hour' as const, 'day' as const), (condition, f, every) => {
        const parsed = parseRule(tokens(`visits ${f} spike`), REPORTS);
        expect('rule' in parsed).toBe(true);
        const base = (parsed as { rule: WatchRule }).rule;
        const rule: WatchRule = { ...base, condition, every };
        expect(parseRule(tokens(ruleWords(rule)), REPORTS)).toEqual({ rule });
      }),
    );
  });
});

describe('a preview over observations', () => {
  const ok = (value: number, history: number[]): Observation => ({ ok: true, value, history, label: 'x' });
  const now = new Date('2026-11-27T10:20:00Z');

  it('the periods are the last ones due, oldest first, each the one before the next, over the days asked', () => {
    const periods = previewPeriods('hour', 'Europe/Berlin', now, API, 2);
    expect(periods.length).toBe(48);
    expect(periods.at(-1)!.key).toBe('2026-11-27T10');
    for (let i = 1; i < periods.length; i++)
      expect(periodBefore(periods[i]!, 'Europe/Berlin')).toEqual({
        date: periods[i - 1]!.date,
        hour: periods[i - 1]!.hour,
      });
    expect(previewPeriods('day', 'UTC', now, API, 56).map((p) => p.key)).toHaveLength(56);
  });

  it('says when it would have alerted, in the zone, or never; and what could not be judged', () => {
    const periods = previewPeriods('hour', 'UTC', now, API, 1);
    const steady = [100, 104, 96, 100];
    const observations = periods.map((p, i): Observation =>
      i === 3 || i === 4 || i === 15
        ? ok(260, steady)
        : i === 9
          ? { ok: false, error: 'the API failed' }
          : ok(101, steady),
    );
    const replayed = replay({ kind: 'spike' }, periods, observations);
    // Hours 3 and 4 are one alert (still breaching), 15 another.
    expect(breachesOf(replayed).map((r) => r.period.key)).toEqual([periods[3]!.key, periods[15]!.key]);
    expect(previewSentence(replayed, 1)).toBe(
      `Would have alerted 2 times in the last day: Nov 26 ${String(periods[3]!.hour).padStart(2, '0')}:00, Nov 27 ${String(periods[15]!.hour).padStart(2, '0')}:00.`,
    );
    expect(unknownSentence(replayed, 'hour')).toBe(
      '1 of the 24 hours could not be judged (the API failed); they would neither have alerted nor recovered.',
    );
    expect(previewSentence(replay({ kind: 'spike', spreads: 20 }, periods, observations), 1)).toBe(
      'Would never have alerted in the last day.',
    );
  });

  it('offers a stricter rule only when it would have alerted too often, with its own count from the same observations', () => {
    const periods = previewPeriods('hour', 'UTC', now, API, 2);
    const noisy = [100, 130, 80, 110];
    // Every fourth hour +100%: 12 alerts in 2 days; 6 spreads (about 200 here) would have caught none.
    const observations = periods.map((_, i) => (i % 4 === 0 ? ok(210, noisy) : ok(100, noisy)));
    const rule: WatchRule = {
      metric: 'visits',
      report: 'visits',
      filters: [],
      condition: { kind: 'spike' },
      every: 'hour',
    };
    expect(breachesOf(replay(rule.condition, periods, observations))).toHaveLength(12);
    const stricter = stricterRule(rule, periods, observations, 2)!;
    expect(stricter.rule.condition).toEqual({ kind: 'spike', spreads: 6 });
    expect(stricter.breaches).toBe(breachesOf(replay(stricter.rule.condition, periods, observations)).length);
    expect(stricter.breaches).toBeLessThanOrEqual(2);
    const quiet = periods.map(() => ok(100, noisy));
    expect(stricterRule(rule, periods, quiet, 2)).toBeUndefined();
  });
});
