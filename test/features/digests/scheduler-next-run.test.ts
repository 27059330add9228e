import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DigestScheduler } from '../../../src/features/digests/scheduler.js';
import { silentLogger } from '../../../src/platform/log.js';
import { openRepos, type Repos as Store } from '../../../src/compose.js';
import type { Digest } from '../../../src/features/digests/repo.js';

/** Each digest's next slot is kept in the store; the one timer claims what is due (injected clock, no timer started). */
describe('the next slot in the store (Europe/Berlin)', () => {
  let store: Store;
  let clock = new Date('2026-03-27T12:00:00Z');
  const posted: string[] = [];
  let scheduler: DigestScheduler;

  const add = async (cron: string): Promise<Digest> => {
    const digest = await store.digests.create({
      teamId: 'T',
      channelId: 'C',
      ownerId: 'U',
      reports: ['sources'],
      topN: 3,
      period: 'day',
      schedule: { kind: 'cron', cron },
      cron,
      timeZone: 'Europe/Berlin',
    });
    await store.db.query(`update digests set created_at = '2026-01-01T00:00:00Z' where id = $1`, [digest.id]);
    return digest;
  };
  const next = async (id: number) => (await store.digests.get(id))?.nextRunAt?.toISOString();

  beforeAll(async () => {
    store = await openRepos({ memory: true });
    scheduler = new DigestScheduler({
      runs: store.runs,
      loadActive: () => store.digests.listActive(),
      loadOne: (id) => store.digests.get(id),
      post: async (d, slot) => {
        posted.push(`${d.id}@${slot.toISOString()}`);
        await store.runs.markPosted(d.id, slot, 'ts', d.channelId);
      },
      log: silentLogger,
      owner: 'test',
      now: () => clock,
    });
  });
  afterAll(async () => {
    await scheduler.stop();
    await store.close();
  });

  it('spring forward and fall back: 02:30 daily is 03:30 CEST on the short night, and once on the long one', async () => {
    const digest = await add('30 2 * * *');
    expect(await next(digest.id)).toBeUndefined();
    await scheduler.reload();
    expect(await next(digest.id)).toBe('2026-03-28T01:30:00.000Z'); // 02:30 CET
    clock = new Date('2026-03-28T01:30:00Z');
    await scheduler.catchUp({ periodic: true });
    expect(await next(digest.id)).toBe('2026-03-29T01:30:00.000Z'); // 02:30 does not exist: 03:30 CEST
    clock = new Date('2026-03-29T01:30:00Z');
    await scheduler.catchUp({ periodic: true });
    expect(await next(digest.id)).toBe('2026-03-30T00:30:00.000Z'); // 02:30 CEST

    clock = new Date('2026-10-24T12:00:00Z');
    await scheduler.catchUp({ periodic: true }); // months passed: the latest slot is past the window, left to the start
    expect(await next(digest.id)).toBe('2026-10-25T00:30:00.000Z'); // the first 02:30 (CEST)
    clock = new Date('2026-10-25T00:30:00Z');
    await scheduler.catchUp({ periodic: true });
    expect(await next(digest.id)).toBe('2026-10-26T01:30:00.000Z'); // not the second 02:30 (CET): tomorrow's
    clock = new Date('2026-10-25T01:30:00Z');
    await scheduler.catchUp({ periodic: true });
    expect(posted.filter((p) => p.startsWith(`${digest.id}@`))).toEqual([
      `${digest.id}@2026-03-28T01:30:00.000Z`,
      `${digest.id}@2026-03-29T01:30:00.000Z`,
      `${digest.id}@2026-10-25T00:30:00.000Z`,
    ]);
    expect(await store.runs.get(digest.id, new Date('2026-10-24T00:30:00Z'))).toBeUndefined();
    await store.digests.remove(digest.teamId, digest.id);
  });

  it('an edit, a pause and a resume schedule the next slot again', async () => {
    clock = new Date('2026-11-20T08:00:00Z');
    const digest = await add('0 10 * * *');
    await scheduler.reload();
    expect(await next(digest.id)).toBe('2026-11-20T09:00:00.000Z');

    await store.digests.update(digest.teamId, digest.id, { cron: '0 12 * * *' });
    expect(await next(digest.id)).toBeUndefined();
    await scheduler.reload();
    expect(await next(digest.id)).toBe('2026-11-20T11:00:00.000Z');

    await store.digests.setPaused(digest.teamId, digest.id, true);
    await scheduler.reload();
    expect(await next(digest.id)).toBeUndefined();
    clock = new Date('2026-11-20T11:00:00Z');
    await scheduler.catchUp({ periodic: true });
    expect(posted.filter((p) => p.startsWith(`${digest.id}@`))).toEqual([]);

    // Resumed 40 minutes after a slot it slept through: that slot is posted, as the catch-up did.
    clock = new Date('2026-11-20T11:40:00Z');
    await store.digests.setPaused(digest.teamId, digest.id, false);
    await scheduler.reload();
    expect(await next(digest.id)).toBe('2026-11-20T11:00:00.000Z');
    await scheduler.catchUp({ periodic: true });
    await scheduler.catchUp({ periodic: true });
    expect(posted.filter((p) => p.startsWith(`${digest.id}@`))).toEqual([`${digest.id}@2026-11-20T11:00:00.000Z`]);
    expect(await next(digest.id)).toBe('2026-11-21T11:00:00.000Z');
    expect(scheduler.nextRun((await store.digests.get(digest.id))!)?.toISOString()).toBe('2026-11-21T11:00:00.000Z');
  });

  it('a digest made after its slot waits for the next one', async () => {
    clock = new Date('2026-11-21T12:30:00Z');
    const digest = await store.digests.create({
      teamId: 'T',
      channelId: 'C',
      ownerId: 'U',
      reports: ['sources'],
      topN: 3,
      period: 'day',
      schedule: { kind: 'daily', time: '13:00' },
      cron: '0 13 * * *', // 12:00Z, half an hour ago
      timeZone: 'Europe/Berlin',
    });
    await store.db.query(`update digests set created_at = '2026-11-21T12:10:00Z' where id = $1`, [digest.id]);
    await scheduler.catchUp({ periodic: true });
    expect(await next(digest.id)).toBe('2026-11-22T12:00:00.000Z');
    expect(posted.filter((p) => p.startsWith(`${digest.id}@`))).toEqual([]);
  });
});
