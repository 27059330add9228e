import { describe, expect, it } from 'vitest';
import { prunes } from '../../src/compose.js';
import { housekeep, startHousekeeping } from '../../src/platform/store/housekeeping.js';
import { captureLogs } from '../support/log-capture.js';
import { describeEachDb } from '../support/db.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describeEachDb('housekeeping', (t) => {
  it('trims what is past its age in each table, and keeps the rest', async () => {
    const now = new Date();
    const { db, stash, visitorChecks, leases } = t.store;
    const old = await stash.put('q1.old');
    const fresh = await stash.put('q1.fresh');
    await db.query('UPDATE query_stash SET created_at = $1 WHERE id = $2', [new Date(now.getTime() - 31 * DAY), old]);
    await visitorChecks.save([
      { visitorId: 'v_stale', facts: {}, checkedAt: new Date(now.getTime() - 7 * HOUR) },
      { visitorId: 'v_fresh', facts: {}, checkedAt: new Date(now.getTime() - 5 * HOUR) },
    ]);
    await leases.acquire('long-gone', 'r1', 1);
    await leases.acquire('held', 'r1', 60_000);
    await db.query("UPDATE job_claims SET expires_at = $1 WHERE key = 'long-gone'", [new Date(now.getTime() - 2 * DAY)]);
    const message = { text: 'x', blocks: [] };
    const [oldPosted, oldPending, freshPosted] = await Promise.all(
      ['C1', 'C2', 'C3'].map((channelId) => t.store.deliveries.enqueue({ kind: 'notice', channelId, message, expiresInMs: DAY })),
    );
    await db.query("UPDATE deliveries SET status = 'posted' WHERE id = ANY($1::bigint[])", [[oldPosted, freshPosted]]);
    await db.query('UPDATE deliveries SET created_at = $1 WHERE id = ANY($2::bigint[])', [new Date(now.getTime() - 31 * DAY), [oldPosted, oldPending]]);

    await db.query('INSERT INTO rate_limits (key, points, expire) VALUES ($1, 3, $2), ($3, 1, $4)', ['user:old', now.getTime() - 2 * HOUR, 'user:now', now.getTime() + 60_000]);
    expect(await housekeep(prunes(t.store, 6 * HOUR), now)).toEqual({ stash: 1, checks: 1, leases: 1, deliveries: 1, rate_limits: 1 });
    expect(await t.store.deliveries.get(oldPosted!)).toBeUndefined();
    expect(await t.store.deliveries.get(oldPending!)).toMatchObject({ status: 'pending' }); // unfinished work is never trimmed
    expect(await t.store.deliveries.get(freshPosted!)).toMatchObject({ status: 'posted' });
    expect(await stash.get(old)).toBeUndefined();
    expect(await stash.get(fresh)).toBe('q1.fresh');
    expect([...(await visitorChecks.getFresh(['v_stale', 'v_fresh'], new Date(0))).keys()]).toEqual(['v_fresh']);
    expect((await db.query<{ key: string }>('SELECT key FROM job_claims ORDER BY key')).rows.map((r) => r.key)).toEqual(['held']);
    expect((await db.query<{ key: string }>('SELECT key FROM rate_limits')).rows.map((r) => r.key)).toEqual(['user:now']);
    expect(await housekeep(prunes(t.store, 6 * HOUR), now)).toEqual({ stash: 0, checks: 0, leases: 0, deliveries: 0, rate_limits: 0 });
  });

  it('keeps security answers at least an hour, whatever ALERT_RECHECK_AFTER says', async () => {
    const now = new Date();
    await t.store.visitorChecks.save([{ visitorId: 'v_recent', facts: {}, checkedAt: new Date(now.getTime() - 30 * 60_000) }]);
    expect((await housekeep(prunes(t.store, 0), now)).checks).toBe(0);
  });
});

describe('startHousekeeping', () => {
  it('runs on its interval; a failing table is logged and the timer goes on', async () => {
    const { logger, lines } = captureLogs('debug');
    let runs = 0;
    const stop = startHousekeeping(
      [
        { name: 'ok', olderThanMs: 0, prune: async () => (runs++, 1) },
        { name: 'broken', olderThanMs: 0, prune: async () => Promise.reject(new Error('connection terminated')) },
      ],
      logger,
      () => new Date(),
      20,
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 400));
    } finally {
      stop();
    }
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l.includes('housekeeping failed') && l.includes('connection terminated')).length).toBeGreaterThanOrEqual(2);
  });
});
