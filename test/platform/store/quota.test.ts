import { describe, expect, it } from 'vitest';
import { pruneQuota, userQuota } from '../../../src/platform/quota.js';
import { captureLogs } from '../../support/log-capture.js';
import { describeEachDb, TEST_DATABASE_URL } from '../../support/db.js';
import { startTcpProxy } from '../../support/tcp-proxy.js';
import { openDb } from '../../../src/platform/store/db.js';

const person = (user: string, team = 'T_ONE') => ({ team, user });

describeEachDb('the per-person quota (rate-limiter-flexible on the store)', (t) => {
  const settings = { points: 3, windowMs: 60_000 };

  describe('userQuota', () => {
    it('is shared by replicas: two limiters over one database count together, per person in each workspace', async () => {
      const { logger } = captureLogs('debug');
      const a = userQuota(t.db, settings, logger);
      const b = userQuota(t.kind === 'postgres' ? await t.openSibling() : t.db, settings, logger);
      expect([
        await a.take(person('U_ALICE')),
        await b.take(person('U_ALICE')),
        await a.take(person('U_ALICE')),
      ]).toEqual([0, 0, 0]);
      const wait = await b.take(person('U_ALICE'));
      expect(wait).toBeGreaterThan(50_000);
      expect(wait).toBeLessThanOrEqual(60_000);
      expect(await a.take(person('U_BOB'))).toBe(0);
      expect(await b.take(person('U_ALICE', 'T_TWO'))).toBe(0);
      const { rows } = await t.db.query<{ key: string; points: number }>(
        'SELECT key, points FROM rate_limits ORDER BY key',
      );
      expect(rows).toEqual([
        { key: 'user:T_ONE:U_ALICE', points: 4 },
        { key: 'user:T_ONE:U_BOB', points: 1 },
        { key: 'user:T_TWO:U_ALICE', points: 1 },
      ]);
    });

    it('says when to try again, and why', () => {
      const { logger } = captureLogs('debug');
      const text = userQuota(t.db, settings, logger).refusal(41_200);
      expect(text).toBe(
        "You have used the 3 analytics API requests one person may make in this workspace within 1 minute (it protects the analytics API's quota). Try again in 42 seconds.",
      );
    });

    it('counts in memory while the store is down, so an outage neither blocks people nor lifts the limit', async () => {
      const { logger, lines } = captureLogs('debug');
      const sibling = t.kind === 'postgres' ? await t.openSibling() : await t.openEmpty();
      const quota = userQuota(sibling, settings, logger);
      await sibling.close();
      expect([
        await quota.take(person('U_CAROL')),
        await quota.take(person('U_CAROL')),
        await quota.take(person('U_CAROL')),
      ]).toEqual([0, 0, 0]);
      expect(await quota.take(person('U_CAROL'))).toBeGreaterThan(0);
      expect(lines.filter((l) => l.includes('each replica counts in memory'))).toHaveLength(1);
    });

    it('housekeeping drops windows that ended over an hour ago', async () => {
      await t.db.query(
        `INSERT INTO rate_limits (key, points, expire) VALUES ('user:old', 3, $1), ('user:new', 1, $2)`,
        [Date.now() - 2 * 3_600_000, Date.now() + 60_000],
      );
      expect(await pruneQuota(t.db, new Date(Date.now() - 3_600_000))).toBe(1);
      const { rows } = await t.db.query<{ key: string }>('SELECT key FROM rate_limits');
      expect(rows.map((r) => r.key)).toEqual(['user:new']);
    });
  });
});

describe.skipIf(!TEST_DATABASE_URL)('the per-person quota when PostgreSQL hangs', () => {
  it('waits 1 s at most for the store, then counts in memory: a partition never holds a request up', async () => {
    // The store's own timeouts are longer than the test's: only the quota's 1 s can let these calls finish in time.
    const target = new URL(TEST_DATABASE_URL!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(TEST_DATABASE_URL!);
    viaProxy.port = String(proxy.port);
    const db = await openDb({
      databaseUrl: viaProxy.toString(),
      poolSize: 1,
      timeouts: { connectMs: 120_000, queryMs: 120_000 },
    });
    try {
      const quota = userQuota(db, { points: 2, windowMs: 60_000 }, captureLogs('debug').logger);
      proxy.hang();
      const waits = [
        await quota.take(person('U_HANG')),
        await quota.take(person('U_HANG')),
        await quota.take(person('U_HANG')),
      ];
      expect(waits.slice(0, 2)).toEqual([0, 0]);
      expect(waits[2]).toBeGreaterThan(0);
    } finally {
      // Closing the proxy ends the hung connection, so closing the pool does not wait out its query.
      await proxy.close();
      await db.close().catch(() => undefined);
    }
  });
});
