import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, textsOf, type Sandbox } from '../../support/sandbox.js';

/** With SECURITY_CHANNELS set, threat alerts (security details, visits) go nowhere else. */
describe('alerts and SECURITY_CHANNELS', () => {
  let box: Sandbox & { logs: string[] };
  beforeAll(async () => {
    box = await sandbox({
      scheduler: false,
      security: { channels: ['C_SECURITY'], users: [], scrapingScoreThreshold: 0.8 },
    });
  });
  afterAll(() => box?.stop());

  const answer = async (channel: string, text: string) => {
    const before = new Set(box.slack.messages(channel, { user: 'U_ALICE' }).map((m) => m.ts));
    await box.slack.slash(channel, 'U_ALICE', text);
    const reply = await box.slack.waitForMessage(
      channel,
      (m) => m.ephemeralTo === 'U_ALICE' && !before.has(m.ts) && /Threat alerts/.test(textsOf(m).join(' ')),
    );
    return textsOf(reply).join(' ');
  };

  it('refuses alerts in another channel, saying where they may go, and subscribes nothing', async () => {
    expect(await answer('C_MARKETING', 'alerts on')).toMatch(
      /can only go to the security channels.*SECURITY_CHANNELS allows C_SECURITY/,
    );
    expect(await answer('C_SECURITY', 'alerts on #marketing')).toMatch(/can only go to the security channels/);
    expect(await box.lookout.store.subscriptions.list(undefined)).toEqual([]);
    expect(await answer('C_SECURITY', 'alerts on')).toMatch(/Threat alerts are on/);
    expect((await box.lookout.store.subscriptions.list(undefined)).map((s) => s.channelId)).toEqual(['C_SECURITY']);
  });
});
