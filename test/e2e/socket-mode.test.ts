import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER, headerOf, mrkdwnOf, sandbox, tableOf, type Sandbox } from '../support/sandbox.js';
import { until } from '../support/until.js';
import { changed, run } from '../support/answers.js';

type Box = Sandbox & { logs: string[] };

/** The same scenarios over HTTP (signed requests to /slack/events) and over Socket Mode (envelopes on a WebSocket). */
describe.each(['http', 'socket'] as const)('%s mode', (mode) => {
  let box: Box;
  beforeAll(async () => {
    box = await sandbox({ socketMode: mode === 'socket' });
    if (mode === 'socket') await until(() => box.slack.socket?.connected, 'the app to connect');
  });
  afterAll(() => box?.stop());

  it('a slash command is answered', async () => {
    const message = await run(box, 'sources last7d');
    expect(headerOf(message)).toMatch(/^Sources · Last 7 days/);
    expect(tableOf(message).length).toBeGreaterThan(1);
    expect(box.slack.deliveries.at(-1)!.url).toBe(mode === 'socket' ? 'socket' : box.lookout.requestUrl);
  });

  it('a button pages the answer in place', async () => {
    const message = await run(box, 'sources last7d top 3');
    const next = await changed(box, message, () => box.slack.click(message, 'report.next'));
    expect(mrkdwnOf(next)[0]).toMatch(/^Rows 4–6/);
  });

  it('a modal opens, and its submission refines the answer', async () => {
    const message = await run(box, 'sources last7d');
    await box.slack.click(message, 'report.filter');
    const view = await until(() => box.slack.openViews(USER).at(-1), 'the filter modal');
    const refined = await changed(box, message, () => box.slack.submit(view, { target: 'country.name', operator: 'is_any_of', values: 'Germany', group: 'all' }));
    expect(mrkdwnOf(refined)[0]).toMatch(/country is `Germany`/);
  });

  it('App Home opens, and its button acts', async () => {
    await run(box, 'digest add weekly monday 09:00 sources');
    const [digest] = await box.lookout.store.digests.listAll();
    await box.slack.event('app_home_opened', USER, { tab: 'home' });
    await until(() => box.slack.workspace.home(USER), 'the Home');
    const before = box.slack.workspace.home(USER)!.publishes;
    await box.slack.clickHome(USER, 'home.digest.pause', { blockId: `digest-${digest!.id}` });
    await until(() => box.slack.workspace.home(USER)!.publishes > before, 'the Home again');
    expect((await box.lookout.store.digests.get(digest!.id))?.paused).toBe(true);
  });
});
