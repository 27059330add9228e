/**
 * Hours are local hours: hourly watches owned in Europe/Berlin, over the nights the clocks
 * change, against an API with one visit a minute all year (a real server), through the
 * running app with its world.at in the test's hands. The issue measured, on Mar 29, "0 visits
 * 02:00–03:00: −100%" and "below 30", and on Oct 25, "120 visits 02:00–03:00: above 90"
 * and "+100%": a constant rate must raise nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lookout } from '../../../src/compose.js';
import type { Condition, WatchRule } from '../../../src/features/watches/plan.js';
import { startSteadyWorld, type SteadyWorld } from '../../support/steady-api.js';

const HOUR = 3_600_000;
let world: SteadyWorld;
let app: Lookout;

beforeAll(async () => {
  world = await startSteadyWorld({ at: '2026-03-01T00:00:00Z', from: '2026-01-01T00:00:00Z' });
  ({ app } = world);
});
afterAll(() => world?.close());

const CONDITIONS: Record<string, Condition> = {
  'below 30': { kind: 'below', value: 30 },
  'above 90': { kind: 'above', value: 90 },
  'drops 50% vs the hour before': { kind: 'change', direction: 'drops', pct: 50, against: 'previous' },
  'rises 50% vs the hour before': { kind: 'change', direction: 'rises', pct: 50, against: 'previous' },
  'drops 50% vs last week': { kind: 'change', direction: 'drops', pct: 50, against: 'last_week' },
  'rises 50% vs last week': { kind: 'change', direction: 'rises', pct: 50, against: 'last_week' },
  spike: { kind: 'spike' },
};

interface Judged {
  rule: string;
  period: string;
  value?: number;
  outcome?: string;
  text?: string;
}

/** Hourly watches owned in Berlin, ticked 15 minutes past every hour (UTC) from `from` to `to`; what each judged. */
async function night(channel: string, from: string, to: string): Promise<Judged[]> {
  const ids = new Map<number, string>();
  for (const [name, condition] of Object.entries(CONDITIONS)) {
    const rule: WatchRule = { metric: 'visits', report: 'visits', filters: [], condition, every: 'hour' };
    ids.set(
      (
        await app.store.watches.create({
          teamId: 'T1',
          channelId: channel,
          ownerId: 'U_ALICE',
          rule,
          timeZone: 'Europe/Berlin',
        })
      ).id,
      name,
    );
  }
  const judged: Judged[] = [];
  for (let t = Date.parse(from); t <= Date.parse(to); t += HOUR) {
    world.at = t;
    await app.features.watches.evaluator.tick();
    for (const [id, name] of ids) {
      const w = (await app.store.watches.get(id))!;
      if (w.lastPeriod && !judged.some((j) => j.rule === name && j.period === w.lastPeriod)) {
        judged.push({
          rule: name,
          period: w.lastPeriod,
          ...(w.lastValue === undefined ? {} : { value: w.lastValue }),
          ...(w.lastOutcome ? { outcome: w.lastOutcome } : {}),
          ...(w.lastText ? { text: w.lastText } : {}),
        });
      }
    }
  }
  return judged;
}

const hoursJudged = (judged: Judged[], rule: string) => judged.filter((j) => j.rule === rule).map((j) => j.period);

describe('hourly watches in Europe/Berlin, one visit a minute', () => {
  it('spring forward (Mar 29, 2026): the missing 02:00 is not a zero; the hour before 03:00 is 01:00; nothing alerts', async () => {
    // 22:15 on Mar 28 to 08:15 on Mar 29, Berlin time (each tick judges the hour before); the clocks go from 02:00 to 03:00 at 01:00 UTC.
    const judged = await night('C_SPRING', '2026-03-28T21:15:00Z', '2026-03-29T06:15:00Z');
    expect(hoursJudged(judged, 'below 30')).toEqual([
      '2026-03-28T21',
      '2026-03-28T22',
      '2026-03-28T23',
      '2026-03-29T00',
      '2026-03-29T01',
      '2026-03-29T03',
      '2026-03-29T04',
      '2026-03-29T05',
      '2026-03-29T06',
      '2026-03-29T07',
    ]);
    expect(
      judged.filter((j) => j.outcome === 'breach'),
      JSON.stringify(judged, null, 1),
    ).toEqual([]);
    expect(judged.filter((j) => j.rule !== 'spike' || j.outcome !== 'unknown').every((j) => j.value === 60)).toBe(true);
    const after = judged.find((j) => j.rule === 'drops 50% vs the hour before' && j.period === '2026-03-29T03')!;
    expect(after.text).toMatch(/^60 visits 03:00–04:00 on Mar 29 \(Europe\/Berlin\): \+0% against 60 the hour before/);
  });

  it('fall back (Oct 25, 2026): the doubled 02:00 is one period of two hours, counted per hour: no "above 90", no "+100%"', async () => {
    // 22:15 on Oct 24 to 07:15 on Oct 25, Berlin time (each tick judges the hour before); the clocks go from 03:00 back to 02:00 at 01:00 UTC.
    const judged = await night('C_FALL', '2026-10-24T20:15:00Z', '2026-10-25T06:15:00Z');
    expect(hoursJudged(judged, 'above 90')).toEqual([
      '2026-10-24T21',
      '2026-10-24T22',
      '2026-10-24T23',
      '2026-10-25T00',
      '2026-10-25T01',
      '2026-10-25T02',
      '2026-10-25T03',
      '2026-10-25T04',
      '2026-10-25T05',
      '2026-10-25T06',
    ]);
    expect(
      judged.filter((j) => j.outcome === 'breach'),
      JSON.stringify(judged, null, 1),
    ).toEqual([]);
    const doubled = judged.find((j) => j.rule === 'above 90' && j.period === '2026-10-25T02')!;
    expect(doubled.value).toBe(60);
    expect(doubled.text).toMatch(
      /^60 visits 02:00–03:00 on Oct 25 \(Europe\/Berlin; 120 in its 120 minutes, as the clocks went back: counted per 60\), not above 90$/,
    );
    const rise = judged.find((j) => j.rule === 'rises 50% vs the hour before' && j.period === '2026-10-25T03')!;
    expect(rise.text).toMatch(/\+0% against 60 the hour before/);
  });
});
