import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { verdict } from '../../../src/kernel/flagged-share.js';
import {
  acrossReports,
  MAX_MOVERS,
  movers,
  moverWords,
  signedCount,
  totalChange,
  type Entry,
} from '../../../src/kernel/movers.js';
import { explanationText } from '../../../src/features/watches/explanation-text.js';
import { LIMITS } from '../../../src/platform/slack/kit/limits.js';

const e = (label: string, visits: number): Entry => ({ label, visits });

/** Entries over a small set of labels, so current and baseline share some; an empty array is a missing period. */
const entries = fc.array(
  fc.record({
    label: fc.constantFrom('direct', 'google', 'x.com', '/pricing', 'Germany', 'a', 'b', 'c', 'd', 'e', 'f', 'g'),
    visits: fc.nat(500),
  }),
  { maxLength: 14 },
);

describe('movers: the entries that account for most of the change', () => {
  it('names the largest rises first, marks the new ones, and stops within the change', () => {
    const baseline = [e('direct', 100), e('google', 60), e('bing', 10)];
    const current = [e('direct', 240), e('google', 70), e('x.com', 212), e('bing', 6)];
    const listed = movers(current, baseline);
    expect(listed.map((m) => [m.label, m.change, m.isNew])).toEqual([
      ['x.com', 212, true],
      ['direct', 140, false],
    ]);
    // bing fell 4, so the total rose 358: google's +10 after 352 would claim more than that.
    expect(totalChange(current, baseline)).toBe(358);
  });

  it('a fall names the largest falls, symmetric to a rise', () => {
    const listed = movers([e('direct', 20), e('google', 50)], [e('direct', 100), e('google', 60), e('bing', 5)]);
    expect(listed.map((m) => [m.label, m.change])).toEqual([
      ['direct', -80],
      ['google', -10],
      ['bing', -5],
    ]);
  });

  it('never claims more than the change: one entry that moved more than the whole is named with what the rest did', () => {
    // x.com rose 212 but direct fell 202: the total rose 10; x.com is named with everything else −202.
    expect(movers([e('x.com', 212), e('direct', 0)], [e('direct', 202)])).toEqual([
      { label: 'x.com', change: 212, current: 212, baseline: 0, isNew: true, newInTop: true, rest: -202 },
    ]);
    expect(movers([e('a', 30), e('b', 0)], [e('b', 10)]).map((m) => [m.change, m.rest])).toEqual([[30, -10]]);
    // Two that together pass the change: the first fits, the second is left out.
    expect(movers([e('a', 30), e('b', 20), e('c', 0)], [e('c', 15)]).map((m) => m.change)).toEqual([30]);
    expect(
      explanationText(
        movers([e('x.com', 150), e('direct', 0)], [e('direct', 19)]),
        verdict({
          current: { visits: 150, judgedVisits: 150, flaggedVisits: 0 },
          baseline: { visits: 19, judgedVisits: 19, flaggedVisits: 0 },
          scanOn: true,
          visitors: 150,
          judgedVisitors: 150,
          sampled: false,
        }),
        131,
      ).whatMoved,
    ).toBe('*What moved:* x.com +150 (new; everything else −19)');
  });

  it('no change in total names nothing, whatever moved inside', () => {
    expect(movers([e('a', 10), e('b', 0)], [e('b', 10)])).toEqual([]);
    expect(movers([], [])).toEqual([]);
  });

  it('a missing baseline (an empty period) makes every entry new; a missing current period is a fall of everything', () => {
    expect(movers([e('a', 5), e('b', 3)], []).map((m) => [m.label, m.isNew, m.newInTop])).toEqual([
      ['a', true, true],
      ['b', true, true],
    ]);
    expect(movers([], [e('a', 5), e('b', 3)]).map((m) => [m.label, m.change, m.isNew])).toEqual([
      ['a', -5, false],
      ['b', -3, false],
    ]);
  });

  it('a baseline of 0 counts as new', () => {
    expect(movers([e('a', 5)], [e('a', 0)])[0]).toMatchObject({ label: 'a', isNew: true, change: 5 });
  });

  it('an entry new in the top 10 takes the last place when none listed is', () => {
    const baseline = Array.from({ length: 10 }, (_, i) => e(`p${i}`, 100 - i)).concat(e('riser', 50));
    const current = baseline.map((x) => e(x.label, x.visits + (x.label === 'riser' ? 60 : x.label < 'p3' ? 200 : 0)));
    const listed = movers(current, baseline);
    expect(listed.map((m) => m.label)).toEqual(['p0', 'p1', 'riser']);
    expect(listed[2]).toMatchObject({ newInTop: true, isNew: false, change: 60 });
  });

  it('a count is rounded before its sign: never "−0"; a rest that rounds to nothing is left out', () => {
    expect([212, -40, 0, -0.3, 0.4, -0.5, 2.5, -1234.6].map(signedCount)).toEqual([
      '+212',
      '−40',
      '0',
      '0',
      '0',
      '−1',
      '+3',
      '−1,235',
    ]);
    // Four baseline hours averaged: /docs/ rose 2.25 while the rest fell 0.25, a change of 2.
    const [docs] = movers([e('/docs/', 3), e('/', 5)], [e('/docs/', 0.75), e('/', 5.25)]);
    expect(moverWords(docs!, 60)).toBe('/docs/ +2');
    expect(moverWords({ ...docs!, rest: -19 }, 60)).toBe('/docs/ +2 (everything else −19)');
    // An entry that moved by less than half a visit is not named.
    expect(movers([e('a', 10), e('b', 1)], [e('a', 9.75), e('b', 0.75)]).map((m) => m.label)).toEqual([]);
  });

  it('ties go by label, whatever the order given', () => {
    const current = [e('b', 10), e('a', 10), e('c', 10)];
    expect(movers(current, []).map((m) => m.label)).toEqual(['a', 'b', 'c']);
    expect(movers([...current].reverse(), []).map((m) => m.label)).toEqual(['a', 'b', 'c']);
  });

  it('property: the listed changes sum to at most the total change, one way, largest first, at most MAX_MOVERS', () => {
    fc.assert(
      fc.property(entries, entries, (current, baseline) => {
        const total = totalChange(current, baseline);
        const listed = movers(current, baseline);
        // What the list claims: its changes, and with one entry that moved more than the whole, what the rest did.
        const sum = listed.reduce((n, m) => n + m.change + (m.rest ?? 0), 0);
        expect(listed.length).toBeLessThanOrEqual(MAX_MOVERS);
        if (total >= 0) expect(sum).toBeLessThanOrEqual(total);
        else expect(sum).toBeGreaterThanOrEqual(total);
        for (const m of listed) if (m.rest !== undefined) expect(m.change + m.rest).toBe(total);
        for (const m of listed) {
          expect(Math.sign(m.change)).toBe(Math.sign(total));
          expect(m.change).toBe(m.current - m.baseline);
          expect(m.isNew).toBe(m.current > 0 && m.baseline === 0);
        }
        const sizes = listed.filter((m) => !m.newInTop).map((m) => Math.abs(m.change));
        expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
        expect(movers([...current].reverse(), [...baseline].reverse())).toEqual(listed);
      }),
    );
  });
});

describe('explanationText: the two lines', () => {
  const who = verdict({
    current: { visits: 408, judgedVisits: 408, flaggedVisits: 225 },
    baseline: { visits: 100, judgedVisits: 100, flaggedVisits: 6 },
    scanOn: true,
    visitors: 300,
    judgedVisitors: 300,
    sampled: false,
  });

  it('reads as the issue says', () => {
    const moved = movers([e('x.com', 212), e('/pricing', 240)], [e('/pricing', 100)]);
    const text = explanationText(moved, who, 352);
    expect(text.whatMoved).toBe('*What moved:* x.com +212 (new), /pricing +140');
    expect(text.whoMoved).toBe(
      '*Who moved it:* mostly automated: 71% of the rise is from flagged visitors (this period 55%; usual 6%)',
    );
    expect(text.text).toBe(`${text.whatMoved}\n${text.whoMoved}`);
  });

  it('movers of several reports: the first of each, then the second, at most MAX_MOVERS', () => {
    const sources = movers([e('x.com', 212), e('direct', 140)], [e('direct', 100)]);
    const pages = movers([e('/pricing', 240), e('/', 50)], [e('/pricing', 100), e('/', 40)]);
    const countries = movers([e('Germany', 196)], [e('Germany', 100)]);
    expect(acrossReports([sources, pages, countries]).map((m) => [m.label, m.change])).toEqual([
      ['x.com', 212],
      ['/pricing', 140],
      ['Germany', 96],
    ]);
    expect(acrossReports([sources, [], pages], 4).map((m) => m.label)).toEqual(['x.com', '/pricing', 'direct', '/']);
    expect(acrossReports([])).toEqual([]);
  });

  it('each mover names its kind, so sources, pages and countries are told apart; at most MAX_MOVERS', () => {
    const lists = [
      movers([e('x.com', 150), e('direct', 100)], [e('direct', 100)], { report: 'sources' }),
      movers([e('/pricing', 240)], [e('/pricing', 100)], { report: 'pages' }),
      movers([e('Germany', 196)], [e('Germany', 100)], { report: 'countries' }),
      movers([e('Chrome', 150)], [e('Chrome', 100)], { report: 'browsers' }),
    ];
    expect(explanationText(acrossReports(lists), who, 150).whatMoved).toBe(
      '*What moved:* source x.com +150 (new), page /pricing +140, country Germany +96',
    );
    // One entry that moved more than the whole: its kind, then what the rest did.
    const [one] = movers([e('x.com', 150), e('direct', 0)], [e('direct', 19)], { report: 'sources' });
    expect(moverWords(one!, 60)).toBe('source x.com +150 (new; everything else −19)');
  });

  it('labels go through the escaping path', () => {
    const moved = movers([e('<!channel> launch & more', 9)], []);
    expect(explanationText(moved, who, 9).whatMoved).toBe('*What moved:* &lt;!channel&gt; launch &amp; more +9 (new)');
  });

  it('an empty list says why', () => {
    expect(explanationText([], who, 0).whatMoved).toBe('*What moved:* nothing in total');
    expect(explanationText([], who, 0, undefined, 'the hour <before>').whatMoved).toBe(
      '*What moved* (against the hour &lt;before&gt;): nothing in total',
    );
    expect(explanationText([], who, 10).whatMoved).toMatch(/cancel out/);
  });

  it('property: the text stays within the limit asked, and within a section', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ label: fc.string({ maxLength: 3000 }), visits: fc.nat(1000) }), { maxLength: 6 }),
        fc.integer({ min: 40, max: LIMITS.sectionText }),
        (current, max) => {
          const text = explanationText(movers(current, []), who, totalChange(current, []), max).text;
          expect(Array.from(text).length).toBeLessThanOrEqual(max);
          expect(text).not.toMatch(/<|>/);
        },
      ),
    );
  });
});

describe('an alert shows its explanation only beside the period it explains', () => {
  const alertOf = async (lastPeriod: string) => {
    const { watchAlertMessage } = await import('../../../src/features/watches/blocks.js');
    return JSON.stringify(
      watchAlertMessage({
        id: 1,
        rule: { metric: 'visits', report: 'visits', filters: [], condition: { kind: 'spike' }, every: 'hour' },
        state: 'breaching',
        text: '408 visits 10:00–11:00 on Nov 24 (UTC)',
        timeZone: 'UTC',
        apiZone: 'UTC',
        now: new Date('2026-11-24T11:30:00Z'),
        demo: false,
        lastPeriod,
        explanation: {
          period: '2026-11-24T10',
          text: '*What moved:* x.com +300 (new)',
          verdict: 'mostly automated',
          flagged: ['v1'],
        },
      }),
    );
  };

  it('with its period: the explanation and its buttons', async () => {
    const shown = await alertOf('2026-11-24T10');
    expect(shown).toContain('x.com +300');
    expect(shown).toContain('watch.flagged');
    expect(shown).toContain('watch.ignore-automated');
  });

  it('after a later period was judged: neither the explanation nor its buttons', async () => {
    const shown = await alertOf('2026-11-24T11');
    expect(shown).not.toContain('x.com +300');
    expect(shown).not.toContain('watch.flagged');
    expect(shown).not.toContain('watch.ignore-automated');
  });
});
