import { expect } from 'vitest';
import type { Message } from '@lookout/sandbox/slack';
import { CHANNEL, USER, type Sandbox } from './sandbox.js';
import { until } from './until.js';

/** Types `/traffic text` as USER in CHANNEL and waits for the app's answer to them. */
export async function run(box: Sandbox, text: string): Promise<Message> {
  const before = new Set(box.slack.messages(CHANNEL, { user: USER }).map((m) => m.ts));
  const delivery = await box.slack.slash(CHANNEL, USER, text);
  expect(delivery.status).toBe(200);
  return box.slack.waitForMessage(
    CHANNEL,
    (m) => !before.has(m.ts) && m.user !== USER && m.via !== 'notice' && m.ephemeralTo === USER,
  );
}

/** Does `act` and waits until `message` is replaced in place. */
export async function changed(box: Sandbox, message: Message, act: () => Promise<unknown>): Promise<Message> {
  const updates = box.slack.messages(CHANNEL, { user: USER }).find((m) => m.ts === message.ts)!.updates;
  await act();
  return until(() => {
    const now = box.slack.messages(CHANNEL, { user: USER }).find((m) => m.ts === message.ts);
    return now && now.updates > updates ? now : undefined;
  }, 'the message to change');
}
