import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headerOf, mrkdwnOf, sandbox, type Sandbox } from '../../support/sandbox.js';
import { until } from '../../support/until.js';
import { changed, run } from '../../support/answers.js';

type Box = Sandbox & { logs: string[] };

/** Socket Mode when the connection goes: the offline Slack asks the app to reconnect, or drops it without a word. */
describe('Socket Mode when the connection goes', () => {
  let box: Box;
  beforeAll(async () => {
    box = await sandbox({ socketMode: true });
    await until(() => box.slack.socket?.connected, 'the app to connect');
  });
  afterAll(() => box?.stop());

  it('asked to refresh, the app reconnects and goes on answering', async () => {
    const hub = box.slack.socket!;
    const before = hub.connections;
    hub.refresh();
    await until(() => hub.connections > before && hub.connected, 'a new connection');
    expect(headerOf(await run(box, 'countries last7d'))).toMatch(/^Countries/);
  });

  it('dropped mid-run, it reconnects; an interaction acked before the drop is not lost', async () => {
    const hub = box.slack.socket!;
    const message = await run(box, 'sources last7d top 3');
    box.demo!.setFaults({ latencyMs: 300 }); // the answer is still being fetched when the socket goes
    try {
      const before = hub.connections;
      const updated = changed(box, message, async () => {
        const click = await box.slack.click(message, 'report.next');
        expect(click.status).toBe(200); // acked on the socket
        hub.drop();
      });
      expect(mrkdwnOf(await updated)[0]).toMatch(/^Rows 4–6/);
      await until(() => hub.connections > before && hub.connected, 'the app to reconnect', 20_000);
    } finally {
      box.demo!.setFaults({});
    }
    expect(headerOf(await run(box, 'browsers last7d'))).toMatch(/^Browsers/);
  }, 30_000);
});
