import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DigestScheduler } from '../../../src/features/digests/scheduler.js';
import { silentLogger } from '../../../src/platform/log.js';
import { openRepos, type Repos as Store } from '../../../src/compose.js';
import type { Digest } from '../../../src/features/digests/repo.js';

/** Which slots exist is schedule.ts's word; the scheduler's timer only fires them. */
describe('digest slots across DST changes (Europe/Berlin, 02:30 local)', () => {
  let store: Store;
  let digest: Digest;
  let clock = new Date('2026-03-29T01:31:00Z');
  const posted: string[] = [];
  let scheduler: DigestScheduler;

  beforeAll(async () => {
    store = await openRepos({ memory: true });
    digest = await store.digests.create({
      teamId: 'T',
      channelId: 'C',
      ownerId: 'U',
      reports: ['sources'],
      topN: 3,
      period: 'day',
      schedule: { kind: 'daily', time: '02:30' },
      cron: '30 2 * * *',
      timeZone: 'Europe/Berlin',
    });
    await store.db.query(`update digests set created_at = '2026-01-01T00:00:00Z'`);
    scheduler = new DigestScheduler({
      runs: store.runs,
      loadActive: () => store.digests.listActive(),
      loadOne: (id) => store.digests.get(id),
      post: async (d, slot) => {
        posted.push(slot.toISOString());
        await store.runs.markPosted(d.id, slot, 'ts', d.channelId);
      },
      log: silentLogger,
      owner: 'test',
      now: () => clock,
    });
    await scheduler.reload();
  });
  afterAll(async () => {
    await scheduler.stop();
    await store.close();
  });

  it('spring forward: 02:30 does not exist; the slot is 03:30 CEST, and catching up posts it once', async () => {
    // The periodic catch-up (every 30 s on each replica) is what posts it in production.
    await scheduler.catchUp({ periodic: true });
    await scheduler.catchUp({ periodic: true });
    await scheduler.catchUp();
    expect(posted).toEqual(['2026-03-29T01:30:00.000Z']);
  });

  it('fall back: 02:30 happens twice; the first is the slot, a second firing is refused', async () => {
    const id = digest.id;
    expect(await scheduler.coordinator.shouldRun(`digest:${id}:2026-10-25T01:30:00.000Z`, 60_000)).toBe(false);
    expect(await scheduler.coordinator.shouldRun(`digest:${id}:2026-10-25T00:30:00.000Z`, 60_000)).toBe(true);
    // A replica restarting between the two: catching up finds the first taken and posts nothing more.
    clock = new Date('2026-10-25T01:10:00Z');
    const before = posted.length;
    await scheduler.catchUp();
    expect(posted).toHaveLength(before);
  });

  it('the periodic catch-up leaves slots older than an hour alone (start-up records them)', async () => {
    clock = new Date('2026-11-20T05:00:00Z'); // the 02:30 slot was 3.5 h ago
    await scheduler.catchUp({ periodic: true });
    expect(await store.runs.get(digest.id, new Date('2026-11-20T01:30:00Z'))).toBeUndefined();
    await scheduler.catchUp();
    expect(await store.runs.get(digest.id, new Date('2026-11-20T01:30:00Z'))).toMatchObject({ status: 'missed' });
  });

  it('an ordinary day: the timer’s slot is a slot, claimed once', async () => {
    const slot = `digest:${digest.id}:2026-11-19T01:30:00.000Z`;
    expect(await scheduler.coordinator.shouldRun(slot, 60_000)).toBe(true);
    expect(await scheduler.coordinator.shouldRun(slot, 60_000)).toBe(false);
  });
});
