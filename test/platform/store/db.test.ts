import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appliedVersions, migrate } from '../../../src/platform/store/migrate.js';
import { describeEachDb } from '../../support/db.js';
import { MIGRATIONS } from '../../../src/compose.js';
import { sleep } from '../../support/until.js';

const count = async (db: { query: (sql: string) => Promise<{ rows: unknown[] }> }, table: string) =>
  Number(((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0] as { n: unknown }).n);

describeEachDb('store db', (t) => {
  describe('query', () => {
    it('binds parameters and returns typed rows', async () => {
      const { rows } = await t.db.query<{ n: number; s: string; at: Date }>(
        'SELECT $1::int AS n, $2::text AS s, $3::timestamptz AS at',
        [42, 'it’s <b>', new Date('2024-11-01T09:00:00Z')],
      );
      expect(rows).toEqual([{ n: 42, s: 'it’s <b>', at: new Date('2024-11-01T09:00:00Z') }]);
    });

    it('runs several statements without parameters and returns the rows of the last', async () => {
      const { rows } = await t.db.query(
        "INSERT INTO query_stash (id, encoded) VALUES ('a', 'x'); SELECT id FROM query_stash",
      );
      expect(rows).toEqual([{ id: 'a' }]);
    });

    it('reports SQL errors with their PostgreSQL code', async () => {
      await expect(t.db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '42P01' });
    });
  });

  describe('transaction', () => {
    it('commits what fn did and returns its value', async () => {
      const value = await t.db.transaction(async (tx) => {
        await tx.query("INSERT INTO query_stash (id, encoded) VALUES ('a', 'x')");
        await tx.query('INSERT INTO query_stash (id, encoded) VALUES ($1, $2)', ['b', 'y']);
        return 'done';
      });
      expect(value).toBe('done');
      expect(await count(t.db, 'query_stash')).toBe(2);
    });

    it('rolls back on throw and rethrows the same error', async () => {
      const boom = new Error('boom');
      await expect(
        t.db.transaction(async (tx) => {
          await tx.query('INSERT INTO query_stash (id, encoded) VALUES ($1, $2)', ['a', 'x']);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await count(t.db, 'query_stash')).toBe(0);
    });

    it('rolls back when a statement fails', async () => {
      await expect(
        t.db.transaction(async (tx) => {
          await tx.query('INSERT INTO query_stash (id, encoded) VALUES ($1, $2)', ['a', 'x']);
          await tx.query('INSERT INTO query_stash (id, encoded) VALUES ($1, $2)', ['a', 'duplicate']);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await count(t.db, 'query_stash')).toBe(0);
    });

    it('never lets a concurrent query see, or join, an open transaction', async () => {
      let outside: Promise<number> | undefined;
      await expect(
        t.db.transaction(async (tx) => {
          await tx.query('INSERT INTO query_stash (id, encoded) VALUES ($1, $2)', ['a', 'x']);
          outside = count(t.db, 'query_stash');
          await sleep(50);
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await outside).toBe(0);
    });

    it('keeps 20 concurrent transactions apart', async () => {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          t.db.transaction(async (tx) => {
            await tx.query('INSERT INTO query_stash (id, encoded) VALUES ($1, $2)', [`${i}-a`, 'x']);
            await sleep(1);
            await tx.query('INSERT INTO query_stash (id, encoded) VALUES ($1, $2)', [`${i}-b`, 'x']);
            if (i % 5 === 0) throw new Error(`fail ${i}`);
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(4);
      expect(await count(t.db, 'query_stash')).toBe(32);
    });
  });

  describe('migrate', () => {
    it('has applied every migration exactly once, and running again applies nothing', async () => {
      expect(await migrate(t.db, MIGRATIONS)).toEqual([]);
      const { rows } = await t.db.query<{ version: number; name: string; applied_at: Date }>(
        'SELECT version, name, applied_at FROM schema_migrations ORDER BY version',
      );
      expect(rows).toEqual([
        { version: 1, name: 'initial', applied_at: expect.any(Date) },
        { version: 2, name: 'scan', applied_at: expect.any(Date) },
        { version: 3, name: 'deliveries', applied_at: expect.any(Date) },
        { version: 4, name: 'rate_limits', applied_at: expect.any(Date) },
        { version: 5, name: 'trend_points', applied_at: expect.any(Date) },
        { version: 6, name: 'watches', applied_at: expect.any(Date) },
        { version: 7, name: 'home_views', applied_at: expect.any(Date) },
        { version: 8, name: 'replay_keys', applied_at: expect.any(Date) },
        { version: 9, name: 'trend_finality', applied_at: expect.any(Date) },
        { version: 10, name: 'delivery_updates', applied_at: expect.any(Date) },
        { version: 11, name: 'installations', applied_at: expect.any(Date) },
        { version: 12, name: 'digest_next_run', applied_at: expect.any(Date) },
        { version: 13, name: 'trend_account', applied_at: expect.any(Date) },
        { version: 14, name: 'scan_account', applied_at: expect.any(Date) },
        { version: 15, name: 'tenants', applied_at: expect.any(Date) },
        { version: 16, name: 'alerts_team', applied_at: expect.any(Date) },
        { version: 17, name: 'home_team', applied_at: expect.any(Date) },
        { version: 18, name: 'org_workspaces', applied_at: expect.any(Date) },
        { version: 19, name: 'watch_explanation', applied_at: expect.any(Date) },
        { version: 20, name: 'scan_state', applied_at: expect.any(Date) },
        { version: 21, name: 'agent_tokens', applied_at: expect.any(Date) },
        { version: 22, name: 'watch_alerts', applied_at: expect.any(Date) },
        { version: 23, name: 'trend_confirmed', applied_at: expect.any(Date) },
        { version: 24, name: 'api_answers', applied_at: expect.any(Date) },
        { version: 25, name: 'api_answers_fetched_at', applied_at: expect.any(Date) },
      ]);
      expect(await appliedVersions(t.db)).toEqual(
        new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]),
      );
    });

    it('applies the migrations of an empty database once when two callers race', async () => {
      const first = await t.openEmpty();
      // PostgreSQL: two pools, as two replicas would be; PGlite: one instance, twice.
      const second = t.kind === 'postgres' ? await t.openSibling(first) : first;
      expect(await appliedVersions(first)).toEqual(new Set());
      const [a, b] = await Promise.all([migrate(first, MIGRATIONS), migrate(second, MIGRATIONS)]);
      expect([...a, ...b].sort((x, y) => x - y)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
      ]);
      expect(await count(first, 'schema_migrations')).toBe(25);
      expect(await count(second, 'digests')).toBe(0);
    });

    it('applies files in order, each in its own transaction, and stops at a failing one', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'lookout-migrations-'));
      try {
        const url = pathToFileURL(`${dir}/`);
        await writeFile(join(dir, '1_notes.sql'), 'CREATE TABLE notes (id int PRIMARY KEY);');
        await writeFile(join(dir, '2_seed.sql'), 'INSERT INTO notes VALUES (1); INSERT INTO notes VALUES (2);');
        await writeFile(join(dir, '3_broken.sql'), 'INSERT INTO notes VALUES (3); INSERT INTO notes VALUES (1);');
        const db = await t.openEmpty();

        await expect(migrate(db, [url])).rejects.toMatchObject({ code: '23505' });
        expect(await appliedVersions(db)).toEqual(new Set([1, 2]));
        expect(await count(db, 'notes')).toBe(2);

        await writeFile(join(dir, '3_broken.sql'), 'INSERT INTO notes VALUES (3);');
        expect(await migrate(db, [url])).toEqual([3]);
        expect(await count(db, 'notes')).toBe(3);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('schemas', () => {
    it.runIf(t.kind === 'postgres')('keeps each schema apart', async () => {
      await t.db.query("INSERT INTO query_stash (id, encoded) VALUES ('mine', 'x')");
      const other = await t.openEmpty();
      const { rows } = await other.query<{ present: boolean }>(
        "SELECT to_regclass('query_stash') IS NOT NULL AS present",
      );
      expect(rows[0]?.present).toBe(false);
    });
  });
});
