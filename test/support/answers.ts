import { expect } from 'vitest';
import type { Message, SlackDriver } from '@lookout/sandbox/slack';
import { CHANNEL, USER, type Sandbox } from './sandbox.js';
import { until } from './until.js';

/** A note that a slow answer is on its way (a trend's fetch, a watch's preview): the answer takes its place. */
export const isProgressNote = (m: { text: string }): boolean =>
  /^Fetching \d+ periods|Previewing how it would have behaved/.test(m.text);

/**
 * Types `command text` (`/traffic` unless told) as `user` in `channel` (USER in CHANNEL unless
 * told) and waits for the app's answer: a new message that person sees, neither a notice nor a
 * progress note (the answer takes that note's place).
 */
export async function run(
  box: Sandbox,
  text: string,
  { command = '/traffic', channel = CHANNEL, user = USER }: { command?: string; channel?: string; user?: string } = {},
): Promise<Message> {
  const before = new Set(box.slack.messages(channel, { user }).map((m) => m.ts));
  const delivery = await box.slack.slash(channel, user, text, command);
  expect(delivery.status).toBe(200);
  return box.slack.waitForMessage(
    channel,
    (m) =>
      !before.has(m.ts) &&
      m.user !== user &&
      m.via !== 'notice' &&
      (!m.ephemeralTo || m.ephemeralTo === user) &&
      !isProgressNote(m),
  );
}

/** Types `/traffic text` as `user` in `channel` and waits for the answer only they see. */
export async function ephemeralAnswer(
  slack: SlackDriver,
  channel: string,
  user: string,
  text: string,
): Promise<Message> {
  const before = new Set(slack.messages(channel, { user }).map((m) => m.ts));
  await slack.slash(channel, user, text);
  return until(
    () => slack.messages(channel, { user }).find((m) => !before.has(m.ts) && m.ephemeralTo === user),
    `an answer to ${text}`,
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

/** The app still answers a command: U_BOB's `/traffic help` in C_GENERAL. */
export async function stillAnswers(box: Sandbox): Promise<void> {
  const before = box.slack.messages('C_GENERAL', { user: 'U_BOB' }).length;
  await box.slack.slash('C_GENERAL', 'U_BOB', 'help');
  await box.slack.waitFor(() => box.slack.messages('C_GENERAL', { user: 'U_BOB' }).length > before || undefined);
}
