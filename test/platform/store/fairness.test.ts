import { expect, it } from 'vitest';
import { DigestRunRepo } from '../../../src/features/digests/runs.js';
import { NOTICE } from '../../../src/platform/deliveries/subject.js';
import { describeEachDb } from '../../support/db.js';

/**
 * Workspaces take turns: one workspace's hundreds of due digests or waiting channels do not
 * push another's one digest or post out of a batch. Orders, not timings (bench/workspaces.ts
 * --heavy measures the lateness).
 */
describeEachDb('store: workspaces take turns', (t) => {
  const slot = new Date('2026-11-25T09:00:00Z');

  async function digest(team: string, channel: string) {
    const { id } = await t.store.digests.create({
      teamId: team,
      channelId: channel,
      ownerId: 'U1',
      reports: ['sources'],
      filters: [],
      topN: 5,
      period: 'day',
      schedule: { kind: 'cron', cron: '0 9 * * *' },
      cron: '0 9 * * *',
      timeZone: 'UTC',
    });
    await t.db.query('UPDATE digests SET next_run_at = $1 WHERE id = $2', [slot, id]);
    return id;
  }

  it("a batch of due digests holds the quiet workspace's one, however many the busy one has", async () => {
    for (let i = 0; i < 12; i++) await digest('T_BUSY', `C_BUSY_${i % 4}`);
    const quiet = await digest('T_QUIET', 'C_QUIET');
    const runs = new DigestRunRepo(t.db);
    const batch = await runs.due(new Date(slot.getTime() + 1), 3);
    expect(batch.map((d) => d.id)).toContain(quiet);
    expect(batch).toHaveLength(3);
    // Everything due still comes, each busy digest once.
    const all = await runs.due(new Date(slot.getTime() + 1), 100);
    expect(new Set(all.map((d) => d.id)).size).toBe(13);
  });

  const enqueue = (team: string, channelId: string) =>
    t.store.deliveries.enqueue({
      team,
      subject: NOTICE,
      channelId,
      message: { text: 'x', blocks: [] },
      expiresInMs: 3_600_000,
    });

  it("the outbox claims the quiet workspace's one post in the first batch, behind none of the busy one's channels", async () => {
    for (let i = 0; i < 10; i++) await enqueue('T_BUSY', `C_BUSY_${i}`);
    const quiet = await enqueue('T_QUIET', 'C_QUIET');
    const claimed = await t.store.deliveries.claim('r1', { busy: [], staleMs: 60_000, limit: 2 });
    expect(claimed.map((d) => d.id)).toContain(quiet);
    expect(claimed).toHaveLength(2);
  });

  it('a channel whose head is not due yet takes no place in the batch', async () => {
    const later = await Promise.all(Array.from({ length: 5 }, (_, i) => enqueue('T_BUSY', `C_LATER_${i}`)));
    await t.db.query("UPDATE deliveries SET next_at = now() + interval '1 hour' WHERE id = ANY($1::bigint[])", [later]);
    const due = await enqueue('T_BUSY', 'C_DUE');
    const claimed = await t.store.deliveries.claim('r1', { busy: [], staleMs: 60_000, limit: 1 });
    expect(claimed.map((d) => d.id)).toEqual([due]);
  });

  it('one channel still posts one at a time, oldest first, in each workspace', async () => {
    const first = await enqueue('T_BUSY', 'C_ONE');
    await enqueue('T_BUSY', 'C_ONE');
    const other = await enqueue('T_QUIET', 'C_ONE');
    const claimed = await t.store.deliveries.claim('r1', { busy: [], staleMs: 60_000, limit: 10 });
    expect(claimed.map((d) => d.id).sort()).toEqual([first, other].sort());
    expect(await t.store.deliveries.claim('r2', { busy: [], staleMs: 60_000, limit: 10 })).toEqual([]);
  });
});
