/**
 * Channels are a boundary, the same for every entry point (issue 26's measurements): a
 * watch cannot be made to post where its maker is not; a watch is muted or acknowledged only
 * from its channel or the Home, by its owner, an admin or a member of its channel; the Home
 * shows and retries only what belongs to the channels a person is in. Membership is Slack's
 * own answer (conversations.members at the offline Slack).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchAlertMessage } from '../../src/features/watches/blocks.js';
import { NOTICE } from '../../src/platform/deliveries/subject.js';
import { mrkdwnOf, mrkdwnText, sandbox, type Sandbox } from '../support/sandbox.js';
import { until } from '../support/until.js';
import { ephemeralAnswer } from '../support/answers.js';

type Box = Sandbox & { logs: string[] };
let box: Box;

beforeAll(async () => {
  // Carol is the named admin; #growth holds Alice and Dana; Bob is not in it.
  box = await sandbox({ admins: ['U_CAROL'] });
  box.slack.workspace.addUser({ id: 'U_DANA', name: 'dana' });
  box.slack.workspace.addChannel({ name: 'growth', id: 'C_GROWTH', members: ['U_ALICE', 'U_DANA'] });
  box.slack.workspace.setMember('C_GENERAL', 'U_DANA', true);
});
afterAll(() => box?.stop());

async function command(channel: string, user: string, text: string): Promise<string> {
  return mrkdwnText(await ephemeralAnswer(box.slack, channel, user, text));
}

async function watchIn(channel: string, owner: string): Promise<number> {
  const watch = await box.lookout.store.watches.create({
    teamId: 'T_LOOKOUT',
    channelId: channel,
    ownerId: owner,
    rule: {
      metric: 'visits',
      report: 'visits',
      filters: [],
      condition: { kind: 'above', value: 1_000_000 },
      every: 'day',
    },
    timeZone: 'UTC',
  });
  return watch.id;
}

describe('watches', () => {
  it('a watch cannot post into a channel its maker is not in: refused, nothing made', async () => {
    const before = (await box.lookout.store.watches.list('T_LOOKOUT')).length;
    const answer = await command('C_GENERAL', 'U_BOB', 'watch visits above 100 #growth');
    expect(answer).toMatch(/You are not in that channel, so Lookout will not post there for you/);
    expect((await box.lookout.store.watches.list('T_LOOKOUT')).length).toBe(before);
    // A member may; so may the named admin, who is not one.
    expect(await command('C_GENERAL', 'U_DANA', 'watch visits above 100 #growth')).toMatch(/Watch #\d+ added/);
    expect(await command('C_GENERAL', 'U_CAROL', 'watch visits above 200 #growth')).toMatch(/Watch #\d+ added/);
  });

  it('muting or acknowledging a watch from another channel is refused, naming its channel; from its channel or the Home it works', async () => {
    const id = await watchIn('C_GROWTH', 'U_ALICE');
    expect(await command('C_GENERAL', 'U_ALICE', `watch mute ${id} forever`)).toMatch(
      new RegExp(`Watch #${id} posts in <#C_GROWTH>`),
    );
    expect((await box.lookout.store.watches.get(id))?.mutedUntil).toBeUndefined();
    // Bob is not in #growth: not even from there (a tampered or forwarded command).
    expect(await command('C_GROWTH', 'U_BOB', `watch mute ${id} forever`)).toMatch(/posts in a channel you are not in/);
    expect((await box.lookout.store.watches.get(id))?.mutedUntil).toBeUndefined();
    // Dana is a member: she may mute it there, but not change it.
    expect(await command('C_GROWTH', 'U_DANA', `watch mute ${id} for 1h`)).toMatch(/is muted for 1 hour/);
    expect(await command('C_GROWTH', 'U_DANA', `watch pause ${id}`)).toMatch(/belongs to someone else/);
    expect((await box.lookout.store.watches.get(id))?.paused).toBe(false);
  });

  it("a watch alert's Acknowledge and Mute from a non-member are refused and change nothing; a member's work", async () => {
    const id = await watchIn('C_GROWTH', 'U_ALICE');
    const watches = box.lookout.store.watches;
    await watches.claim(id, '2026-11-23', 'test', 60_000);
    await watches.record(id, 'test', {
      period: '2026-11-23',
      outcome: 'breach',
      value: 5,
      text: '5 visits on Nov 23 (in UTC, as the analytics API counts days), above 1',
      state: 'breaching',
      at: new Date(),
      breach: { at: new Date() },
    } as never);
    // The alert as the app posts it, in #growth.
    const alert = watchAlertMessage({
      ...(await watches.get(id))!,
      text: '5 visits on Nov 23 (in UTC, as the analytics API counts days), above 1',
      apiZone: 'UTC',
      now: new Date(),
      demo: true,
    });
    const res = await fetch(`${box.slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${box.secrets.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: 'C_GROWTH', ...alert }),
    });
    const { ts } = (await res.json()) as { ts: string };
    const refusedTo = async (user: string, action: string) => {
      const before = new Set(box.slack.messages('C_GROWTH', { user }).map((m) => m.ts));
      await box.slack.click({ channel: 'C_GROWTH', ts }, action, undefined, { user });
      const said = await box.slack.waitForMessage(
        'C_GROWTH',
        (m) => !before.has(m.ts) && m.ephemeralTo === user,
        30_000,
      );
      return mrkdwnOf(said).join('\n');
    };
    expect(await refusedTo('U_BOB', 'watch.ack')).toMatch(/posts in a channel you are not in/);
    expect(await refusedTo('U_BOB', 'watch.mute.24h')).toMatch(/posts in a channel you are not in/);
    const after = await watches.get(id);
    expect(after?.acknowledgedBy).toBeUndefined();
    expect(after?.mutedUntil).toBeUndefined();
    // Dana is in #growth: her Acknowledge updates the alert in place.
    await box.slack.click({ channel: 'C_GROWTH', ts }, 'watch.ack', undefined, { user: 'U_DANA' });
    await until(
      async () => ((await watches.get(id))?.acknowledgedBy === 'U_DANA' ? true : undefined),
      "Dana's acknowledgement",
    );
    await until(
      () =>
        mrkdwnOf(box.slack.workspace.message('C_GROWTH', ts)!).join(' ').includes('Acknowledged by <@U_DANA>')
          ? true
          : undefined,
      'the alert updated',
    );
  });
});

describe('digests', () => {
  it('a digest cannot post into a channel its maker is not in, by command or by the form; a member may', async () => {
    const before = (await box.lookout.store.digests.listAll('T_LOOKOUT')).length;
    expect(await command('C_GENERAL', 'U_BOB', 'digest add #growth daily 09:00 sources')).toMatch(
      /You are not in that channel/,
    );
    // The form's submission is the same service call: a forged channel choice is refused the same way.
    const refused = await box.lookout.features.digests.service.create(
      await box.lookout.tenants.of('T_LOOKOUT'),
      'U_BOB',
      {
        channelId: 'C_GROWTH',
        reports: ['sources'],
        filters: [],
        topN: 5,
        schedule: { kind: 'daily', time: '09:00' },
        cron: '0 9 * * *',
        timeZone: 'UTC',
      },
    );
    expect(refused.ok).toBe(false);
    expect((await box.lookout.store.digests.listAll('T_LOOKOUT')).length).toBe(before);
    expect(await command('C_GENERAL', 'U_DANA', 'digest add #growth daily 09:00 sources')).not.toMatch(
      /not in that channel/,
    );
    expect((await box.lookout.store.digests.listAll('T_LOOKOUT')).length).toBe(before + 1);
  });
});

describe('App Home', () => {
  it('shows no failed delivery from a channel the person is not in, and refuses to retry one', async () => {
    // Bob owns a watch in #growth from before he left it.
    await watchIn('C_GROWTH', 'U_BOB');
    const failed = await box.lookout.store.deliveries.enqueue({
      team: 'T_LOOKOUT',
      subject: NOTICE,
      channelId: 'C_GROWTH',
      message: { text: 'secret growth numbers', blocks: [] },
      expiresInMs: 60_000,
    });
    box.slack.failNext('chat.postMessage', 'not_in_channel', 1, { channel: 'C_GROWTH' });
    box.lookout.deliveries.wake();
    await until(
      async () => ((await box.lookout.store.deliveries.get(failed))?.status === 'failed' ? true : undefined),
      'the delivery to fail',
    );

    const before = box.slack.workspace.home('U_BOB')?.publishes ?? 0;
    await box.slack.event('app_home_opened', 'U_BOB', { tab: 'home', channel: 'D_U_BOB' });
    const home = await until(() => {
      const h = box.slack.workspace.home('U_BOB');
      return h && h.publishes > before ? h : undefined;
    }, "Bob's Home");
    const shown = JSON.stringify(home.view);
    expect(shown).not.toContain('not_in_channel');
    expect(shown).not.toMatch(/notice in <#C_GROWTH>/);

    // A Retry button for it, forged: refused, and the delivery stays failed.
    const homeBlocks = (home.view as { blocks: Record<string, unknown>[] }).blocks;
    homeBlocks.push({
      type: 'actions',
      block_id: `delivery-${failed}`,
      elements: [
        {
          type: 'button',
          action_id: 'home.delivery.retry',
          text: { type: 'plain_text', text: 'Retry' },
          value: String(failed),
        },
      ],
    });
    await box.slack.clickHome('U_BOB', 'home.delivery.retry', { blockId: `delivery-${failed}` });
    await until(
      async () => ((box.slack.workspace.home('U_BOB')?.publishes ?? 0) > home.publishes ? true : undefined),
      'the Home to answer',
    );
    expect(JSON.stringify(box.slack.workspace.home('U_BOB')?.view)).toMatch(/not one of yours/);
    expect((await box.lookout.store.deliveries.get(failed))?.status).toBe('failed');
  });
});

describe('numbers a person types', () => {
  it('a 400-digit threshold, 1e400 and -1e400 are refused with the range, and no watch is stored', async () => {
    const before = (await box.lookout.store.watches.list('T_LOOKOUT')).length;
    for (const n of ['9'.repeat(400), '1e400', '-1e400']) {
      expect(await command('C_GENERAL', 'U_ALICE', `watch visits above ${n}`)).toMatch(
        /a number from 0 to 1,000,000,000/,
      );
    }
    expect(await command('C_GENERAL', 'U_ALICE', 'watch mute 1 for 99999d')).toMatch(/From a minute to a year/);
    expect((await box.lookout.store.watches.list('T_LOOKOUT')).length).toBe(before);
  });
});
