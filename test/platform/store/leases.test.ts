import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRepos } from '../../../src/compose.js';
import type { Queryable } from '../../../src/platform/store/index.js';
import { migrate } from '../../../src/platform/store/migrate.js';
import { describeEachDb, TEST_DATABASE_URL, DIGEST_INPUT } from '../../support/db.js';
import { MIGRATIONS } from '../../../src/compose.js';

import { sleep } from '../../support/until.js';

/** Who holds a key now, read straight from job_claims (judged by the database clock, as the repository does). */
async function holder(db: Queryable, key: string): Promise<{ owner: string; expiresAt: Date } | undefined> {
  const { rows } = await db.query<{ owner: string; expires_at: Date }>(
    'SELECT owner, expires_at FROM job_claims WHERE key = $1 AND expires_at > now()',
    [key],
  );
  return rows[0] && { owner: rows[0].owner, expiresAt: new Date(rows[0].expires_at) };
}

describeEachDb('store leases and stash', (t) => {
  describe('LeaseRepo', () => {
    it('acquires a free key and says who holds it', async () => {
      expect(await holder(t.db, 'threat-watch')).toBeUndefined();
      const before = Date.now();
      expect(await t.store.leases.acquire('threat-watch', 'replica-a', 60_000)).toBe(true);
      const held = await holder(t.db, 'threat-watch');
      expect(held?.owner).toBe('replica-a');
      expect(held!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 59_000);
      expect(held!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 61_000);
    });

    it('renews for the same owner', async () => {
      await t.store.leases.acquire('k', 'replica-a', 1_000);
      const first = await holder(t.db, 'k');
      expect(await t.store.leases.acquire('k', 'replica-a', 60_000)).toBe(true);
      const renewed = await holder(t.db, 'k');
      expect(renewed!.expiresAt.getTime()).toBeGreaterThan(first!.expiresAt.getTime());
    });

    it('refuses another owner until the lease expires, then hands it over', async () => {
      expect(await t.store.leases.acquire('k', 'replica-a', 150)).toBe(true);
      expect(await t.store.leases.acquire('k', 'replica-b', 60_000)).toBe(false);
      expect((await holder(t.db, 'k'))?.owner).toBe('replica-a');
      await sleep(250);
      expect(await holder(t.db, 'k')).toBeUndefined();
      expect(await t.store.leases.acquire('k', 'replica-b', 60_000)).toBe(true);
      expect((await holder(t.db, 'k'))?.owner).toBe('replica-b');
      expect(await t.store.leases.acquire('k', 'replica-a', 60_000)).toBe(false);
    });

    it('lets exactly one of 20 concurrent owners take a key', async () => {
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) => t.store.leases.acquire('slot:2024-11-04T08:00:00.000Z', `r${i}`, 60_000)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
    });

    it('releases only for the holder', async () => {
      await t.store.leases.acquire('k', 'replica-a', 60_000);
      expect(await t.store.leases.release('k', 'replica-b')).toBe(false);
      expect(await t.store.leases.release('k', 'replica-a')).toBe(true);
      expect(await holder(t.db, 'k')).toBeUndefined();
      expect(await t.store.leases.acquire('k', 'replica-b', 60_000)).toBe(true);
    });

    it('prunes leases that expired before a moment', async () => {
      await t.store.leases.acquire('old', 'a', 1);
      await t.store.leases.acquire('live', 'a', 60_000);
      await sleep(20);
      expect(await t.store.leases.pruneExpired(new Date())).toBe(1);
      expect((await holder(t.db, 'live'))?.owner).toBe('a');
    });
  });

  describe('QueryStashRepo', () => {
    it('puts an encoded query under a 12-character base64url id and gets it back', async () => {
      const encoded = `v1.${'x'.repeat(5000)}<&>"é`;
      const id = await t.store.stash.put('T1', encoded);
      expect(id).toMatch(/^[A-Za-z0-9_-]{12}$/);
      expect(await t.store.stash.get('T1', id)).toBe(encoded);
      expect(await t.store.stash.put('T1', encoded)).not.toBe(id);
    });

    it("gives a query back to the workspace that stashed it only: another's id is not found there", async () => {
      const id = await t.store.stash.put('T1', 'v1.theirs');
      expect(await t.store.stash.get('T2', id)).toBeUndefined();
      expect(await t.store.stash.get('T1', id)).toBe('v1.theirs');
    });

    it('returns undefined for an unknown id', async () => {
      expect(await t.store.stash.get('T1', 'nope')).toBeUndefined();
    });

    it('prunes entries stored before a moment', async () => {
      const old = await t.store.stash.put('T1', 'old');
      await sleep(10);
      const cutoff = new Date();
      await sleep(10);
      const fresh = await t.store.stash.put('T1', 'fresh');
      expect(await t.store.stash.prune(cutoff)).toBe(1);
      expect(await t.store.stash.get('T1', old)).toBeUndefined();
      expect(await t.store.stash.get('T1', fresh)).toBe('fresh');
    });
  });
});

describe('openStore', () => {
  it('keeps PGlite data in a directory it creates, across reopening', async () => {
    const root = await mkdtemp(join(tmpdir(), 'lookout-store-'));
    const dataDir = join(root, 'nested', 'data');
    try {
      const first = await openRepos({ dataDir });
      const digest = await first.digests.create(DIGEST_INPUT);
      await first.close();

      const started = performance.now();
      const second = await openRepos({ dataDir });
      console.info(`PGlite reopened an existing data directory in ${Math.round(performance.now() - started)} ms`);
      try {
        expect(await second.digests.get(digest.id)).toEqual(digest);
        expect(await migrate(second.db, MIGRATIONS)).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it.skipIf(!TEST_DATABASE_URL)('opens and migrates a PostgreSQL schema of its own', async () => {
    const schema = `lookout_test_${randomBytes(6).toString('hex')}`;
    const store = await openRepos({ databaseUrl: TEST_DATABASE_URL, schema, poolSize: 2 });
    try {
      expect(store.db.kind).toBe('postgres');
      const digest = await store.digests.create(DIGEST_INPUT);
      expect(await store.runs.claim(digest.id, new Date(), 'r1')).toBe(true);
      const { rows } = await store.db.query<{ name: string }>('SELECT current_setting($1) AS name', [
        'application_name',
      ]);
      expect(rows[0]?.name).toBe('lookout');
    } finally {
      await store.db.query(`DROP SCHEMA ${schema} CASCADE`);
      await store.close();
    }
  });
});
