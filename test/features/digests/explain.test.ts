import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REPORTS } from '../../../src/kernel/catalog.js';
import { previousPeriod, type DateRange } from '../../../src/kernel/dates.js';
import type { Entry } from '../../../src/kernel/movers.js';
import { validateMessage } from '../../../src/slack-rules/validate.js';
import { digestMessage, type DigestSection, type DigestView } from '../../../src/features/digests/blocks.js';
import {
  DIGEST_MOVERS,
  COMPARE_DEPTH,
  digestMovers,
  flaggedShareLine,
  periodShare,
  type PeriodShare,
} from '../../../src/features/digests/content.js';
import { mrkdwnOf } from '../../support/sandbox.js';

const PERIOD: DateRange = {
  startDate: '2026-11-18',
  endDate: '2026-11-24',
  label: 'The 7 days before today (Nov 18 – Nov 24, 2026)',
};
const PREVIOUS = previousPeriod(PERIOD);

const e = (label: string, visits: number): Entry => ({ label, visits });

function section(id: 'sources' | 'pages' | 'countries', compared: DigestSection['compared']): DigestSection {
  return { def: REPORTS[id], lines: [], compared };
}

function view(overrides: Partial<DigestView> = {}): DigestView {
  return {
    id: 7,
    title: 'Digest: Sources, Pages, Countries',
    period: PERIOD,
    previous: PREVIOUS,
    timeZone: 'Europe/Berlin',
    apiZone: 'UTC',
    filters: [],
    totals: { visits: 4210, unique: 380, previousVisits: 3980, previousUnique: 400 },
    sections: [],
    demo: false,
    preview: false,
    ...overrides,
  };
}

const moversText = (v: DigestView) => mrkdwnOf(digestMessage(v)).find((t) => t.startsWith('*Top movers*'));

describe('digestMovers', () => {
  it('names each report’s largest movers, first of each report first, each with its kind, a new entry marked', () => {
    const moved = digestMovers([
      section('sources', { current: [e('x.com', 212), e('google', 500)], previous: [e('google', 480)] }),
      section('pages', { current: [e('/pricing', 240), e('/', 300)], previous: [e('/pricing', 100), e('/', 300)] }),
      section('countries', {
        current: [e('Germany', 196), e('France', 60)],
        previous: [e('Germany', 100), e('France', 60)],
      }),
    ])!;
    expect(moved.list.map((m) => [m.label, m.change, m.isNew])).toEqual([
      ['x.com', 212, true],
      ['/pricing', 140, false],
      ['Germany', 96, false],
      ['google', 20, false],
    ]);
    expect(moversText(view({ movers: moved }))).toBe(
      '*Top movers* against Nov 11 – Nov 17, 2026: source x.com +212 (new), page /pricing +140, country Germany +96, source google +20',
    );
  });

  it('leaves out a report whose list reached the depth fetched, and says so', () => {
    const moved = digestMovers([
      section('sources', { current: [e('a', 10)], previous: [e('a', 4)] }),
      section('pages', 'cut'),
    ])!;
    expect(moved.cut).toEqual(['Pages']);
    expect(moved.compared).toBe(1);
    expect(moversText(view({ movers: moved }))).toBe(
      `*Top movers* against Nov 11 – Nov 17, 2026: source a +6\n_Not compared (${COMPARE_DEPTH.toLocaleString('en-US')} entries or more in a period): Pages._`,
    );
  });

  it('a report that failed, or one without counts, is not compared; none compared: no movers at all', () => {
    expect(
      digestMovers([
        { def: REPORTS.pages, error: 'down' },
        { def: REPORTS.visitors, lines: [] },
      ]),
    ).toBeUndefined();
    expect(moversText(view())).toBeUndefined();
  });

  it('names an entry that moved more than the whole with what the rest did; nothing when nothing changed', () => {
    const moved = digestMovers([section('sources', { current: [e('a', 100), e('b', 0)], previous: [e('b', 95)] })])!;
    expect(moved.list.map((m) => [m.label, m.change, m.rest])).toEqual([['a', 100, -95]]);
    expect(moversText(view({ movers: moved }))).toContain('source a +100 (new; everything else −95)');
    const still = digestMovers([section('sources', { current: [e('a', 5), e('b', 0)], previous: [e('b', 5)] })])!;
    expect(still.list).toEqual([]);
    expect(moversText(view({ movers: still }))).toMatch(/no entry to name: .*cancel each other out/);
  });

  it('escapes labels and stays within Slack’s limits', () => {
    const hostile = ['<!channel>', '<https://evil.example|x>', '*b* & _i_', '🚀'.repeat(3000)];
    const moved = digestMovers([
      section('sources', { current: hostile.map((l, i) => e(l, 1000 - i)), previous: [] }),
      section('pages', { current: hostile.map((l, i) => e(l, 500 - i)), previous: [] }),
    ])!;
    const message = digestMessage(view({ movers: moved }));
    const verdict = validateMessage(message);
    expect(verdict.ok ? [] : verdict.reasons).toEqual([]);
    const text = moversText(view({ movers: moved }))!;
    expect(text).not.toMatch(/<!channel>|<https/);
    expect(text).toContain('&lt;!channel&gt;');
  });

  it('never claims more than a report’s change, nor names more than DIGEST_MOVERS (property)', () => {
    const ids = ['sources', 'pages', 'countries'] as const;
    const entries = (id: string) =>
      fc.array(
        fc.record({
          label: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f').map((l) => `${id}:${l}`),
          visits: fc.nat(500),
        }),
        { maxLength: 8 },
      );
    const report = (id: string) =>
      fc.oneof(fc.record({ current: entries(id), previous: entries(id) }), fc.constant('cut' as const));
    fc.assert(
      fc.property(fc.tuple(...ids.map(report)), (compared) => {
        const sections = ids.map((id, i) => section(id, compared[i]));
        const moved = digestMovers(sections)!;
        expect(moved.list.length).toBeLessThanOrEqual(DIGEST_MOVERS);
        for (const [i, s] of sections.entries()) {
          if (s.compared === 'cut' || !s.compared) continue;
          const sum = (list: Entry[]) => list.reduce((n, x) => n + x.visits, 0);
          const change = sum(s.compared.current) - sum(s.compared.previous);
          const own = moved.list.filter((m) => m.label.startsWith(`${ids[i]}:`));
          for (const m of own) expect(Math.sign(m.change)).toBe(Math.sign(change));
          // What is claimed: the changes named, and where one entry moved more than the whole, what the rest did.
          const claimed = own.reduce((n, m) => n + m.change + (m.rest ?? 0), 0);
          expect(Math.abs(claimed)).toBeLessThanOrEqual(Math.abs(change));
          expect(Math.sign(claimed) * Math.sign(change)).not.toBe(-1);
        }
      }),
    );
  });
});

describe('periodShare', () => {
  const judged = { checked: new Set(['a', 'b', 'c']), flagged: new Set(['b']) };
  const visits = ['a', 'b', 'b', 'c', 'd', undefined].map((visitor_id) => (visitor_id ? { visitor_id } : {}));

  it('counts visits, visitors, judged visitors, judged visits and flagged visits', () => {
    expect(periodShare(visits, judged, 1000)).toEqual({
      visits: 6,
      sampled: false,
      visitors: 4,
      judgedVisitors: 3,
      judgedVisits: 4,
      flaggedVisits: 2,
    });
  });

  it('is a sample when the cap was reached and the period has more; not when the totals say it was all', () => {
    expect(periodShare(visits, judged, 6, 9)).toMatchObject({ visits: 6, sampled: true, total: 9 });
    expect(periodShare(visits, judged, 6, 6)).toMatchObject({ sampled: false });
    expect(periodShare(visits, judged, 6)).toMatchObject({ sampled: true });
    expect(periodShare(visits, judged, 6)).not.toHaveProperty('total');
  });
});

describe('flaggedShareLine', () => {
  const share = (o: Partial<PeriodShare>): PeriodShare => ({
    visits: 4210,
    sampled: false,
    visitors: 2500,
    judgedVisitors: 2500,
    flaggedVisits: 505,
    ...o,
    judgedVisits: o.judgedVisits ?? o.visits ?? 4210,
  });
  const line = (current: Partial<PeriodShare>, previous: Partial<PeriodShare>) =>
    flaggedShareLine({
      current: share(current),
      previous: share({ visits: 3980, flaggedVisits: 199, ...previous }),
      period: PERIOD,
      previousPeriod: PREVIOUS,
      apiZone: 'UTC',
    });

  it('gives each period’s share of its own visits, and the change in points', () => {
    expect(line({}, {})).toBe(
      'Flagged visitors made 12% of the 4,210 visits of Nov 18 – Nov 24, 2026 (days in UTC, as the analytics API counts them), +7 points against the previous period (Nov 11 – Nov 17, 2026: 5% of the 3,980 visits).',
    );
    expect(line({ flaggedVisits: 250 }, {})).toMatch(/6% of the 4,210 visits .*, \+1 point against/);
    expect(line({ flaggedVisits: 210 }, {})).toMatch(/, no change against/);
    expect(line({ flaggedVisits: 0 }, {})).toMatch(/made 0% of .*, -5 points against/);
  });

  it('where not every visit was judged: the bounds and how many were, no points; under half judged: unknown', () => {
    // 3,400 of the 4,210 visits judged, 505 of them flagged: 505 to 505 + 810 flagged, 12–32%.
    expect(line({ judgedVisitors: 2000, judgedVisits: 3400 }, { judgedVisitors: 2400, judgedVisits: 3900 })).toBe(
      'Flagged visitors made 11–32% of the 4,210 visits of Nov 18 – Nov 24, 2026 (days in UTC, as the analytics API counts them; 3,400 of those visits judged), against the previous period (Nov 11 – Nov 17, 2026: 5–8% of the 3,980 visits; 3,900 of those visits judged).',
    );
    // Only one side known: still no points.
    expect(line({}, { judgedVisits: 3000 })).toMatch(
      /\(days in UTC, as the analytics API counts them\), against the previous period/,
    );
    expect(line({ judgedVisits: 1000 }, {})).toBe(
      'Flagged visitors made an unknown share of the 4,210 visits of Nov 18 – Nov 24, 2026 (days in UTC, as the analytics API counts them; 1,000 of those visits judged), against the previous period (Nov 11 – Nov 17, 2026: 5% of the 3,980 visits).',
    );
    expect(line({ visits: 5000, sampled: true, total: 12345, flaggedVisits: 600 }, {})).toMatch(
      /^Flagged visitors made 12% of the latest 5,000 of the 12,345 visits \(a sample\) of Nov 18/,
    );
  });

  it('a previous period without visits, or with none judged, says so; a period with none judged has no line', () => {
    expect(line({}, { visits: 0, visitors: 0, judgedVisitors: 0, flaggedVisits: 0 })).toMatch(
      /; the previous period \(Nov 11 – Nov 17, 2026\) had no visits\.$/,
    );
    expect(line({}, { visits: 1, visitors: 1, judgedVisitors: 0, judgedVisits: 0, flaggedVisits: 0 })).toMatch(
      /; in the previous period \(Nov 11 – Nov 17, 2026\) its one visit was not judged\.$/,
    );
    expect(line({ judgedVisitors: 0, judgedVisits: 0, flaggedVisits: 0 }, {})).toBeUndefined();
    expect(line({ visits: 0, visitors: 0, judgedVisitors: 0, flaggedVisits: 0 }, {})).toBeUndefined();
  });

  it('property: a share stated holds the true one, whatever part of the visits (flagged ones first) was judged', () => {
    const fraction = fc.integer({ min: 0, max: 100 }).map((n) => n / 100);
    const period = fc
      .record({
        visits: fc.integer({ min: 1, max: 2000 }),
        flagged: fraction,
        judgedPeople: fraction,
        judgedFlagged: fraction,
      })
      .map(({ visits, flagged, judgedPeople, judgedFlagged }) => {
        const truth = Math.round(visits * flagged);
        const seen = Math.round(truth * Math.max(judgedPeople, judgedFlagged));
        const judgedVisits = seen + Math.round((visits - truth) * judgedPeople);
        return { truth: truth / visits, share: share({ visits, judgedVisits, flaggedVisits: seen }) };
      });
    fc.assert(
      fc.property(period, period, (current, previous) => {
        fc.pre(current.share.judgedVisits > 0 && previous.share.judgedVisits > 0);
        const text = flaggedShareLine({
          current: current.share,
          previous: previous.share,
          period: PERIOD,
          previousPeriod: PREVIOUS,
          apiZone: 'UTC',
        })!;
        const stated = [...text.matchAll(/(an unknown share|[<>]?\d+%|\d+–\d+%) of the/g)].map((m) => m[1]!);
        expect(stated).toHaveLength(2);
        stated.forEach((s, i) => {
          const t = [current, previous][i]!.truth * 100;
          const range = /^(\d+)–(\d+)%$/.exec(s);
          if (s === 'an unknown share') return;
          if (range) expect(Number(range[1]) <= t + 1e-9 && t <= Number(range[2]) + 1e-9).toBe(true);
          else if (s === '<1%') expect(t > 0 && t < 0.5).toBe(true);
          else if (s === '>99%') expect(t >= 99.5 && t < 100).toBe(true);
          else expect(Math.abs(Number(s.slice(0, -1)) - t)).toBeLessThanOrEqual(0.5 + 1e-9);
        });
      }),
    );
  });

  it('every share lies within 0–100% and the points are the shares’ difference (property)', () => {
    const period = fc
      .record({
        visits: fc.integer({ min: 1, max: 10_000 }),
        flagged: fc.nat(10_000),
        visitors: fc.integer({ min: 1, max: 100 }),
      })
      .map(({ visits, flagged, visitors }) =>
        share({
          visits,
          flaggedVisits: Math.min(flagged, visits),
          visitors,
          judgedVisitors: visitors,
          judgedVisits: visits,
        }),
      );
    fc.assert(
      fc.property(period, period, (current, previous) => {
        const text = flaggedShareLine({
          current,
          previous,
          period: PERIOD,
          previousPeriod: PREVIOUS,
          apiZone: 'UTC',
        })!;
        const shares = [...text.matchAll(/([<>]?)(\d+)% of the/g)].map((m) => Number(m[2]));
        expect(shares).toHaveLength(2);
        for (const s of shares) expect(s).toBeGreaterThanOrEqual(0);
        for (const s of shares) expect(s).toBeLessThanOrEqual(100);
        const points = /, ([+-]\d+) points? against|, (no change) against/.exec(text)!;
        const expected =
          Math.round((current.flaggedVisits / current.visits) * 100) -
          Math.round((previous.flaggedVisits / previous.visits) * 100);
        expect(points[2] ? 0 : Number(points[1])).toBe(expected);
      }),
    );
  });
});
