import { expect, it } from 'vitest';
import { HOME } from '../../../src/features/home/deliveries.js';
import { HomeRefresh } from '../../../src/features/home/refresh.js';
import { silentLogger } from '../../../src/platform/log.js';
import { describeEachDb } from '../../support/db.js';
import { until } from '../../support/until.js';

describeEachDb('store: App Home', (t) => {
  it('keeps who opened their Home and what it shows; the audience is those who opened it lately, of those asked', async () => {
    const views = t.store.homeViews;
    await views.opened('T1', 'U1', 'h1');
    await views.opened('T1', 'U2', 'h2');
    expect(await views.audience(undefined, 60_000)).toEqual([
      { team: 'T1', user: 'U1', hash: 'h1' },
      { team: 'T1', user: 'U2', hash: 'h2' },
    ]);
    expect(await views.audience(['U2', 'U3'], 60_000)).toEqual([{ team: 'T1', user: 'U2', hash: 'h2' }]);
    await views.published('T1', 'U1', null);
    await views.published('T1', 'U3', 'never opened');
    expect(await views.audience(['U1', 'U3'], 60_000)).toEqual([{ team: 'T1', user: 'U1' }]);
    await t.store.db.query("UPDATE home_views SET opened_at = now() - interval '2 days' WHERE user_id = 'U2'");
    expect(await views.audience(undefined, 86_400_000)).toEqual([{ team: 'T1', user: 'U1' }]);
  });

  it("one person's Home in two workspaces is two rows: each shows and is published on its own", async () => {
    const views = t.store.homeViews;
    await views.opened('T1', 'U1', 'in T1');
    await views.opened('T2', 'U1', 'in T2');
    await views.published('T2', 'U1', 'T2 again');
    expect(await views.audience(['U1'], 60_000)).toEqual([
      { team: 'T1', user: 'U1', hash: 'in T1' },
      { team: 'T2', user: 'U1', hash: 'T2 again' },
    ]);
  });

  it('a Home publish still pending is replaced by the newer one; one already sending is not', async () => {
    const { deliveries } = t.store;
    const home = (text: string) => ({
      team: 'T1',
      subject: HOME,
      payload: { user: 'U1' },
      channelId: 'U1',
      message: { text, blocks: [] },
      expiresInMs: 60_000,
    });
    const first = await deliveries.enqueueLatest(home('one'));
    expect(await deliveries.enqueueLatest(home('two'))).toBe(first);
    expect((await deliveries.get(first))?.message.text).toBe('two');
    // Another person's Home, and a digest in a channel, are their own rows.
    expect(await deliveries.enqueueLatest({ ...home('bob'), channelId: 'U2' })).not.toBe(first);
    const [claimed] = await deliveries.claim('r1', { staleMs: 60_000, busy: ['T1/U2'], limit: 5 });
    expect(claimed?.id).toBe(first);
    const third = await deliveries.enqueueLatest(home('three'));
    expect(third).not.toBe(first);
    expect((await deliveries.get(first))?.message.text).toBe('two');
    // A Home published directly drops the one still pending; the one being sent stays.
    expect(await deliveries.dropPending(HOME, 'T2', 'U1')).toBe(0);
    expect(await deliveries.dropPending(HOME, 'T1', 'U1')).toBe(1);
    expect(await deliveries.get(third)).toBeUndefined();
    expect((await deliveries.get(first))?.status).toBe('sending');
  });
});

describeEachDb('App Home refresh', (t) => {
  it('publishes changed Homes within its rate through the outbox, skips unchanged ones, and stops without waiting out the rate', async () => {
    const { homeViews, deliveries } = t.store;
    for (const user of ['U1', 'U2', 'U3', 'U4']) await homeViews.opened('T1', user, `shown-${user}`);
    const outcomes: string[] = [];
    const refresh = new HomeRefresh({
      repo: homeViews,
      // U1's Home is as it was shown; the others' changed.
      render: async (_team, user) => ({
        view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: user } }] },
        hash: user === 'U1' ? 'shown-U1' : `new-${user}`,
      }),
      ownersIn: async () => [],
      enqueue: async (team, user, view) =>
        void (await deliveries.enqueueLatest({
          team,
          subject: HOME,
          payload: { user },
          channelId: user,
          message: { text: 'Lookout Home', blocks: view.blocks as never[] },
          expiresInMs: 60_000,
        })),
      log: silentLogger,
      observe: (outcome) => outcomes.push(outcome),
      debounceMs: 10,
      burst: 2,
      perMinute: 1,
    });
    refresh.changed('everyone');
    await until(() => (outcomes.filter((o) => o === 'queued').length === 2 ? true : undefined), 'two publishes');
    // U4's waits for the rate (a minute, past the test's timeout); stopping does not wait for it.
    await refresh.stop();
    expect(outcomes.sort()).toEqual(['queued', 'queued', 'unchanged']);
    const open = await deliveries.unfinished({ team: 'T1', failedWithinMs: 60_000, limit: 10 });
    expect(open.map((d) => d.channelId).sort()).toEqual(['U2', 'U3']);
    expect(await homeViews.audience(undefined, 60_000)).toEqual([
      { team: 'T1', user: 'U1', hash: 'shown-U1' },
      { team: 'T1', user: 'U2', hash: 'new-U2' },
      { team: 'T1', user: 'U3', hash: 'new-U3' },
      { team: 'T1', user: 'U4', hash: 'shown-U4' },
    ]);
  });
});
