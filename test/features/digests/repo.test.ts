import { describe, expect, it } from 'vitest';
import { DigestRunRepo } from '../../../src/features/digests/runs.js';
import type { DigestInput } from '../../../src/features/digests/repo.js';
import { describeEachDb } from '../../support/db.js';
import { sleep } from '../../support/until.js';

const input = (over: Partial<DigestInput> = {}): DigestInput => ({
  teamId: 'T1',
  channelId: 'C1',
  ownerId: 'U1',
  reports: ['sources', 'pages', 'countries'],
  filters: [
    { filters: [{ object: 'country', field: 'name', operator: 'is_any_of', value: ['Germany', 'Côte d’Ivoire'] }] },
    { filters: [{ object: 'page', field: 'full_url', operator: 'contains', value: '/pricing?a=1&b=<2>' }] },
  ],
  topN: 5,
  period: 'last7d',
  schedule: { kind: 'weekly', time: '09:00', weekday: 1 },
  cron: '0 9 * * 1',
  timeZone: 'Europe/Berlin',
  ...over,
});

const SLOT = new Date('2024-11-04T08:00:00.000Z');
describeEachDb('store digests', (t) => {
  describe('DigestRepo', () => {
    it('creates a digest and reads it back, jsonb and all', async () => {
      const created = await t.store.digests.create(input());
      expect(created).toEqual({
        ...input(),
        id: 1,
        paused: false,
        createdAt: expect.any(Date),
        updatedAt: expect.any(Date),
      });
      expect(await t.store.digests.get(created.id)).toEqual(created);
    });

    it('defaults filters to none and keeps a cron schedule as given', async () => {
      const { filters: _, ...noFilters } = input({
        schedule: { kind: 'cron', cron: '30 8 1-7 * 1' },
        cron: '30 8 1-7 * 1',
      });
      const created = await t.store.digests.create(noFilters);
      expect(created.filters).toEqual([]);
      expect(created.schedule).toEqual({ kind: 'cron', cron: '30 8 1-7 * 1' });
    });

    it('returns undefined for a digest that does not exist', async () => {
      expect(await t.store.digests.get(999)).toBeUndefined();
      expect(await t.store.digests.update('T1', 999, { topN: 3 })).toBeUndefined();
      expect(await t.store.digests.remove('T1', 999)).toBe(false);
    });

    it('updates only the given fields and bumps updated_at', async () => {
      const created = await t.store.digests.create(input());
      await sleep(5);
      const updated = await t.store.digests.update('T1', created.id, {
        reports: ['visitors'],
        filters: [],
        schedule: { kind: 'monthly', time: '07:30', monthday: 1 },
        cron: '30 7 1 * *',
        topN: 20,
      });
      expect(updated).toEqual({
        ...created,
        reports: ['visitors'],
        filters: [],
        schedule: { kind: 'monthly', time: '07:30', monthday: 1 },
        cron: '30 7 1 * *',
        topN: 20,
        updatedAt: expect.any(Date),
      });
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
      expect(await t.store.digests.get(created.id)).toEqual(updated);
    });

    it('pauses and resumes; listActive leaves paused digests out', async () => {
      const a = await t.store.digests.create(input());
      const b = await t.store.digests.create(input({ channelId: 'C2' }));
      expect((await t.store.digests.setPaused('T1', a.id, true))?.paused).toBe(true);
      expect((await t.store.digests.listActive()).map((d) => d.id)).toEqual([b.id]);
      await t.store.digests.setPaused('T1', a.id, false);
      expect((await t.store.digests.listActive()).map((d) => d.id)).toEqual([a.id, b.id]);
    });

    it('lists by channel and all, in creation order', async () => {
      const a = await t.store.digests.create(input({ channelId: 'C1' }));
      const b = await t.store.digests.create(input({ channelId: 'C2' }));
      const c = await t.store.digests.create(input({ channelId: 'C1' }));
      expect((await t.store.digests.listByChannel('T1', 'C1')).map((d) => d.id)).toEqual([a.id, c.id]);
      expect(await t.store.digests.listByChannel('T1', 'C9')).toEqual([]);
      expect((await t.store.digests.listAll('T1')).map((d) => d.id)).toEqual([a.id, b.id, c.id]);
    });

    it('reads and changes a digest only in its own workspace; its runs carry the workspace', async () => {
      const d = await t.store.digests.create(input());
      expect(await t.store.digests.of('T2', d.id)).toBeUndefined();
      expect(await t.store.digests.update('T2', d.id, { topN: 3 })).toBeUndefined();
      expect(await t.store.digests.setPaused('T2', d.id, true)).toBeUndefined();
      expect(await t.store.digests.remove('T2', d.id)).toBe(false);
      expect(await t.store.digests.listAll('T2')).toEqual([]);
      expect(await t.store.digests.listByChannel('T2', 'C1')).toEqual([]);
      expect(await t.store.digests.ownersIn('T2', ['C1'])).toEqual([]);
      expect(await t.store.digests.counts('T2', 'C1', 'U1')).toEqual({ channel: 0, owner: 0 });
      expect(await t.store.digests.of('T1', d.id)).toEqual(d);
      await t.store.runs.claim(d.id, SLOT, 'replica-a');
      await t.store.runs.recordMissed(d.id, new Date(SLOT.getTime() - 86_400_000));
      const { rows } = await t.store.db.query('SELECT DISTINCT team_id FROM digest_runs WHERE digest_id = $1', [d.id]);
      expect(rows).toEqual([{ team_id: 'T1' }]);
    });

    it('removes a digest with its runs', async () => {
      const d = await t.store.digests.create(input());
      await t.store.runs.claim(d.id, SLOT, 'replica-a');
      expect(await t.store.digests.remove('T1', d.id)).toBe(true);
      expect(await t.store.digests.get(d.id)).toBeUndefined();
      expect(await t.store.runs.get(d.id, SLOT)).toBeUndefined();
    });
  });

  describe('DigestRunRepo', () => {
    it('lets exactly one of 20 concurrent claims of a slot win', async () => {
      const d = await t.store.digests.create(input());
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) => t.store.runs.claim(d.id, SLOT, `replica-${i}`)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      const run = await t.store.runs.get(d.id, SLOT);
      expect(run).toMatchObject({
        digestId: d.id,
        slot: SLOT,
        status: 'claimed',
        claimedBy: `replica-${wins.indexOf(true)}`,
      });
      expect(run?.startedAt).toBeInstanceOf(Date);
      expect(run?.finishedAt).toBeUndefined();
    });

    it.runIf(t.kind === 'postgres')('lets exactly one win across two separate pools', async () => {
      const d = await t.store.digests.create(input());
      const other = new DigestRunRepo(await t.openSibling());
      const wins = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? other : t.store.runs).claim(d.id, SLOT, `replica-${i}`)),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
    });

    it('claims slots of one digest, and one slot of two digests, independently', async () => {
      const a = await t.store.digests.create(input());
      const b = await t.store.digests.create(input());
      const next = new Date(SLOT.getTime() + 7 * 86_400_000);
      expect(await t.store.runs.claim(a.id, SLOT, 'r1')).toBe(true);
      expect(await t.store.runs.claim(a.id, next, 'r1')).toBe(true);
      expect(await t.store.runs.claim(b.id, SLOT, 'r2')).toBe(true);
      expect(await t.store.runs.claim(a.id, SLOT, 'r1')).toBe(false);
    });

    it('refuses claims for a paused or removed digest', async () => {
      const paused = await t.store.digests.create(input({ paused: true }));
      expect(await t.store.runs.claim(paused.id, SLOT, 'r1')).toBe(false);
      expect(await t.store.runs.claim(12345, SLOT, 'r1')).toBe(false);
      expect(await t.store.runs.get(paused.id, SLOT)).toBeUndefined();
    });

    it('records a post with its message ts and channel', async () => {
      const d = await t.store.digests.create(input());
      await t.store.runs.claim(d.id, SLOT, 'r1');
      expect(await t.store.runs.markPosted(d.id, SLOT, '1730707200.000100', 'C1')).toBe(true);
      expect(await t.store.runs.get(d.id, SLOT)).toMatchObject({
        status: 'posted',
        messageTs: '1730707200.000100',
        channelId: 'C1',
        claimedBy: 'r1',
        finishedAt: expect.any(Date),
      });
      expect(await t.store.runs.claim(d.id, SLOT, 'r2')).toBe(false);
    });

    it('records a failure with its reason', async () => {
      const d = await t.store.digests.create(input());
      await t.store.runs.claim(d.id, SLOT, 'r1');
      expect(await t.store.runs.markFailed(d.id, SLOT, 'channel_not_found')).toBe(true);
      expect(await t.store.runs.get(d.id, SLOT)).toMatchObject({
        status: 'failed',
        error: 'channel_not_found',
        finishedAt: expect.any(Date),
      });
      expect(await t.store.runs.markFailed(d.id, new Date(0), 'no such run')).toBe(false);
    });

    it('records a missed slot once, and never over a claimed one', async () => {
      const d = await t.store.digests.create(input());
      expect(await t.store.runs.recordMissed(d.id, SLOT)).toBe(true);
      expect(await t.store.runs.recordMissed(d.id, SLOT)).toBe(false);
      expect(await t.store.runs.get(d.id, SLOT)).toMatchObject({ status: 'missed', finishedAt: expect.any(Date) });
      expect(await t.store.runs.claim(d.id, SLOT, 'r1')).toBe(false);

      const later = new Date(SLOT.getTime() + 60_000);
      await t.store.runs.claim(d.id, later, 'r1');
      expect(await t.store.runs.recordMissed(d.id, later)).toBe(false);
      expect((await t.store.runs.get(d.id, later))?.status).toBe('claimed');
    });

    it('releases a slot only for its owner and only while it is claimed', async () => {
      const d = await t.store.digests.create(input());
      await t.store.runs.claim(d.id, SLOT, 'r1');
      expect(await t.store.runs.release(d.id, SLOT, 'r2')).toBe(false);
      expect(await t.store.runs.release(d.id, SLOT, 'r1')).toBe(true);
      expect(await t.store.runs.get(d.id, SLOT)).toBeUndefined();

      // Handed back: another replica may take it now.
      expect(await t.store.runs.claim(d.id, SLOT, 'r2')).toBe(true);
      await t.store.runs.markPosted(d.id, SLOT, '1.2', 'C1');
      expect(await t.store.runs.release(d.id, SLOT, 'r2')).toBe(false);
      expect((await t.store.runs.get(d.id, SLOT))?.status).toBe('posted');
    });

    it('takes over only claims whose heartbeat went stale, each once, and abandons only its own', async () => {
      const d = await t.store.digests.create(input());
      const slots = [0, 1, 2].map((i) => new Date(SLOT.getTime() + i * 60_000));
      for (const slot of slots) await t.store.runs.claim(d.id, slot, 'r1');
      await t.store.runs.markPosted(d.id, slots[0]!, '1.2', 'C1');
      await t.store.db.query(
        `UPDATE digest_runs SET heartbeat_at = now() - interval '1 minute' WHERE slot = ANY($1::timestamptz[])`,
        [[slots[0], slots[1]]],
      );
      await sleep(5);
      expect(await t.store.runs.heartbeat('r1')).toBe(2); // slots 1 and 2 are r1's claims
      await t.store.db.query(`UPDATE digest_runs SET heartbeat_at = now() - interval '1 minute' WHERE slot = $1`, [
        slots[1],
      ]);

      const taken = await t.store.runs.takeOverStale('r2', 30_000);
      expect(taken.map((r) => r.slot.getTime())).toEqual([slots[1]!.getTime()]);
      expect(taken[0]).toMatchObject({ status: 'claimed', claimedBy: 'r2' });
      expect(await t.store.runs.takeOverStale('r3', 30_000)).toEqual([]);
      expect((await t.store.runs.get(d.id, slots[2]!))?.claimedBy).toBe('r1');

      expect(await t.store.runs.abandon(d.id, slots[1]!, 'r1', 'too late')).toBe(false);
      expect(await t.store.runs.abandon(d.id, slots[1]!, 'r2', 'too late')).toBe(true);
      expect(await t.store.runs.get(d.id, slots[1]!)).toMatchObject({
        status: 'abandoned',
        error: 'too late',
        finishedAt: expect.any(Date),
      });
    });

    it('queues a slot only for the replica holding its claim', async () => {
      const d = await t.store.digests.create(input());
      await t.store.runs.claim(d.id, SLOT, 'r1');
      expect(await t.store.runs.markQueued(d.id, SLOT, 'r2', 7)).toBe(false);
      expect(await t.store.runs.markQueued(d.id, SLOT, 'r1', 7)).toBe(true);
      expect(await t.store.runs.get(d.id, SLOT)).toMatchObject({ status: 'queued', deliveryId: 7 });
      expect(await t.store.runs.markQueued(d.id, SLOT, 'r1', 8)).toBe(false);
    });

    it('gives the latest run of one digest and of several', async () => {
      const a = await t.store.digests.create(input());
      const b = await t.store.digests.create(input());
      const c = await t.store.digests.create(input());
      const later = new Date(SLOT.getTime() + 86_400_000);
      await t.store.runs.claim(a.id, later, 'r1');
      await t.store.runs.claim(a.id, SLOT, 'r1');
      await t.store.runs.markPosted(a.id, SLOT, '1.2', 'C1');
      await t.store.runs.recordMissed(b.id, SLOT);

      expect(await t.store.runs.lastRun(a.id)).toMatchObject({ slot: later, status: 'claimed' });
      expect(await t.store.runs.lastRun(c.id)).toBeUndefined();

      const last = await t.store.runs.lastRuns([a.id, b.id, c.id]);
      expect([...last.keys()].sort()).toEqual([a.id, b.id]);
      expect(last.get(a.id)).toMatchObject({ digestId: a.id, slot: later });
      expect(last.get(b.id)).toMatchObject({ digestId: b.id, status: 'missed' });
      expect(await t.store.runs.lastRuns([])).toEqual(new Map());
    });
  });
});
