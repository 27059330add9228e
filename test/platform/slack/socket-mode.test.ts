import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER, headerOf, mrkdwnOf, sandbox, tableOf, type Sandbox } from '../../support/sandbox.js';
import { until } from '../../support/until.js';
import { changed, run } from '../../support/answers.js';

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
    const refined = await changed(box, message, () =>
      box.slack.submit(view, { target: 'country.name', operator: 'is_any_of', values: 'Germany', group: 'all' }),
    );
    expect(mrkdwnOf(refined)[0]).toMatch(/country is `Germany`/);
  });

  it('App Home opens, and its button acts', async () => {
    await run(box, 'digest add weekly monday 09:00 sources');
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    await box.slack.event('app_home_opened', USER, { tab: 'home' });
    await until(() => box.slack.workspace.home(USER), 'the Home');
    const before = box.slack.workspace.home(USER)!.publishes;
    await box.slack.clickHome(USER, 'home.digest.pause', { blockId: `digest-${digest!.id}` });
    await until(() => box.slack.workspace.home(USER)!.publishes > before, 'the Home again');
    expect((await box.lookout.store.digests.get(digest!.id))?.paused).toBe(true);
  });
});

describe('Socket Mode: the HTTP port', () => {
  let box: Box;
  let port: number;
  beforeAll(async () => {
    port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    box = await sandbox({ socketMode: true, port });
    await until(() => box.slack.socket?.connected, 'the app to connect');
  });
  afterAll(() => box?.stop());

  it('serves /healthz alone; /metrics and /readyz are on the ops listener', async () => {
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    for (const path of ['/metrics', '/readyz']) {
      const there = await fetch(`http://127.0.0.1:${port}${path}`);
      await there.arrayBuffer();
      expect(there.status, path).toBe(404);
      const ops = await fetch(`${box.lookout.ops.url}${path}`);
      await ops.arrayBuffer();
      expect(ops.status, path).toBe(200);
    }
  });
});
