/**
 * A preview is what the watch would have done. For random rules and histories (a real API
 * whose visits each hour follow the history: a daily and a weekly cycle, noise, spikes and
 * outages), the periods the preview says would have alerted are exactly those the running
 * app's evaluator alerts on when its clock is stepped through the same history; and it
 * judges the same periods. Both run the product's code: the preview is the previewer's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Condition, WatchEvery, WatchRule } from '../../../src/features/watches/plan.js';
import { breachesOf } from '../../../src/features/watches/preview.js';
import { startSteadyWorld } from '../../support/steady-api.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-03-31T10:20:00Z');
/** Hourly watches look back 2 days, daily ones 10: the same code as 28 and 56, in a test's time. */
const DAYS: Record<WatchEvery, number> = { hour: 2, day: 10 };
const STEP: Record<WatchEvery, number> = { hour: HOUR / 4, day: HOUR };

interface History {
  salt: number;
  scale: number;
  spikes: number;
  outages: number;
}

/** A number in [0, 1) for an hour and a purpose, from the history's salt. */
function unit(salt: number, hour: number, purpose: number): number {
  let x = Math.imul(salt ^ Math.imul(hour, 0x9e3779b1) ^ Math.imul(purpose, 0x85ebca6b), 0xc2b2ae35) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 4294967296;
}

function perHour(h: History): (hourStart: number) => number {
  return (t) => {
    const hour = Math.floor(t / HOUR);
    const at = new Date(t);
    const ofDay = at.getUTCHours();
    const weekend = at.getUTCDay() === 0 || at.getUTCDay() === 6;
    let n = h.scale * (ofDay < 7 ? 0.2 : ofDay < 18 ? 1 : 0.5) * (weekend ? 0.6 : 1);
    n *= 0.7 + 0.6 * unit(h.salt, hour, 1);
    if (unit(h.salt, hour, 2) < h.spikes) n *= 3 + 3 * unit(h.salt, hour, 3);
    if (unit(h.salt, hour, 4) < h.outages) n = 0;
    return Math.round(n);
  };
}

const histories = fc.record({
  salt: fc.nat(),
  scale: fc.integer({ min: 4, max: 60 }),
  spikes: fc.integer({ min: 0, max: 80 }).map((n) => n / 1000),
  outages: fc.integer({ min: 0, max: 40 }).map((n) => n / 1000),
});

const conditions = fc.oneof(
  fc.constant<Condition>({ kind: 'spike' }),
  fc.integer({ min: 2, max: 6 }).map((spreads): Condition => ({ kind: 'spike', spreads })),
  fc.record({
    kind: fc.constant('change' as const),
    direction: fc.constantFrom('drops' as const, 'rises' as const),
    pct: fc.integer({ min: 20, max: 90 }),
    against: fc.constantFrom('usual' as const, 'previous' as const, 'last_week' as const),
  }),
  fc.integer({ min: 5, max: 80 }).map((value): Condition => ({ kind: 'above', value })),
  fc.integer({ min: 1, max: 40 }).map((value): Condition => ({ kind: 'below', value })),
);

const zones = fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York');

/** The periods the evaluator judged, and those it alerted on, stepped from `days` before NOW to NOW; and the preview at NOW. */
async function both(rule: WatchRule, timeZone: string, history: History) {
  const days = DAYS[rule.every];
  const since = NOW - days * 86_400_000;
  const world = await startSteadyWorld({
    at: new Date(since).toISOString(),
    from: '2026-01-05T00:00:00Z',
    perHour: perHour(history),
  });
  try {
    const { app } = world;
    const { evaluator, previewer } = app.features.watches;
    const watch = await app.store.watches.create({ teamId: 'T1', channelId: 'C1', ownerId: 'U1', rule, timeZone });
    // The period due before the preview's first is judged, then the watch starts afresh, as a preview does.
    await evaluator.tick();
    await app.store.watches.edit('T1', watch.id, rule, 'C1');
    let last = (await app.store.watches.get(watch.id))!.lastPeriod;
    const judged: string[] = [];
    const alerted: string[] = [];
    for (let t = since + STEP[rule.every]; t <= NOW; t += STEP[rule.every]) {
      world.at = t;
      await evaluator.tick();
      const w = (await app.store.watches.get(watch.id))!;
      if (w.lastPeriod === last || !w.lastPeriod) continue;
      last = w.lastPeriod;
      judged.push(w.lastPeriod);
      if (w.lastOutcome === 'breach') alerted.push(w.lastPeriod);
    }
    world.at = NOW;
    const preview = await previewer.preview(await app.tenants.of('T1'), undefined, rule, timeZone, { days });
    if (!preview.ok) throw new Error(JSON.stringify(preview.message));
    return {
      judged,
      alerted,
      previewed: preview.value.replayed.map((r) => r.period.key),
      breaches: breachesOf(preview.value.replayed).map((r) => r.period.key),
    };
  } finally {
    await world.close();
  }
}

describe('the preview replays the evaluator', () => {
  for (const every of ['hour', 'day'] as const)
    it(`every ${every}: the same periods judged, the same ones alerting`, async () => {
      let alerts = 0;
      await fc.assert(
        fc.asyncProperty(conditions, zones, histories, async (condition, timeZone, history) => {
          const rule: WatchRule = { metric: 'visits', report: 'visits', filters: [], condition, every };
          const seen = await both(rule, timeZone, history);
          expect(seen.previewed).toEqual(seen.judged);
          expect(seen.breaches).toEqual(seen.alerted);
          alerts += seen.alerted.length;
        }),
        { numRuns: 6, seed: 37, endOnFailure: true },
      );
      // The histories make some alerts: the property is not met by rules that never fire.
      expect(alerts).toBeGreaterThan(0);
    }, 300_000);
});
