/**
 * How often a watch has alerted (issue 37): each breach is kept as an alert, written in the
 * statement that records the evaluation (never without it), counted per watch over the last
 * 30 days, pruned after, removed with its watch; and said in the watch list and on the Home.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchPrunes } from '../../../src/features/watches/index.js';
import { alertsWords, watchListMessage, type WatchListItem } from '../../../src/features/watches/blocks.js';
import type { WatchRule } from '../../../src/features/watches/plan.js';
import { WatchRepo, type Watch } from '../../../src/features/watches/repo.js';
import { homeView } from '../../../src/features/home/blocks.js';
import { housekeep } from '../../../src/platform/store/housekeeping.js';
import { ephemeralAnswer } from '../../support/answers.js';
import { describeEachDb } from '../../support/db.js';
import { openHome } from '../../support/distributed.js';
import { mrkdwnOf } from '../../support/sandbox.js';
import { startSteadyWorld, type SteadyWorld } from '../../support/steady-api.js';

const DAY = 86_400_000;

const above30: WatchRule = {
  metric: 'visits',
  report: 'visits',
  filters: [],
  condition: { kind: 'above', value: 30 },
  every: 'hour',
};

describeEachDb('watch alerts in the store', (t) => {
  const create = (teamId = 'T1') =>
    t.store.watches.create({ teamId, channelId: 'C1', ownerId: 'U1', rule: above30, timeZone: 'UTC' });

  /** `claimedBy` claims `period`, r1 records it: a breach (a new episode) or an update of the one under way. */
  async function judged(
    watch: Watch,
    period: string,
    at: string,
    breach: boolean,
    claimedBy = 'r1',
    repo = t.store.watches,
  ) {
    await repo.claim(watch.id, period, claimedBy, 60_000);
    return repo.record(watch.id, 'r1', {
      period,
      outcome: breach ? 'breach' : 'update',
      value: 48,
      text: '48 visits, above 30',
      state: 'breaching',
      at: new Date(at),
      ...(breach ? { breach: { at: new Date(at) } } : {}),
    });
  }

  const alertRows = async () =>
    (
      await t.db.query<{ watch_id: string | number; team_id: string; period: string; at: Date }>(
        'SELECT watch_id, team_id, period, at FROM watch_alerts ORDER BY watch_id, period',
      )
    ).rows.map((r) => ({ ...r, watch_id: Number(r.watch_id) }));

  it("keeps one alert a breach, with its watch, workspace, period and time, and counts each watch's from a moment on", async () => {
    const [a, b, quiet] = [await create(), await create('T2'), await create()];
    await judged(a, '2026-11-01T10', '2026-11-01T11:05:00Z', true);
    await judged(a, '2026-11-01T11', '2026-11-01T12:05:00Z', false);
    await judged(a, '2026-11-20T08', '2026-11-20T09:05:00Z', true);
    await judged(b, '2026-11-02T10', '2026-11-02T11:05:00Z', true);
    expect(await alertRows()).toEqual([
      { watch_id: a.id, team_id: 'T1', period: '2026-11-01T10', at: new Date('2026-11-01T11:05:00Z') },
      { watch_id: a.id, team_id: 'T1', period: '2026-11-20T08', at: new Date('2026-11-20T09:05:00Z') },
      { watch_id: b.id, team_id: 'T2', period: '2026-11-02T10', at: new Date('2026-11-02T11:05:00Z') },
    ]);
    const ids = [a.id, b.id, quiet.id];
    expect(await t.store.watches.alertCounts(ids, new Date('2026-10-28T00:00:00Z'))).toEqual(
      new Map([
        [a.id, 2],
        [b.id, 1],
        [quiet.id, 0],
      ]),
    );
    // From the moment of an alert on, that alert counts.
    expect(await t.store.watches.alertCounts(ids, new Date('2026-11-02T11:05:00Z'))).toEqual(
      new Map([
        [a.id, 1],
        [b.id, 1],
        [quiet.id, 0],
      ]),
    );
    expect(await t.store.watches.alertCounts([], new Date(0))).toEqual(new Map());
  });

  it('keeps no alert when the evaluation is not recorded: another replica holds the claim, the period was recorded already, or its transaction fails', async () => {
    const watch = await create();
    // r2 claimed the period; r1's record does not happen, and neither does its alert.
    expect(await judged(watch, '2026-11-01T10', '2026-11-01T11:05:00Z', true, 'r2')).toBeUndefined();
    expect(await alertRows()).toEqual([]);

    await t.db.query('UPDATE watches SET claim_period = NULL, claim_owner = NULL WHERE id = $1', [watch.id]);
    expect(await judged(watch, '2026-11-01T10', '2026-11-01T11:05:00Z', true)).toMatchObject({ episode: 1 });
    // The same period again: not recorded twice, not counted twice.
    expect(await judged(watch, '2026-11-01T10', '2026-11-01T11:06:00Z', true)).toBeUndefined();
    expect(await alertRows()).toHaveLength(1);

    // The evaluator writes the record and its deliveries in one transaction: when that fails, no alert is left.
    await expect(
      t.db.transaction(async (tx) => {
        expect(
          await judged(watch, '2026-11-01T11', '2026-11-01T12:05:00Z', true, 'r1', new WatchRepo(tx)),
        ).toBeDefined();
        throw new Error('the outbox refused the delivery');
      }),
    ).rejects.toThrow('the outbox refused the delivery');
    expect(await alertRows()).toHaveLength(1);
    expect(await t.store.watches.get(watch.id)).toMatchObject({ lastPeriod: '2026-11-01T10', episode: 1 });
  });

  it('removes the alerts of a removed watch, and of a purged workspace', async () => {
    const [gone, kept, other] = [await create(), await create(), await create('T2')];
    for (const w of [gone, kept, other]) await judged(w, '2026-11-01T10', '2026-11-01T11:05:00Z', true);
    expect(await t.store.watches.remove('T1', gone.id)).toBe(true);
    expect((await alertRows()).map((r) => r.watch_id)).toEqual([kept.id, other.id]);
    await t.db.query("DELETE FROM watch_alerts WHERE team_id = 'T2'");
    expect((await alertRows()).map((r) => r.watch_id)).toEqual([kept.id]);
  });

  it('housekeeping prunes the alerts older than the 30 days counted and a week, and keeps the rest', async () => {
    const now = new Date('2026-12-31T12:00:00Z');
    const watch = await create();
    await judged(watch, '2026-11-23T10', new Date(now.getTime() - 38 * DAY).toISOString(), true);
    await judged(watch, '2026-11-25T10', new Date(now.getTime() - 36 * DAY).toISOString(), true);
    expect(await housekeep(watchPrunes(t.store), now)).toEqual({ watch_alerts: 1 });
    expect((await alertRows()).map((r) => r.period)).toEqual(['2026-11-25T10']);
  });
});

describe("a watch's alerts in words", () => {
  const now = new Date('2026-11-27T14:10:00Z');
  const old = { createdAt: new Date('2026-09-01T00:00:00Z'), timeZone: 'Europe/Berlin' };

  it('counts the last 30 days, the noun agreeing; a watch added since counts from the day it was added, in its zone', () => {
    expect(alertsWords(0, old, now)).toBe('no alerts in the last 30 days');
    expect(alertsWords(1, old, now)).toBe('1 alert in the last 30 days');
    expect(alertsWords(1_204, old, now)).toBe('1,204 alerts in the last 30 days');
    // 23:30 UTC on Nov 20 is already Nov 21 in Berlin.
    const added = { createdAt: new Date('2026-11-20T23:30:00Z'), timeZone: 'Europe/Berlin' };
    expect(alertsWords(3, added, now)).toBe('3 alerts since it was added on Nov 21 (Europe/Berlin)');
    expect(alertsWords(0, added, now)).toBe('no alerts since it was added on Nov 21 (Europe/Berlin)');
    // Added exactly 30 days ago: the 30 days are all it has had.
    expect(alertsWords(2, { ...old, createdAt: new Date(now.getTime() - 30 * DAY) }, now)).toBe(
      '2 alerts in the last 30 days',
    );
  });

  it("the list says each watch's count under its state", () => {
    const item = (id: number, alerts: number): WatchListItem => ({
      id,
      rule: above30,
      channelId: 'C1',
      ownerId: 'U1',
      paused: false,
      state: 'ok',
      lastOutcome: 'ok',
      lastText: '12 visits 14:00–15:00 on Nov 27 (Europe/Berlin)',
      timeZone: 'Europe/Berlin',
      createdAt: old.createdAt,
      alerts,
      canManage: false,
    });
    const sections = mrkdwnOf(watchListMessage([item(1, 3), item(2, 1)], { now, heading: 'this channel' }));
    expect(sections.filter((s) => s.startsWith('*#'))).toEqual([
      '*#1* visits above 30 an hour · every hour · <#C1> · owner <@U1>\n:white_check_mark: ok: 12 visits 14:00–15:00 on Nov 27 (Europe/Berlin) · 3 alerts in the last 30 days',
      '*#2* visits above 30 an hour · every hour · <#C1> · owner <@U1>\n:white_check_mark: ok: 12 visits 14:00–15:00 on Nov 27 (Europe/Berlin) · 1 alert in the last 30 days',
    ]);
  });

  it("the Home says each watch's count after its state, in the same rows", () => {
    const watch = {
      id: 4,
      title: 'visits above 30',
      channelId: 'C1',
      state: 'ok: 12 visits',
      paused: false,
      muted: false,
    };
    const view = homeView({
      digests: [],
      watches: [{ ...watch, alerts: '1 alert in the last 30 days' }],
      alerts: { subscriptions: [], manage: false },
      deliveries: [],
      demo: false,
    });
    const without = homeView({
      digests: [],
      watches: [{ ...watch, alerts: '' }],
      alerts: { subscriptions: [], manage: false },
      deliveries: [],
      demo: false,
    });
    expect(view.blocks).toHaveLength(without.blocks.length);
    expect(mrkdwnOf({ blocks: view.blocks })).toContain(
      '*#4* visits above 30 in <#C1>\nok: 12 visits · 1 alert in the last 30 days',
    );
  });
});

describe('alerts counted through the evaluator, in the list and on the Home', () => {
  let world: SteadyWorld;
  const CHANNEL = 'C_GENERAL';
  const below1000: WatchRule = {
    metric: 'visits',
    report: 'visits',
    filters: [],
    condition: { kind: 'below', value: 1_000 },
    every: 'day',
  };

  beforeAll(async () => {
    world = await startSteadyWorld({ at: '2026-11-01T12:00:00Z', from: '2026-09-01T00:00:00Z' });
  });
  afterAll(() => world?.close());

  async function watch(createdAt: string, timeZone: string): Promise<number> {
    const { id } = await world.app.store.watches.create({
      teamId: 'T_LOOKOUT',
      channelId: CHANNEL,
      ownerId: 'U_ALICE',
      rule: below1000,
      timeZone,
    });
    await world.app.store.db.query('UPDATE watches SET created_at = $2 WHERE id = $1', [id, new Date(createdAt)]);
    return id;
  }

  const lineOf = (texts: readonly string[], id: number) => texts.find((t) => t.startsWith(`*#${id}*`)) ?? '';

  it('counts the days that breached (1,440 visits a day, 840 on Nov 3 and Nov 6), over the 30 days before the clock', async () => {
    const noisy = await watch('2026-09-15T00:00:00Z', 'UTC');
    // Two days the API counts 600 visits fewer: below 1,000, each a breach; the day after each, back to normal.
    world.api.glitches.push(
      { path: '/countries', startDate: '2026-11-03', missing: 600 },
      { path: '/countries', startDate: '2026-11-06', missing: 600 },
    );
    const outcomes: string[] = [];
    for (let day = 2; day <= 8; day++) {
      world.at = Date.parse(`2026-11-0${day}T00:15:00Z`);
      await world.app.features.watches.evaluator.tick();
      const w = (await world.app.store.watches.get(noisy))!;
      outcomes.push(`${w.lastPeriod} ${w.lastOutcome}`);
    }
    expect(outcomes).toEqual([
      '2026-11-01 ok',
      '2026-11-02 ok',
      '2026-11-03 breach',
      '2026-11-04 recover',
      '2026-11-05 ok',
      '2026-11-06 breach',
      '2026-11-07 recover',
    ]);
    const since = new Date(world.at - 30 * DAY);
    expect(await world.app.store.watches.alertCounts([noisy], since)).toEqual(new Map([[noisy, 2]]));
    const list = mrkdwnOf(await ephemeralAnswer(world.slack, CHANNEL, 'U_ALICE', 'watch list'));
    expect(lineOf(list, noisy)).toMatch(/ · 2 alerts in the last 30 days$/);

    // Dec 4, 12:00: the alert of Nov 4, 00:15 is more than 30 days old; Nov 7's is not. A watch added on Nov 21 (Berlin) says so.
    world.at = Date.parse('2026-12-04T12:00:00Z');
    const added = await watch('2026-11-20T23:30:00Z', 'Europe/Berlin');
    const later = mrkdwnOf(await ephemeralAnswer(world.slack, CHANNEL, 'U_ALICE', 'watch list'));
    expect(lineOf(later, noisy)).toMatch(/ · 1 alert in the last 30 days$/);
    expect(lineOf(later, added)).toMatch(/ · no alerts since it was added on Nov 21 \(Europe\/Berlin\)$/);

    const home = mrkdwnOf((await openHome(world.slack, 'U_ALICE')).view);
    expect(lineOf(home, noisy)).toMatch(/ · 1 alert in the last 30 days$/);
    expect(lineOf(home, added)).toMatch(/ · no alerts since it was added on Nov 21 \(Europe\/Berlin\)$/);
  });
});
