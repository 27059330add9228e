import { describe, expect, it } from 'vitest';
import type { Repos } from '../../../src/compose.js';
import { alertPrunes } from '../../../src/features/alerts/index.js';
import { threatPrunes } from '../../../src/features/threats/index.js';
import { NOTICE } from '../../../src/platform/deliveries/subject.js';
import { platformPrunes } from '../../../src/platform/open.js';
import { housekeep, startHousekeeping } from '../../../src/platform/store/housekeeping.js';
import { captureLogs } from '../../support/log-capture.js';
import { describeEachDb } from '../../support/db.js';
import { until } from '../../support/until.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** What housekeeping trims: the platform's tables, and the alerts' security answers. */
const prunes = (store: Repos, recheckMs: number) => [
  ...platformPrunes(store),
  ...threatPrunes(store, recheckMs),
  ...alertPrunes(store),
];

describeEachDb('housekeeping', (t) => {
  it('trims what is past its age in each table, and keeps the rest', async () => {
    const now = new Date();
    const { db, stash, visitorChecks, leases } = t.store;
    const old = await stash.put('T_LOOKOUT', 'q1.old');
    const fresh = await stash.put('T_LOOKOUT', 'q1.fresh');
    await db.query('UPDATE query_stash SET created_at = $1 WHERE id = $2', [new Date(now.getTime() - 31 * DAY), old]);
    await visitorChecks.save('A1', [
      { visitorId: 'v_stale', facts: {}, checkedAt: new Date(now.getTime() - 7 * HOUR) },
      { visitorId: 'v_fresh', facts: {}, checkedAt: new Date(now.getTime() - 5 * HOUR) },
    ]);
    await leases.acquire('long-gone', 'r1', 1);
    await leases.acquire('held', 'r1', 60_000);
    await db.query("UPDATE job_claims SET expires_at = $1 WHERE key = 'long-gone'", [
      new Date(now.getTime() - 2 * DAY),
    ]);
    const message = { text: 'x', blocks: [] };
    const [oldPosted, oldPending, freshPosted] = await Promise.all(
      ['C1', 'C2', 'C3'].map((channelId) =>
        t.store.deliveries.enqueue({ team: 'T_LOOKOUT', subject: NOTICE, channelId, message, expiresInMs: DAY }),
      ),
    );
    await db.query("UPDATE deliveries SET status = 'posted' WHERE id = ANY($1::bigint[])", [[oldPosted, freshPosted]]);
    await db.query('UPDATE deliveries SET created_at = $1 WHERE id = ANY($2::bigint[])', [
      new Date(now.getTime() - 31 * DAY),
      [oldPosted, oldPending],
    ]);

    await db.query('INSERT INTO rate_limits (key, points, expire) VALUES ($1, 3, $2), ($3, 1, $4)', [
      'user:old',
      now.getTime() - 2 * HOUR,
      'user:now',
      now.getTime() + 60_000,
    ]);
    // An alert group whose window ended two days ago, and one still open.
    await t.store.groups.create({
      teamId: 'T1',
      channelId: 'C1',
      startedAt: new Date(now.getTime() - 2 * DAY - 5 * 60_000),
      endsAt: new Date(now.getTime() - 2 * DAY),
      deliveryId: oldPosted!,
      summarised: true,
    });
    const open = await t.store.groups.create({
      teamId: 'T1',
      channelId: 'C1',
      startedAt: now,
      endsAt: new Date(now.getTime() + 5 * 60_000),
      deliveryId: freshPosted!,
      summarised: false,
    });
    expect(await housekeep(prunes(t.store, 6 * HOUR), now)).toEqual({
      stash: 1,
      checks: 1,
      alert_groups: 1,
      leases: 1,
      replay_keys: 0,
      deliveries: 1,
      rate_limits: 1,
    });
    expect(await t.store.deliveries.get(oldPosted!)).toBeUndefined();
    expect(await t.store.deliveries.get(oldPending!)).toMatchObject({ status: 'pending' }); // unfinished work is never trimmed
    expect(await t.store.deliveries.get(freshPosted!)).toMatchObject({ status: 'posted' });
    expect(await stash.get('T_LOOKOUT', old)).toBeUndefined();
    expect(await stash.get('T_LOOKOUT', fresh)).toBe('q1.fresh');
    expect([...(await visitorChecks.getFresh('A1', ['v_stale', 'v_fresh'], new Date(0))).keys()]).toEqual(['v_fresh']);
    expect((await db.query<{ key: string }>('SELECT key FROM job_claims ORDER BY key')).rows.map((r) => r.key)).toEqual(
      ['held'],
    );
    expect((await db.query<{ key: string }>('SELECT key FROM rate_limits')).rows.map((r) => r.key)).toEqual([
      'user:now',
    ]);
    expect((await t.store.groups.latestOpen('T1', 'C1', now))?.id).toBe(open.id);
    expect(await housekeep(prunes(t.store, 6 * HOUR), now)).toEqual({
      stash: 0,
      checks: 0,
      alert_groups: 0,
      leases: 0,
      replay_keys: 0,
      deliveries: 0,
      rate_limits: 0,
    });
  });

  it('prunes replay keys once their window has passed, every 5 minutes, and keeps younger ones', async () => {
    const { db, replays } = t.store;
    // A request's signature (5 minutes) and an event's id (10 minutes), each seen 6 minutes ago; and both seen just now.
    for (const [key, ttlMs] of [
      ['request:v0=old', 5 * MINUTE],
      ['event:EvOld', 10 * MINUTE],
      ['request:v0=new', 5 * MINUTE],
      ['event:EvNew', 10 * MINUTE],
    ] as const) {
      expect(await replays.firstSeen(key, ttlMs)).toBe(true);
    }
    await db.query(
      "UPDATE replay_keys SET expires_at = expires_at - interval '6 minutes' WHERE key LIKE '%old' OR key LIKE '%Old'",
    );
    const replayPrune = prunes(t.store, 6 * HOUR).find((p) => p.name === 'replay_keys')!;
    expect(replayPrune.everyMs).toBe(5 * MINUTE);
    expect(await housekeep([replayPrune], new Date())).toEqual({ replay_keys: 1 });
    expect(
      (await db.query<{ key: string }>('SELECT key FROM replay_keys ORDER BY key')).rows.map((r) => r.key),
    ).toEqual(['event:EvNew', 'event:EvOld', 'request:v0=new']);
    // What is kept is still refused; what was pruned had passed its window, and is new again.
    expect(await replays.firstSeen('request:v0=new', 5 * MINUTE)).toBe(false);
    expect(await replays.firstSeen('event:EvOld', 10 * MINUTE)).toBe(false);
    expect(await replays.firstSeen('request:v0=old', 5 * MINUTE)).toBe(true);
  });

  it('keeps security answers at least an hour, whatever ALERT_RECHECK_AFTER says', async () => {
    const now = new Date();
    await t.store.visitorChecks.save('A1', [
      { visitorId: 'v_recent', facts: {}, checkedAt: new Date(now.getTime() - 30 * 60_000) },
    ]);
    expect((await housekeep(prunes(t.store, 0), now)).checks).toBe(0);
  });
});

describe('startHousekeeping', () => {
  it('runs each table on its own interval; a failing table is logged and the timer goes on', async () => {
    const { logger, lines } = captureLogs('debug');
    let often = 0;
    let hourly = 0;
    const failures = () =>
      lines.filter((l) => l.includes('housekeeping failed') && l.includes('connection terminated')).length;
    const stop = startHousekeeping(
      [
        { name: 'often', olderThanMs: 0, everyMs: 20, prune: async () => (often++, 1) },
        {
          name: 'broken',
          olderThanMs: 0,
          everyMs: 20,
          prune: async () => Promise.reject(new Error('connection terminated')),
        },
        { name: 'hourly', olderThanMs: 0, prune: async () => (hourly++, 1) },
      ],
      logger,
      () => new Date(),
    );
    try {
      await until(() => often >= 2 && failures() >= 2, 'two runs of the 20 ms group, each failure logged');
    } finally {
      stop();
    }
    expect(hourly).toBe(0);
  });
});
