import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ThreatScan } from '../../../src/features/threats/scan.js';
import type { Queryable } from '../../../src/platform/store/db.js';
import { MIGRATIONS } from '../../../src/compose.js';
import { migrate } from '../../../src/platform/store/migrate.js';
import { describeEachDb } from '../../support/db.js';
import { captureLogs } from '../../support/log-capture.js';

const T0 = new Date('2024-11-04T08:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

/** Every statement a replica of the earlier version (before migration 020) runs on the scan's state, word for word. */
const earlier = (db: Queryable) => ({
  get: (key: string) => db.query('SELECT * FROM watch_state WHERE key = $1', [key]).then((r) => r.rows[0]),
  adopt: (from: string, to: string) =>
    db
      .query(
        'UPDATE watch_state SET key = $2 WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM watch_state WHERE key = $2) RETURNING key',
        [from, to],
      )
      .then((r) => r.rows.length > 0),
  startAt: (key: string, when: Date) =>
    db
      .query('INSERT INTO watch_state (key, watermark) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key', [
        key,
        when,
      ])
      .then((r) => r.rows.length > 0),
  saveProgress: (key: string, watermark: Date, seenIds: string[], when: Date, counts: Record<string, number>) =>
    db
      .query(
        `INSERT INTO watch_state (key, watermark, seen_ids, last_scan_at, last_counts)
       VALUES ($1, $2, $3::jsonb, $4, $5::jsonb)
       ON CONFLICT (key) DO UPDATE SET
         watermark = EXCLUDED.watermark, seen_ids = EXCLUDED.seen_ids, last_scan_at = EXCLUDED.last_scan_at,
         last_counts = EXCLUDED.last_counts, last_error = NULL, last_error_at = NULL, updated_at = now()
       RETURNING *`,
        [key, watermark, JSON.stringify(seenIds), when, JSON.stringify(counts)],
      )
      .then((r) => r.rows[0]),
  saveError: (key: string, error: string, when: Date) =>
    db
      .query(
        `INSERT INTO watch_state (key, last_error, last_error_at) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET last_error = EXCLUDED.last_error, last_error_at = EXCLUDED.last_error_at, updated_at = now()
       RETURNING *`,
        [key, error, when],
      )
      .then((r) => r.rows[0]),
});

describeEachDb("the threat scan's state during a rolling deploy", (t) => {
  describe('scan_state, with the view watch_state for replicas of the earlier version', () => {
    it('is a table, and watch_state a view over it', async () => {
      const { rows } = await t.db.query<{ table_name: string; table_type: string }>(
        `SELECT table_name, table_type FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_name IN ('scan_state', 'watch_state') ORDER BY table_name`,
      );
      expect(rows).toEqual([
        { table_name: 'scan_state', table_type: 'BASE TABLE' },
        { table_name: 'watch_state', table_type: 'VIEW' },
      ]);
    });

    it("an earlier replica's inserts, upserts and updates through the view land in scan_state", async () => {
      const old = earlier(t.db);
      expect(await old.startAt('visits', at(0))).toBe(true);
      expect(await old.startAt('visits', at(9))).toBe(false);
      expect(await t.store.scanState.get('visits')).toMatchObject({ key: 'visits', watermark: at(0), seenIds: [] });

      expect(await old.saveError('visits', 'HTTP 503', at(1))).toMatchObject({ key: 'visits', last_error: 'HTTP 503' });
      expect(await t.store.scanState.get('visits')).toMatchObject({ watermark: at(0), lastError: 'HTTP 503' });

      const saved = await old.saveProgress('visits', at(5), ['visit-9'], at(6), { visits: 2 });
      expect(saved).toMatchObject({ key: 'visits', seen_ids: ['visit-9'], last_error: null });
      expect(await t.store.scanState.get('visits')).toMatchObject({
        watermark: at(5),
        seenIds: ['visit-9'],
        lastScanAt: at(6),
        lastCounts: { visits: 2 },
        lastError: undefined,
      });

      // A key first written by an upsert (no conflict): the table's defaults fill what it leaves out.
      expect(await old.saveError('visits@B', 'boom', at(2))).toMatchObject({ key: 'visits@B', seen_ids: [] });

      expect(await old.adopt('visits', 'visits@A')).toBe(true);
      expect(await old.adopt('visits@A', 'visits@B')).toBe(false);
      expect(await t.store.scanState.get('visits')).toBeUndefined();
      expect(await t.store.scanState.get('visits@A')).toMatchObject({ watermark: at(5), seenIds: ['visit-9'] });
    });

    it('an earlier replica reads through the view what this version wrote', async () => {
      await t.store.scanState.saveProgress('visits@A', {
        watermark: at(3),
        seenIds: ['v1', 'v2'],
        counts: { alerts: 1 },
        at: at(4),
      });
      const row = await earlier(t.db).get('visits@A');
      expect(row).toMatchObject({ key: 'visits@A', seen_ids: ['v1', 'v2'], last_counts: { alerts: 1 } });
      expect(new Date(row?.watermark as Date)).toEqual(at(3));
    });
  });

  it('a store of the earlier version keeps its scan state through migration 020', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lookout-before-020-'));
    try {
      // Every folder's files before 020, each in a folder of its own, in the same order.
      const before: URL[] = [];
      for (const [i, folder] of MIGRATIONS.entries()) {
        const copy = join(dir, String(i));
        await mkdir(copy);
        const source = fileURLToPath(folder);
        for (const file of await readdir(source))
          if (/^\d+_/.test(file) && Number(file.split('_')[0]) < 20)
            await copyFile(join(source, file), join(copy, file));
        before.push(pathToFileURL(`${copy}/`));
      }
      const db = await t.openEmpty();
      await migrate(db, before);
      await earlier(db).saveProgress('visits@A', at(5), ['visit-9'], at(6), { visits: 1 });
      expect((await migrate(db, MIGRATIONS))[0]).toBe(20);
      const { rows } = await db.query('SELECT key, seen_ids FROM scan_state');
      expect(rows).toEqual([{ key: 'visits@A', seen_ids: ['visit-9'] }]);
      expect(await earlier(db).get('visits@A')).toMatchObject({ key: 'visits@A', seen_ids: ['visit-9'] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe("the scan's lease", () => {
    const scanOf = (owner: string) =>
      new ThreatScan({
        tenants: { all: async () => [] },
        repos: t.store,
        leases: t.store.leases,
        db: t.db,
        log: captureLogs('silent').logger,
        now: () => new Date(),
        owner,
        intervalMs: 60_000,
        recheckMs: 0,
      });

    it("holds the earlier key too, so an earlier replica (taking only 'threat-watch') cannot scan at the same time", async () => {
      const scan = scanOf('new-a');
      expect(await scan.tick()).toMatchObject({ status: 'no-subscriptions' });
      expect(await t.store.leases.holders(['threat-scan', 'threat-watch'])).toEqual([
        { key: 'threat-scan', owner: 'new-a' },
        { key: 'threat-watch', owner: 'new-a' },
      ]);
      expect(await t.store.leases.acquire('threat-watch', 'old', 180_000)).toBe(false);
      expect(await scanOf('new-b').tick()).toMatchObject({ status: 'not-leader' });
      await scan.stop();
      expect(await t.store.leases.holders(['threat-scan', 'threat-watch'])).toEqual([]);
    });

    it("stands by while an earlier replica holds 'threat-watch', keeping no key of its own", async () => {
      expect(await t.store.leases.acquire('threat-watch', 'old', 180_000)).toBe(true);
      const scan = scanOf('new-a');
      expect(await scan.tick()).toMatchObject({ status: 'not-leader' });
      expect(await t.store.leases.holders(['threat-scan', 'threat-watch'])).toEqual([
        { key: 'threat-watch', owner: 'old' },
      ]);
      await t.store.leases.release('threat-watch', 'old');
      expect(await scan.tick()).toMatchObject({ status: 'no-subscriptions' });
      await scan.stop();
    });
  });
});
