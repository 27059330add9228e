/**
 * Further workspaces (the `workspaces` option, for benchmarks of many workspaces): each
 * token acts in its own workspace only, and chat.postMessage's per-channel limit is kept
 * per workspace, as Slack's limits are per workspace per app.
 */
import { randomBytes } from 'node:crypto';
import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfflineSlack, type OfflineSlack } from '../../src/slack/index.js';

const token = (name: string) => `xoxb-${name}-${randomBytes(4).toString('hex')}`;
const extra = [
  { team: { id: 'T_EXTRA1', name: 'Extra One', domain: 'extra-one' }, botToken: token('one') },
  { team: { id: 'T_EXTRA2', name: 'Extra Two', domain: 'extra-two' }, botToken: token('two') },
].map((w) => ({
  ...w,
  channels: [
    { id: 'C_SAME', name: 'digests' },
    { id: 'C_LIMITED', name: 'alerts' },
  ],
}));

let slack: OfflineSlack;
const client = (botToken: string) =>
  new WebClient(botToken, {
    slackApiUrl: slack.apiUrl,
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });

beforeAll(async () => {
  slack = await startOfflineSlack({
    signingSecret: randomBytes(16).toString('hex'),
    botToken: token('main'),
    rateLimit: { burst: 1, perSecond: 1 },
    workspaces: extra,
  });
});
afterAll(() => slack.close());

describe('further workspaces', () => {
  it('each bot token acts in its own workspace, as its own bot', async () => {
    for (const w of extra) {
      await expect(client(w.botToken).auth.test()).resolves.toMatchObject({
        team_id: w.team.id,
        user_id: `U_${w.team.id}_BOT`,
      });
      await client(w.botToken).chat.postMessage({ channel: 'C_SAME', text: `hello from ${w.team.name}` });
    }
    expect(
      slack
        .team('T_EXTRA1')
        .workspace.allMessages('C_SAME')
        .map((m) => m.text),
    ).toEqual(['hello from Extra One']);
    expect(
      slack
        .team('T_EXTRA2')
        .workspace.allMessages('C_SAME')
        .map((m) => m.text),
    ).toEqual(['hello from Extra Two']);
  });

  it("one workspace's channel running over its limit does not hold back a channel of the same id in another", async () => {
    const [one, two] = extra.map((w) => client(w.botToken));
    await one!.chat.postMessage({ channel: 'C_LIMITED', text: 'first' });
    await expect(one!.chat.postMessage({ channel: 'C_LIMITED', text: 'second' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
    });
    await expect(two!.chat.postMessage({ channel: 'C_LIMITED', text: 'first' })).resolves.toMatchObject({ ok: true });
  });

  it('refuses two workspaces with one team id', async () => {
    await expect(
      startOfflineSlack({
        signingSecret: 's',
        botToken: token('main'),
        workspaces: [extra[0]!, { ...extra[1]!, team: extra[0]!.team }],
      }),
    ).rejects.toThrow(/same team id/);
  });
});
