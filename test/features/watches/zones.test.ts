/**
 * Every figure in its true zone (issue 34): watches owned in Europe/Berlin, in an app whose
 * default zone is UTC, against an API with one visit a minute that counts its days in UTC,
 * through the running app with its world.at in the test's hands. The issue read "48 visits
 * 14:00–15:00 on Nov 27 … checked Nov 27, 14:10 (UTC)": Berlin's hour beside a UTC check
 * time, as if an unfinished hour had been judged; a daily watch's "last complete day
 * (Europe/Berlin)" whose figure is the API's UTC day; and the unfinished current period drawn
 * as a fall at the end of the alert's chart beside a "Previous period" that said not which.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '@lookout/sandbox/slack';
import type { WatchRule } from '../../../src/features/watches/plan.js';
import { mrkdwnOf } from '../../support/sandbox.js';
import { startSteadyWorld, type SteadyWorld } from '../../support/steady-api.js';

let world: SteadyWorld;

beforeAll(async () => {
  world = await startSteadyWorld({ at: '2026-11-27T12:00:00Z', from: '2026-10-01T00:00:00Z' });
});
afterAll(() => world?.close());

const CHANNEL = 'C_GENERAL';

interface Chart {
  title: string;
  chart: {
    series: { name: string; data: { label: string; value: number }[] }[];
    axis_config: { categories: string[] };
  };
}

const chartOf = (m: Message) =>
  (m.blocks ?? []).find((b) => (b as { type: string }).type === 'data_visualization') as Chart | undefined;

async function watch(rule: WatchRule): Promise<number> {
  const created = await world.app.store.watches.create({
    teamId: 'T_LOOKOUT',
    channelId: CHANNEL,
    ownerId: 'U_ALICE',
    rule,
    timeZone: 'Europe/Berlin',
  });
  return created.id;
}

/** Judges the watches at `at` and waits for the alert of watch `id` in the channel. */
async function alertAt(at: string, id: number): Promise<Message> {
  world.at = Date.parse(at);
  await world.app.features.watches.evaluator.tick();
  await world.app.deliveries.drained();
  return world.slack.waitForMessage(
    CHANNEL,
    (m) => !m.ephemeralTo && mrkdwnOf(m).some((t) => t.startsWith(`watch #${id}`)),
  );
}

async function watchList(): Promise<string> {
  const before = world.slack.messages(CHANNEL, { user: 'U_ALICE' }).length;
  await world.slack.slash(CHANNEL, 'U_ALICE', 'watch list');
  const answer = await world.slack.waitForMessage(
    CHANNEL,
    (m) => m.ephemeralTo === 'U_ALICE' && world.slack.messages(CHANNEL, { user: 'U_ALICE' }).indexOf(m) >= before,
  );
  return mrkdwnOf(answer).join('\n');
}

describe('an hourly watch owned in Europe/Berlin, in an app whose default zone is UTC', () => {
  it("names the hour's zone, says when it was checked in that zone after the hour ended, and charts only complete hours, beside the day before by its date", async () => {
    const id = await watch({
      metric: 'visits',
      report: 'visits',
      filters: [],
      condition: { kind: 'above', value: 30 },
      every: 'hour',
    });
    // 14:10 UTC is 15:10 in Berlin: 14:00–15:00 there ended 10 minutes ago (the settling margin).
    const alert = await alertAt('2026-11-27T14:10:00Z', id);
    const words = mrkdwnOf(alert).join('\n');
    expect(words).toContain('60 visits 14:00–15:00 on Nov 27 (Europe/Berlin), above 30');
    expect(words).toContain('times in Europe/Berlin');

    const list = await watchList();
    expect(list).toContain(
      '60 visits 14:00–15:00 on Nov 27 (Europe/Berlin), above 30 (back to normal at 27 or less) · checked Nov 27, 15:10 (Europe/Berlin), after that hour ended',
    );
    expect(list).not.toContain('(UTC)');

    const chart = chartOf(alert)!;
    expect(chart.title).toBe('Visits per hour (Europe/Berlin)');
    // 00:00 to 14:00: the hour judged is the last drawn, not 15:00, which had 10 minutes of visits.
    expect(chart.chart.axis_config.categories.at(-1)).toBe('14:00');
    expect(chart.chart.axis_config.categories).toHaveLength(15);
    expect(chart.chart.series.map((s) => s.name)).toEqual(['Nov 27, 2026', 'Nov 26, 2026']);
    expect(chart.chart.series[0]!.data.every((d) => d.value === 60)).toBe(true);
    await world.app.store.watches.setPaused('T_LOOKOUT', id, true);
  });
});

describe('a daily watch owned in Europe/Berlin, against an API that counts its days in UTC', () => {
  it("names its day as the API's, and charts the 7 days up to it, not Berlin's day just begun", async () => {
    const added = await world.slack.slash(CHANNEL, 'U_ALICE', 'watch visits above 100 every day');
    expect(added.status).toBe(200);
    const confirmation = await world.slack.waitForMessage(
      CHANNEL,
      (m) => m.ephemeralTo === 'U_ALICE' && mrkdwnOf(m).some((t) => t.includes('added: visits above 100 a day')),
    );
    expect(mrkdwnOf(confirmation).join('\n')).toContain(
      'evaluated every day for the last complete day (in UTC, as the analytics API counts days)',
    );
    const id = Number(/Watch #(\d+) added/.exec(mrkdwnOf(confirmation).join('\n'))![1]);
    // 01:15 on Nov 28 in Berlin: the API's Nov 27 ended at midnight UTC and has settled.
    const alert = await alertAt('2026-11-28T00:15:00Z', id);
    expect(mrkdwnOf(alert).join('\n')).toContain(
      '1,440 visits on Nov 27 (in UTC, as the analytics API counts days), above 100',
    );
    // The figure is the API's day, not Berlin's: it names no Berlin day.
    expect(mrkdwnOf(alert).find((t) => t.includes('1,440 visits'))).not.toContain('Europe/Berlin');
    const chart = chartOf(alert)!;
    expect(chart.title).toBe("Visits per day (UTC, the API's days)");
    expect(chart.chart.axis_config.categories).toEqual([
      'Nov 21',
      'Nov 22',
      'Nov 23',
      'Nov 24',
      'Nov 25',
      'Nov 26',
      'Nov 27',
    ]);
    expect(chart.chart.series.map((s) => s.name)).toEqual(['Nov 21–27, 2026', 'Nov 14–20, 2026']);
    expect(chart.chart.series[0]!.data.every((d) => d.value === 1_440)).toBe(true);
    expect(await watchList()).toContain('· checked Nov 28, 01:15 (Europe/Berlin), after that day ended at the API');
  });
});
