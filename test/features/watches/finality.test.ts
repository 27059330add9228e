/**
 * The running app (its store, trend cache, watch evaluator and /metrics) against an API
 * with one visit a minute that counts its days in UTC, with the app's world.at in the test's
 * hands: a watch judges a day only once the API has finished it, and /metrics counts the
 * re-checks that changed a figure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lookout } from '../../../src/compose.js';
import type { OfflineSlack } from '@lookout/sandbox/slack';
import type { WatchRule } from '../../../src/features/watches/plan.js';
import { startSteadyWorld, type SteadyApi, type SteadyWorld } from '../../support/steady-api.js';

const MINUTE = 60_000;
let world: SteadyWorld;
let api: SteadyApi;
let slack: OfflineSlack;
let app: Lookout;

beforeAll(async () => {
  world = await startSteadyWorld({
    at: '2026-11-20T12:00:00Z',
    from: '2026-09-01T00:00:00Z',
    limits: { userRequests: 1_000 },
  });
  ({ api, slack, app } = world);
});
afterAll(() => world?.close());

const drops30: WatchRule = {
  metric: 'visits',
  report: 'visits',
  filters: [],
  condition: { kind: 'change', direction: 'drops', pct: 30, against: 'previous' },
  every: 'day',
};

describe('a daily watch owned in Asia/Tokyo', () => {
  it('at 00:50 JST does not judge the day the API (UTC) is still counting (950 of its 1,440 visits), so no "−34%"; it judges it whole once the API has finished it', async () => {
    const watch = await app.store.watches.create({
      teamId: 'T1',
      channelId: 'C_GENERAL',
      ownerId: 'U_ALICE',
      rule: drops30,
      timeZone: 'Asia/Tokyo',
    });
    // 00:50 on Nov 21 in Tokyo is 15:50 on Nov 20 in UTC.
    world.at = new Date('2026-11-20T15:50:00Z').getTime();
    await app.features.watches.evaluator.tick();
    const early = (await app.store.watches.get(watch.id))!;
    expect(early.lastPeriod).not.toBe('2026-11-20');
    expect(early.lastOutcome).not.toBe('breach');
    expect(early.state).toBe('ok');

    // 09:15 in Tokyo: the API's Nov 20 ended at 09:00 (midnight UTC) and has settled.
    world.at = new Date('2026-11-21T00:15:00Z').getTime();
    await app.features.watches.evaluator.tick();
    const judged = (await app.store.watches.get(watch.id))!;
    expect(judged).toMatchObject({ lastPeriod: '2026-11-20', lastValue: 1_440, lastOutcome: 'ok', state: 'ok' });
    // Tokyo's watch judges the API's (UTC) Nov 20, and says so.
    expect(judged.lastText).toMatch(
      /1,440 visits on Nov 20 \(in UTC, as the analytics API counts days\): \+0% against 1,440 the day before/,
    );
    expect(await app.store.deliveries.openCount()).toBe(0);
  });
});

describe('/metrics', () => {
  it('counts the re-checks of kept figures, and those that changed one', async () => {
    world.at = new Date('2026-11-21T12:00:00Z').getTime();
    // The API answers nothing for Nov 16 for five minutes: the trend charts 0 and keeps it as provisional.
    api.glitches.push({ path: '/countries', startDate: '2026-11-16', keep: 0, until: new Date(world.at + 5 * MINUTE) });
    const ask = async () => {
      const before = slack.messages('C_GENERAL', { user: 'U_BOB' }).length;
      await slack.slash('C_GENERAL', 'U_BOB', 'trend last7d');
      return slack.waitForMessage(
        'C_GENERAL',
        (m) => m.ephemeralTo === 'U_BOB' && slack.messages('C_GENERAL', { user: 'U_BOB' }).indexOf(m) >= before,
        15_000,
      );
    };
    await ask();
    world.at += 20 * MINUTE;
    await ask();
    const metrics = await (await fetch(`${app.ops.url}/metrics`)).text();
    expect(Number(/lookout_trend_rechecks_total\{changed="true"\} (\d+)/.exec(metrics)?.[1])).toBe(1);
  });
});

describe('a watch waits for figures that are not settled', () => {
  const below100: WatchRule = {
    metric: 'visits',
    report: 'visits',
    filters: [],
    condition: { kind: 'below', value: 100 },
    every: 'day',
  };

  it('an empty answer for its day is asked again after the settling margin before it is judged: a glitch is no alert', async () => {
    const watch = await app.store.watches.create({
      teamId: 'T1',
      channelId: 'C_GENERAL',
      ownerId: 'U_CAROL',
      rule: below100,
      timeZone: 'UTC',
    });
    world.at = new Date('2026-11-23T00:15:00Z').getTime();
    api.glitches.push({
      path: '/countries',
      startDate: '2026-11-22',
      keep: 0,
      until: new Date('2026-11-23T00:20:00Z'),
    });
    await app.features.watches.evaluator.tick();
    expect((await app.store.watches.get(watch.id))!.lastPeriod).toBeUndefined(); // waiting, nothing recorded
    world.at = new Date('2026-11-23T00:30:00Z').getTime();
    await app.features.watches.evaluator.tick();
    expect(await app.store.watches.get(watch.id)).toMatchObject({
      lastPeriod: '2026-11-22',
      lastValue: 1_440,
      lastOutcome: 'ok',
      state: 'ok',
    });
    await app.store.watches.remove(watch.teamId, watch.id);
  });

  it('an empty answer that is the answer again is judged: a day with no visits at all alerts, a margin later', async () => {
    const watch = await app.store.watches.create({
      teamId: 'T1',
      channelId: 'C_GENERAL',
      ownerId: 'U_CAROL',
      rule: below100,
      timeZone: 'UTC',
    });
    world.at = new Date('2026-11-24T00:15:00Z').getTime();
    api.glitches.push({ path: '/countries', startDate: '2026-11-23', keep: 0 });
    await app.features.watches.evaluator.tick();
    expect((await app.store.watches.get(watch.id))!.lastPeriod).toBeUndefined();
    world.at = new Date('2026-11-24T00:30:00Z').getTime();
    await app.features.watches.evaluator.tick();
    expect(await app.store.watches.get(watch.id)).toMatchObject({
      lastPeriod: '2026-11-23',
      lastValue: 0,
      lastOutcome: 'breach',
      state: 'breaching',
    });
    api.glitches.length = 0;
  });
});
