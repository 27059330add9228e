import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/sandbox/slack/index.js';
import { CHANNEL, USER, headerOf, mrkdwnOf, sandbox, type Sandbox } from '../support/sandbox.js';

type Box = Sandbox & { logs: string[] };

async function until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function run(box: Box, text: string): Promise<Message> {
  const before = new Set(box.slack.messages(CHANNEL, { user: USER }).map((m) => m.ts));
  const delivery = await box.slack.slash(CHANNEL, USER, text);
  expect(delivery.status).toBe(200);
  return box.slack.waitForMessage(CHANNEL, (m) => !before.has(m.ts) && m.user !== USER && m.via !== 'notice' && m.ephemeralTo === USER, 10_000);
}

async function changed(box: Box, message: Message, act: () => Promise<unknown>): Promise<Message> {
  const updates = box.slack.messages(CHANNEL, { user: USER }).find((m) => m.ts === message.ts)!.updates;
  await act();
  return until(() => {
    const now = box.slack.messages(CHANNEL, { user: USER }).find((m) => m.ts === message.ts);
    return now && now.updates > updates ? now : undefined;
  }, 'the message to change');
}

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
