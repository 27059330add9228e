/**
 * An alert judged against the noise says the usual, the noise and how far the value is from
 * it, and every figure it states agrees with the chart beside it: through the running app,
 * against an API whose hours have a daily rhythm with week-to-week noise and one spike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '@lookout/sandbox/slack';
import { mrkdwnOf } from '../../support/sandbox.js';
import { startSteadyWorld, type SteadyWorld } from '../../support/steady-api.js';

const HOUR = 3_600_000;
const SPIKE = Date.parse('2026-11-27T14:00:00Z');
const CHANNEL = 'C_GENERAL';
let world: SteadyWorld;

/** Busy afternoons with some noise from week to week; the spike's hour triples. */
function perHour(t: number): number {
  const h = new Date(t).getUTCHours();
  const week = Math.floor(t / (7 * 24 * HOUR));
  const base = h >= 9 && h < 18 ? 100 : 20;
  const noise = [0, 9, -7, 4, -3, 6][week % 6]!;
  return t === SPIKE ? 330 : base + noise;
}

beforeAll(async () => {
  world = await startSteadyWorld({ at: '2026-11-27T14:05:00Z', from: '2026-10-01T00:00:00Z', perHour });
});
afterAll(() => world?.close());

interface Chart {
  chart: { series: { name: string; data: { label: string; value: number }[] }[] };
}

describe('a spike judged against the noise', () => {
  it("states the usual, its spread and the distance in spreads, each the chart's own figure", async () => {
    const { id } = await world.app.store.watches.create({
      teamId: 'T_LOOKOUT',
      channelId: CHANNEL,
      ownerId: 'U_ALICE',
      rule: { metric: 'visits', report: 'visits', filters: [], condition: { kind: 'spike' }, every: 'hour' },
      timeZone: 'UTC',
    });
    world.at = SPIKE + HOUR + 10 * 60_000;
    await world.app.features.watches.evaluator.tick();
    await world.app.deliveries.drained();
    const alert: Message = await world.slack.waitForMessage(
      CHANNEL,
      (m) => !m.ephemeralTo && mrkdwnOf(m).some((t) => t.startsWith(`watch #${id}`)),
    );
    const words = mrkdwnOf(alert).join('\n');
    const said =
      /(\d+) visits 14:00–15:00 on Nov 27 \(UTC\): the usual Friday 14:00 is (\d+) ± (\d+); this is ([\d.]+) spreads above/.exec(
        words,
      );
    expect(said, words).not.toBeNull();
    const [value, usual, spread, spreads] = said!.slice(1).map(Number) as [number, number, number, number];
    expect(value).toBe(330);
    expect(spreads).toBeCloseTo((value - usual) / spread, 1);

    const chart = (alert.blocks ?? []).find(
      (b) => (b as { type: string }).type === 'data_visualization',
    ) as unknown as Chart;
    const [visits, theUsual] = chart.chart.series;
    expect(theUsual!.name).toBe('the usual');
    expect(visits!.data.at(-1)).toEqual({ label: '14:00', value });
    expect(theUsual!.data.at(-1)).toEqual({ label: '14:00', value: usual });
    // The morning's hours were usual: each on the chart is within its noise of its usual.
    const morning = visits!.data.filter((p) => p.label < '09:00');
    for (const p of morning)
      expect(Math.abs(p.value - theUsual!.data.find((u) => u.label === p.label)!.value)).toBeLessThan(15);
  });
});
