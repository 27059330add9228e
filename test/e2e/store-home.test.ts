import { expect, it } from 'vitest';
import { describeEachDb } from '../support/db.js';

describeEachDb('store: App Home', (t) => {
  it('keeps who opened their Home and what it shows; the audience is those who opened it lately, of those asked', async () => {
    const views = t.store.homeViews;
    await views.opened('U1', 'h1');
    await views.opened('U2', 'h2');
    expect(await views.audience(undefined, 60_000)).toEqual([{ user: 'U1', hash: 'h1' }, { user: 'U2', hash: 'h2' }]);
    expect(await views.audience(['U2', 'U3'], 60_000)).toEqual([{ user: 'U2', hash: 'h2' }]);
    await views.published('U1', null);
    await views.published('U3', 'never opened');
    expect(await views.audience(['U1', 'U3'], 60_000)).toEqual([{ user: 'U1' }]);
    await t.store.db.query("UPDATE home_views SET opened_at = now() - interval '2 days' WHERE user_id = 'U2'");
    expect(await views.audience(undefined, 86_400_000)).toEqual([{ user: 'U1' }]);
  });

  it('a Home publish still pending is replaced by the newer one; one already sending is not', async () => {
    const { deliveries } = t.store;
    const home = (text: string) => ({ kind: 'home' as const, channelId: 'U1', message: { text, blocks: [] }, subject: { type: 'home', user: 'U1' }, expiresInMs: 60_000 });
    const first = await deliveries.enqueueLatest(home('one'));
    expect(await deliveries.enqueueLatest(home('two'))).toBe(first);
    expect((await deliveries.get(first))?.message.text).toBe('two');
    // Another person's Home, and a digest in a channel, are their own rows.
    expect(await deliveries.enqueueLatest({ ...home('bob'), channelId: 'U2' })).not.toBe(first);
    const [claimed] = await deliveries.claim('r1', { staleMs: 60_000, busy: ['U2'], limit: 5 });
    expect(claimed?.id).toBe(first);
    const third = await deliveries.enqueueLatest(home('three'));
    expect(third).not.toBe(first);
    expect((await deliveries.get(first))?.message.text).toBe('two');
  });
});
