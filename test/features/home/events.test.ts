import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateHomeView } from '../../../src/slack-rules/validate.js';
import { ALERT } from '../../../src/features/alerts/deliveries.js';
import { HOME } from '../../../src/features/home/deliveries.js';
import { NOTICE } from '../../../src/platform/deliveries/subject.js';
import { mrkdwnOf, sandbox, type Sandbox } from '../../support/sandbox.js';
import { until } from '../../support/until.js';

type Box = Sandbox & { logs: string[] };
type Home = { view: { blocks: unknown[] }; publishes: number };

/** Waits until no Home refresh is pending and the outbox has sent what it holds: a late publish of an earlier change is not taken for the next one's. */
async function settled(box: Box): Promise<void> {
  await box.lookout.features.home.settled();
  await box.lookout.deliveries.drained();
}

async function openHome(box: Box, user: string): Promise<Home> {
  const before = (box.slack.workspace.home(user) as unknown as Home | undefined)?.publishes ?? 0;
  const attempts = await box.slack.event('app_home_opened', user, { tab: 'home', channel: `D_${user}` });
  expect(attempts[0]!.status).toBe(200);
  return until(() => {
    const home = box.slack.workspace.home(user) as Home | undefined;
    return home && home.publishes > before ? home : undefined;
  }, `${user}'s Home`);
}

const text = (home: Home) => mrkdwnOf(home.view).join('\n');

describe('the Events API and App Home', () => {
  let box: Box;
  beforeAll(async () => {
    box = await sandbox({ settings: { SECURITY_USERS: ['U_CAROL'], ADMIN_USERS: ['U_CAROL'] } });
  });
  afterAll(() => box?.stop());

  it('answers url_verification with its challenge', async () => {
    const d = await box.slack.urlVerification('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
    expect(d.status).toBe(200);
    expect(d.body).toContain('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
  });

  it("shows a person's digests and watches, and a failed delivery in their channel, with the reason", async () => {
    await box.slack.slash('C_MARKETING', 'U_ALICE', 'digest add weekly monday 09:00 sources pages');
    await box.slack.slash('C_MARKETING', 'U_ALICE', 'watch visits drops 40% vs last week');
    await until(
      async () =>
        ((await box.lookout.store.digests.listAll('T_LOOKOUT')).length > 0 &&
          (await box.lookout.store.watches.list('T_LOOKOUT')).length > 0) ||
        undefined,
      'the digest and the watch',
    );
    box.slack.failNext('chat.postMessage', 'not_in_channel', 1, { channel: 'C_MARKETING' });
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    // Something Lookout posts on its own into that channel, refused by Slack for good.
    await box.lookout.store.deliveries.enqueue({
      team: 'T_LOOKOUT',
      subject: NOTICE,
      channelId: 'C_MARKETING',
      message: { text: 'hello', blocks: [] },
      expiresInMs: 60_000,
    });
    box.lookout.deliveries.wake();
    await until(
      async () =>
        (
          await box.lookout.store.deliveries.unfinished({
            team: 'T_LOOKOUT',
            channels: ['C_MARKETING'],
            failedWithinMs: 3_600_000,
            limit: 5,
          })
        ).find((d) => d.status === 'failed'),
      'the failed delivery',
    );

    const home = await openHome(box, 'U_ALICE');
    expect(validateHomeView({ type: 'home', blocks: home.view.blocks })).toEqual({ ok: true });
    expect(text(home)).toMatch(new RegExp(`\\*#${digest!.id}\\* sources, pages in <#C_MARKETING> · Mondays at 09:00`));
    expect(text(home)).toMatch(
      /\*#\d+\* visits drop by 40% or more against the same day last week in <#C_MARKETING>\nnot evaluated yet/,
    );
    expect(text(home)).toMatch(/notice in <#C_MARKETING>: failed \(not_in_channel\)/);
    // Bob has set nothing up: his Home says so, and shows none of Alice's.
    const bob = await openHome(box, 'U_BOB');
    expect(text(bob)).toMatch(/None yet: \*New digest\*, or `\/traffic digest add` in a channel/);
    expect(text(bob)).not.toContain('C_MARKETING');
  });

  it("its buttons change the same state as the commands: Pause and Resume a digest and a watch, Retry a failed delivery; another person's is refused", async () => {
    const [digest] = (await box.lookout.store.digests.listAll('T_LOOKOUT')).filter((d) => d.ownerId === 'U_ALICE');
    const [watch] = (await box.lookout.store.watches.list('T_LOOKOUT')).filter((w) => w.ownerId === 'U_ALICE');
    const republished = async (user: string, click: () => Promise<unknown>) => {
      const before = (box.slack.workspace.home(user) as unknown as Home).publishes;
      await click();
      return until(() => {
        const home = box.slack.workspace.home(user) as unknown as Home | undefined;
        return home && home.publishes > before ? home : undefined;
      }, 'the Home again');
    };
    await openHome(box, 'U_ALICE');
    let home = await republished('U_ALICE', () =>
      box.slack.clickHome('U_ALICE', 'home.digest.pause', { blockId: `digest-${digest!.id}` }),
    );
    expect((await box.lookout.store.digests.get(digest!.id))?.paused).toBe(true);
    expect(text(home)).toMatch(new RegExp(`\\*#${digest!.id}\\*[^\\n]*\\n:double_vertical_bar: paused`));
    home = await republished('U_ALICE', () =>
      box.slack.clickHome('U_ALICE', 'home.digest.resume', { blockId: `digest-${digest!.id}` }),
    );
    expect((await box.lookout.store.digests.get(digest!.id))?.paused).toBe(false);
    await republished('U_ALICE', () =>
      box.slack.clickHome('U_ALICE', 'home.watch.pause', { blockId: `watch-${watch!.id}` }),
    );
    expect((await box.lookout.store.watches.get(watch!.id))?.paused).toBe(true);
    // The same as `/traffic watch resume`: the list agrees.
    await republished('U_ALICE', () =>
      box.slack.clickHome('U_ALICE', 'home.watch.resume', { blockId: `watch-${watch!.id}` }),
    );
    expect((await box.lookout.store.watches.get(watch!.id))?.paused).toBe(false);

    const [failed] = (
      await box.lookout.store.deliveries.unfinished({
        team: 'T_LOOKOUT',
        channels: ['C_MARKETING'],
        failedWithinMs: 3_600_000,
        limit: 5,
      })
    ).filter((d) => d.status === 'failed');
    // Dana, in another workspace, has a digest in a channel of that id too (as a channel shared with Slack Connect
    // has one id in both) and is in it; she clicks Retry carrying that delivery's id (her Home made to hold Alice's
    // button). It is not her workspace's: nothing changes. With one workspace's bot token Slack then refuses to publish
    // her Home (user_not_found), which ends her click.
    const other = box.slack.team('T_OTHER');
    const danas = await box.lookout.store.digests.create({
      teamId: 'T_OTHER',
      channelId: 'C_MARKETING',
      ownerId: 'U_DANA',
      reports: ['sources'],
      filters: [],
      topN: 5,
      period: 'day',
      schedule: { kind: 'daily', time: '07:00' },
      cron: '0 7 * * *',
      timeZone: 'UTC',
    });
    box.slack.workspace.setMember('C_MARKETING', 'U_DANA', true);
    other.workspace.publishHome('U_DANA', box.slack.workspace.home('U_ALICE')!.view);
    await other.clickHome('U_DANA', 'home.delivery.retry', { blockId: `delivery-${failed!.id}` });
    await until(
      () => box.logs.find((l) => l.includes('"what":"home.delivery.retry"') && l.includes('listener failed')),
      "Dana's click to be handled",
    );
    expect(await box.lookout.store.deliveries.get(failed!.id)).toMatchObject({
      status: 'failed',
      attempts: failed!.attempts,
    });
    expect(box.logs.some((l) => l.includes('failed delivery retried from App Home'))).toBe(false);
    box.slack.workspace.setMember('C_MARKETING', 'U_DANA', false);
    await box.lookout.store.digests.remove(danas.teamId, danas.id);
    await republished('U_ALICE', () =>
      box.slack.clickHome('U_ALICE', 'home.delivery.retry', { blockId: `delivery-${failed!.id}` }),
    );
    await until(
      async () => ((await box.lookout.store.deliveries.get(failed!.id))?.status === 'posted' ? true : undefined),
      'the retried delivery to be posted',
    );
    expect(box.slack.messages('C_MARKETING').some((m) => m.text === 'hello')).toBe(true);

    // Bob is no admin (ADMIN_USERS is Carol) and his Home shows none of Alice's digests; a click he forges on one is refused, in words.
    await openHome(box, 'U_BOB');
    const bobs = box.slack.workspace.home('U_BOB')!.view as { blocks: unknown[] };
    bobs.blocks.push({
      type: 'section',
      block_id: 'forged',
      text: { type: 'mrkdwn', text: 'x' },
      accessory: {
        type: 'button',
        action_id: 'home.digest.pause',
        text: { type: 'plain_text', text: 'Pause' },
        value: String(digest!.id),
      },
    });
    const refused = await republished('U_BOB', () =>
      box.slack.clickHome('U_BOB', 'home.digest.pause', { blockId: 'forged' }),
    );
    expect(text(refused)).toMatch(new RegExp(`:warning: Digest #${digest!.id} belongs to someone else`));
    expect((await box.lookout.store.digests.get(digest!.id))?.paused).toBe(false);
  });

  it('a threat alert that failed is listed only for those allowed to see security details', async () => {
    for (const user of ['U_BOB', 'U_CAROL'])
      await box.slack.slash('C_SECURITY', user, 'digest add daily 08:00 countries');
    await until(
      async () =>
        (await box.lookout.store.digests.listAll('T_LOOKOUT')).filter((d) => d.channelId === 'C_SECURITY').length >=
          2 || undefined,
      'the digests',
    );
    box.slack.failNext('chat.postMessage', 'not_in_channel', 1, { channel: 'C_SECURITY' });
    await box.lookout.store.deliveries.enqueue({
      team: 'T_LOOKOUT',
      subject: ALERT,
      channelId: 'C_SECURITY',
      message: { text: 'Threat · high severity: visitor v_x', blocks: [] },
      expiresInMs: 60_000,
    });
    box.lookout.deliveries.wake();
    await until(
      async () =>
        (
          await box.lookout.store.deliveries.unfinished({
            team: 'T_LOOKOUT',
            channels: ['C_SECURITY'],
            failedWithinMs: 3_600_000,
            limit: 5,
          })
        ).find((d) => d.kind === 'alert' && d.status === 'failed'),
      'the failed alert',
    );
    // Threat alerts: which channels watch is for everyone; the latest alerts, with who acknowledged them, for those allowed security details.
    await box.slack.slash('C_SECURITY', 'U_CAROL', 'alerts on min medium');
    await until(
      async () => (await box.lookout.store.subscriptions.get('T_LOOKOUT', 'C_SECURITY')) ?? undefined,
      'the subscription',
    );
    await box.lookout.store.alerts.claim({
      teamId: 'T_LOOKOUT',
      channelId: 'C_SECURITY',
      visitorId: 'v_home_attacker',
      severity: 'high',
      verdict: 'Threat',
      reasons: ['flagged as attacker'],
      visit: {},
      lastSeen: new Date(),
    });
    await box.lookout.store.alerts.acknowledge('T_LOOKOUT', 'C_SECURITY', 'v_home_attacker', 'U_CAROL', new Date());
    const carol = text(await openHome(box, 'U_CAROL'));
    expect(carol).toMatch(/alert in <#C_SECURITY>: failed/);
    expect(carol).toMatch(/<#C_SECURITY>: medium severity or more · checks bot, scraping, vpn, extensions/);
    expect(carol).toMatch(
      /\*Latest alerts\*\n<#C_SECURITY> Threat · high: visitor v_home_attacker · last seen .* · acknowledged by <@U_CAROL>/,
    );
    const bob = text(await openHome(box, 'U_BOB'));
    expect(bob).not.toMatch(/alert in/);
    expect(bob).toMatch(/<#C_SECURITY>: medium severity or more/);
    expect(bob).not.toMatch(/Latest alerts|v_home_attacker/);
  });

  it('stays within the Home tab limits with 100 digests: the first 10, and how to list the rest', async () => {
    for (let i = 0; i < 100; i++) {
      await box.lookout.store.digests.create({
        teamId: 'T_LOOKOUT',
        channelId: 'C_GENERAL',
        ownerId: 'U_CAROL',
        reports: ['sources'],
        filters: [],
        topN: 5,
        period: 'day',
        schedule: { kind: 'daily', time: '07:00' },
        cron: '0 7 * * *',
        timeZone: 'UTC',
      });
    }
    const home = await openHome(box, 'U_CAROL');
    expect(home.view.blocks.length).toBeLessThanOrEqual(100);
    expect(validateHomeView({ type: 'home', blocks: home.view.blocks })).toEqual({ ok: true });
    expect(text(home)).toMatch(/…and 91 more: `\/traffic digest list all`/);
  });

  it('ignores an event type it does not handle, and goes on answering', async () => {
    const [d] = await box.slack.event('reaction_added', 'U_ALICE', { reaction: 'eyes' });
    expect(d!.status).toBe(200);
    expect(box.logs.some((l) => l.includes('no listener for the event reaction_added'))).toBe(true);
    expect((await openHome(box, 'U_ALICE')).publishes).toBeGreaterThan(1);
  });
});

describe('a retried event', () => {
  let box: Box;
  beforeAll(async () => {
    // Every answer counts as late (0 ms), so Slack retries each event 3 times; the second retry comes a second later, signed afresh.
    box = await sandbox({ slack: { ackTimeoutMs: 0, eventRetryDelaysMs: [0, 1_100, 0] } });
  });
  afterAll(() => box?.stop());

  it('is handled once: Slack sends it 4 times with X-Slack-Retry-Num, the Home is published once', async () => {
    const attempts = await box.slack.event('app_home_opened', 'U_ALICE', { tab: 'home' });
    expect(attempts.map((a) => a.retryNum ?? 0)).toEqual([0, 1, 2, 3]);
    expect(attempts.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    await until(() => box.slack.workspace.home('U_ALICE'), 'the Home');
    // Each retry was acknowledged and dropped: by the request guard (signed the same as the original) or by its event_id.
    const dropped = () =>
      box.logs.filter((l) => l.includes('a retry, ignored') || l.includes('acknowledged, not handled again'));
    await until(() => dropped().length >= 3, 'the three retries to be dropped');
    expect(dropped()).toHaveLength(3);
    expect((box.slack.workspace.home('U_ALICE') as unknown as Home).publishes).toBe(1);
    expect(box.logs.some((l) => l.includes('a retry, ignored'))).toBe(true); // one signed afresh reached Bolt: dropped by its event_id
  });
});

describe('App Home buttons, and a Home kept current', () => {
  let box: Box;
  const published = (user: string) => (box.slack.workspace.home(user) as unknown as Home | undefined)?.publishes ?? 0;
  /** Runs `act`, then waits for `user`'s Home to be published again: by the button's answer, or by a change alone. */
  const republished = async (user: string, act: () => Promise<unknown>) => {
    const before = published(user);
    await act();
    return until(
      () => (published(user) > before ? (box.slack.workspace.home(user) as unknown as Home) : undefined),
      `${user}'s Home again`,
    );
  };
  beforeAll(async () => {
    box = await sandbox({
      settings: {
        SECURITY_CHANNELS: ['C_SECURITY'],
        SECURITY_USERS: ['U_CAROL'],
        ADMIN_USERS: ['U_CAROL'],
        HOME_REFRESH_DELAY: 100,
      },
    });
  });
  afterAll(() => box?.stop());

  it('New digest opens the digest form; the digest it makes shows on the open Home without opening it again', async () => {
    await openHome(box, 'U_ALICE');
    await box.slack.clickHome('U_ALICE', 'home.digest.new', { blockId: 'digests' });
    const form = await box.slack.waitFor(() => box.slack.openViews('U_ALICE').at(-1));
    expect(form.callback_id).toBe('digest.modal');
    const home = await republished('U_ALICE', () =>
      box.slack.submit(form, {
        channel: 'C_MARKETING',
        reports: ['sources'],
        frequency: 'daily',
        time: '08:30',
        timezone: 'Europe/Berlin',
        top: '5',
      }),
    );
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    expect(digest).toMatchObject({ ownerId: 'U_ALICE', channelId: 'C_MARKETING', reports: ['sources'] });
    expect(text(home)).toMatch(new RegExp(`\\*#${digest!.id}\\* sources in <#C_MARKETING> · every day at 08:30`, 'i'));
    // Published through the outbox, as a delivery of its own kind. Slack shows the Home before its answer
    // reaches the outbox, so the row turns `posted` a moment after.
    const homes = await until(async () => {
      const counts = (await box.lookout.store.deliveries.counts()).filter((c) => c.kind === 'home');
      return counts.every((c) => c.status !== 'sending') ? counts : undefined;
    }, 'the Home delivery to settle');
    expect(homes).toEqual([{ kind: 'home', status: 'posted', n: 1 }]);
  });

  it('Preview shows the digest to the person in its channel, only to them, and says so on the Home', async () => {
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    const home = await republished('U_ALICE', () =>
      box.slack.clickHome('U_ALICE', 'home.digest.preview', { blockId: `digest-${digest!.id}` }),
    );
    expect(text(home)).toMatch(
      new RegExp(`:white_check_mark: Preview of digest #${digest!.id} sent to you in its channel`),
    );
    const preview = await box.slack.waitForMessage(
      'C_MARKETING',
      (m) => m.ephemeralTo === 'U_ALICE' && /preview: only you see this/.test(mrkdwnOf(m).join(' ')),
    );
    expect(mrkdwnOf(preview).join(' ')).toMatch(/Sources/i);
    expect((await box.lookout.store.deliveries.counts()).filter((c) => c.kind === 'digest')).toEqual([]);
  });

  it("Preview shows the watch's preview to the person in its channel, only to them, and says so on the Home", async () => {
    await box.slack.slash('C_MARKETING', 'U_ALICE', 'watch visits drops 50% vs usual');
    const watch = await until(
      async () => (await box.lookout.store.watches.list('T_LOOKOUT')).find((w) => w.ownerId === 'U_ALICE'),
      'the watch',
    );
    await openHome(box, 'U_ALICE');
    await until(
      () =>
        JSON.stringify(box.slack.workspace.home('U_ALICE')!.view).includes(`"watch-${watch.id}"`) ? true : undefined,
      'the watch on the open Home',
    );
    // The Home is published again after the click, with the notice at its top (a refresh from adding the watch may come first).
    await box.slack.clickHome('U_ALICE', 'home.watch.preview', { blockId: `watch-${watch.id}` });
    const notice = new RegExp(`:white_check_mark: Preview of watch #${watch.id} sent to you in its channel`);
    await until(() => {
      const home = box.slack.workspace.home('U_ALICE') as unknown as Home | undefined;
      return home && notice.test(text(home)) ? home : undefined;
    }, 'the Home with the preview notice');
    const preview = await box.slack.waitForMessage(
      watch.channelId,
      (m) =>
        m.ephemeralTo === 'U_ALICE' &&
        mrkdwnOf(m).some((t) => t.startsWith(`*Watch #${watch.id}, over the past weeks:*`)),
    );
    expect(mrkdwnOf(preview).join(' ')).toMatch(
      /Would (never have alerted|have alerted (once|[\d,]+ times)) in the last 56 days/,
    );
    expect(preview.blocks?.some((b) => (b as { type: string }).type === 'data_visualization')).toBe(true);
  });

  it('opening the Home drops a refresh still queued for that person: rendered before, it would put an older Home back', async () => {
    const stale = await box.lookout.store.deliveries.enqueueLatest({
      team: 'T_LOOKOUT',
      subject: HOME,
      payload: { user: 'U_ALICE' },
      channelId: 'U_ALICE',
      message: { text: 'Lookout Home', blocks: [] },
      expiresInMs: 60_000,
    });
    // Held back a minute, so the worker cannot send it before the person opens the tab.
    await box.lookout.store.db.query("UPDATE deliveries SET next_at = now() + interval '1 minute' WHERE id = $1", [
      stale,
    ]);
    await openHome(box, 'U_ALICE');
    // The publish is seen before the handler records it and drops the queued one.
    await until(
      async () => ((await box.lookout.store.deliveries.get(stale)) === undefined ? true : undefined),
      'the queued refresh to be dropped',
    );
  });

  it('Mute 24h and Unmute a watch change it as /traffic watch mute and unmute do', async () => {
    await box.slack.slash('C_MARKETING', 'U_ALICE', 'watch visits above 1000 every hour');
    const watch = await until(
      async () => (await box.lookout.store.watches.list('T_LOOKOUT')).find((w) => w.ownerId === 'U_ALICE'),
      'the watch',
    );
    await until(
      () =>
        JSON.stringify(box.slack.workspace.home('U_ALICE')!.view).includes(`"watch-${watch.id}"`) ? true : undefined,
      'the watch on the open Home',
    );
    const home = await republished('U_ALICE', () =>
      box.slack.clickHome('U_ALICE', 'home.watch.mute', { blockId: `watch-${watch.id}` }),
    );
    const muted = await box.lookout.store.watches.get(watch.id);
    expect(muted!.mutedUntil!.getTime() - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect(text(home)).toMatch(new RegExp(`\\*#${watch.id}\\* [^\\n]* · :no_bell: muted`));
    const since = box.slack.webApi.calls.length;
    await box.slack.clickHome('U_ALICE', 'home.watch.unmute', { blockId: `watch-${watch.id}` });
    // The button's answer is the Home with its notice; a refresh the mute queued may be published just before or after it.
    await until(
      () =>
        box.slack.webApi.calls
          .slice(since)
          .some(
            (c) =>
              c.method === 'views.publish' &&
              c.ok &&
              /:white_check_mark: Watch #\d+ is unmuted/.test(JSON.stringify(c.args)),
          ) || undefined,
      'the Home saying the watch is unmuted',
    );
    expect((await box.lookout.store.watches.get(watch.id))!.mutedUntil).toBeUndefined();
  });

  it('an admin turns threat alerts on and off from the Home with the defaults of /traffic alerts on; others get no controls, and a forged one is refused', async () => {
    await openHome(box, 'U_CAROL');
    await openHome(box, 'U_BOB');
    expect(JSON.stringify(box.slack.workspace.home('U_BOB')!.view)).not.toContain('home.alerts.on');
    // Outside SECURITY_CHANNELS: refused in words, nothing stored.
    let carol = await republished('U_CAROL', () =>
      box.slack.clickHome('U_CAROL', 'home.alerts.on', { blockId: 'alerts-on', value: 'C_MARKETING' }),
    );
    expect(text(carol)).toMatch(/:warning: Threat alerts can only go to the security channels/);
    expect(await box.lookout.store.subscriptions.get('T_LOOKOUT', 'C_MARKETING')).toBeUndefined();
    // Bob's Home shows the channels watching too: it is published again when Carol turns alerts on.
    const bob = await republished('U_BOB', () =>
      box.slack.clickHome('U_CAROL', 'home.alerts.on', { blockId: 'alerts-on', value: 'C_SECURITY' }),
    );
    expect(await box.lookout.store.subscriptions.get('T_LOOKOUT', 'C_SECURITY')).toMatchObject({
      minSeverity: 'medium',
      checks: ['bot', 'scraping', 'vpn', 'extensions'],
      createdBy: 'U_CAROL',
    });
    expect(text(bob)).toMatch(/<#C_SECURITY>: medium severity or more · checks bot, scraping, vpn, extensions/);
    carol = box.slack.workspace.home('U_CAROL') as unknown as Home;
    expect(text(carol)).toMatch(/:white_check_mark: Threat alerts are on in that channel/);
    // A Turn off button Bob forges onto his Home: refused, the subscription stays.
    const bobs = box.slack.workspace.home('U_BOB')!.view as { blocks: unknown[] };
    bobs.blocks.push({
      type: 'section',
      block_id: 'forged',
      text: { type: 'mrkdwn', text: 'x' },
      accessory: {
        type: 'button',
        action_id: 'home.alerts.off',
        text: { type: 'plain_text', text: 'Off' },
        value: 'C_SECURITY',
      },
    });
    const refused = await republished('U_BOB', () =>
      box.slack.clickHome('U_BOB', 'home.alerts.off', { blockId: 'forged' }),
    );
    expect(text(refused)).toMatch(/:warning: Only Lookout admins can change threat alerts/);
    expect(await box.lookout.store.subscriptions.get('T_LOOKOUT', 'C_SECURITY')).toBeDefined();
    carol = await republished('U_CAROL', () =>
      box.slack.clickHome('U_CAROL', 'home.alerts.off', { blockId: 'alerts-C_SECURITY' }),
    );
    expect(await box.lookout.store.subscriptions.get('T_LOOKOUT', 'C_SECURITY')).toBeUndefined();
    expect(text(carol)).toMatch(/No channel is watching for threats/);
    await republished('U_CAROL', () =>
      box.slack.clickHome('U_CAROL', 'home.alerts.on', { blockId: 'alerts-on', value: 'C_SECURITY' }),
    );
    expect(await box.lookout.store.subscriptions.get('T_LOOKOUT', 'C_SECURITY')).toBeDefined();
  });

  it('an admin allowed security details mutes and unmutes a flagged visitor from the latest alerts; the settings in force are shown to admins only', async () => {
    await settled(box);
    await box.lookout.store.alerts.claim({
      teamId: 'T_LOOKOUT',
      channelId: 'C_SECURITY',
      visitorId: 'v_home:1',
      severity: 'high',
      verdict: 'Threat',
      reasons: ['flagged as attacker'],
      visit: {},
      lastSeen: new Date(),
    });
    const carol = await openHome(box, 'U_CAROL');
    expect(text(carol)).toMatch(/<#C_SECURITY> Threat · high: visitor v_home:1 · [^\n]* · not acknowledged/);
    await box.slack.clickHome('U_CAROL', 'home.alert.mute', { blockId: 'alert-0' });
    // A publish already on its way may come first: wait for the one that shows the mute.
    const after = await until(() => {
      const home = box.slack.workspace.home('U_CAROL') as unknown as Home;
      return /visitor v_home:1 · [^\n]* · muted until/.test(text(home)) ? home : undefined;
    }, "Carol's Home with the mute");
    expect(await box.lookout.store.mutes.isMuted('T_LOOKOUT', 'C_SECURITY', 'v_home:1', new Date())).toMatchObject({
      mutedBy: 'U_CAROL',
    });
    await republished('U_CAROL', () => box.slack.clickHome('U_CAROL', 'home.alert.unmute', { blockId: 'alert-0' }));
    expect(await box.lookout.store.mutes.isMuted('T_LOOKOUT', 'C_SECURITY', 'v_home:1', new Date())).toBeUndefined();

    expect(text(after)).toMatch(/\*Admins\* \(`ADMIN_USERS`\): <@U_CAROL>/);
    expect(text(after)).toMatch(
      /\*Security details\* \(`SECURITY_USERS`\): <@U_CAROL> · in \(`SECURITY_CHANNELS`\): <#C_SECURITY>/,
    );
    expect(text(after)).toMatch(/at most 10 per channel \(`DIGESTS_PER_CHANNEL`\) and 20 per person/);
    expect(text(after)).toMatch(/at most 10 per channel \(`WATCHES_PER_CHANNEL`\) and 20 per person/);
    const bob = text(await openHome(box, 'U_BOB'));
    expect(bob).not.toMatch(/ADMIN_USERS|Settings|v_home:1|Latest alerts/);
  });

  it('is published again only for those who opened it, only when what it shows changed, once for a burst of changes, and again after a 429', async () => {
    await settled(box);
    const alice = published('U_ALICE');
    const bob = published('U_BOB');
    // Dave never opened his Home: nothing is published for him.
    box.slack.workspace.addUser({ id: 'U_DAVE', name: 'dave' });
    await box.slack.slash('C_GENERAL', 'U_DAVE', 'digest add daily 07:00 pages');
    // Five changes to Alice's digests within the debounce: one publish.
    const [digest] = (await box.lookout.store.digests.listAll('T_LOOKOUT')).filter((d) => d.ownerId === 'U_ALICE');
    for (let i = 0; i < 5; i++)
      await box.slack.slash('C_MARKETING', 'U_ALICE', `digest ${i % 2 === 0 ? 'pause' : 'resume'} ${digest!.id}`);
    await until(
      async () => ((await box.lookout.store.digests.get(digest!.id))?.paused ? true : undefined),
      'the last pause',
    );
    await settled(box);
    expect(published('U_ALICE') - alice).toBeGreaterThanOrEqual(1);
    expect(published('U_ALICE') - alice).toBeLessThanOrEqual(2);
    expect(text(box.slack.workspace.home('U_ALICE') as unknown as Home)).toMatch(
      new RegExp(`\\*#${digest!.id}\\*[^\\n]*\\n:double_vertical_bar: paused`),
    );
    expect(box.slack.workspace.home('U_DAVE')).toBeUndefined();
    // A visitor muted changes what Carol sees (security details), not what Bob sees.
    const carol = published('U_CAROL');
    await box.lookout.store.alerts.claim({
      teamId: 'T_LOOKOUT',
      channelId: 'C_SECURITY',
      visitorId: 'v_acked',
      severity: 'high',
      verdict: 'Threat',
      reasons: ['flagged'],
      visit: {},
      lastSeen: new Date(),
    });
    await box.slack.slash('C_SECURITY', 'U_CAROL', 'alerts mute v_acked for 24h');
    await settled(box);
    expect(published('U_CAROL')).toBeGreaterThan(carol);
    expect(published('U_BOB')).toBe(bob);

    // Slack answers views.publish with 429: the outbox tries again after Retry-After, and the Home gets there.
    box.slack.failNext('views.publish', { status: 429, error: 'ratelimited', retryAfter: 1 });
    const home = await republished('U_ALICE', () =>
      box.slack.slash('C_MARKETING', 'U_ALICE', `digest resume ${digest!.id}`),
    );
    expect(text(home)).not.toMatch(new RegExp(`\\*#${digest!.id}\\*[^\\n]*\\n:double_vertical_bar: paused`));
    const metrics = await (await fetch(`${box.lookout.ops.url}/metrics`)).text();
    expect(metrics).toMatch(/lookout_deliveries_total\{kind="home",outcome="retried"\} 1/);
    expect(metrics).toMatch(/lookout_home_refreshes_total\{outcome="queued"\} \d+/);
    expect(metrics).toMatch(/lookout_home_refreshes_total\{outcome="unchanged"\} \d+/);
  });
});

describe('App Home when Slack hangs', () => {
  let box: Box;
  beforeAll(async () => {
    box = await sandbox({ settings: { SLACK_TIMEOUT: 300 } });
  });
  afterAll(() => box?.stop());

  it('gives up on a views.publish that never answers, says so in the log, and publishes the next time', async () => {
    box.slack.failNext('views.publish', 'hang', 2); // the call and its one retry
    await box.slack.event('app_home_opened', 'U_ALICE', { tab: 'home' });
    // The hanging calls never answer: only their timeout (300 ms, and once more) lets the failure reach the log.
    await until(() => box.logs.find((l) => l.includes('App Home not published')), 'the failure in the log', 30_000);
    expect(box.slack.workspace.home('U_ALICE')).toBeUndefined();
    box.slack.clearFailures();
    expect((await openHome(box, 'U_ALICE')).publishes).toBe(1);
  });
});

describe('App Home within the views.publish rate', () => {
  let box: Box;
  beforeAll(async () => {
    // One publish every 2 s after a burst of one: three Homes changed at once take about 4 s.
    box = await sandbox({
      settings: {
        ADMIN_USERS: ['U_CAROL'],
        HOME_REFRESH_DELAY: 50,
        HOME_REFRESH_BURST: 1,
        HOME_REFRESHES_PER_MINUTE: 30,
      },
    });
  });
  afterAll(() => box?.stop());

  it('spreads the publishes of a change everyone sees', async () => {
    for (const user of ['U_ALICE', 'U_BOB', 'U_CAROL']) await openHome(box, user);
    const before = Object.fromEntries(
      ['U_ALICE', 'U_BOB', 'U_CAROL'].map((u) => [u, box.slack.workspace.home(u)!.publishes]),
    );
    await box.slack.slash('C_SECURITY', 'U_CAROL', 'alerts on');
    const times = await until(() => {
      const homes = ['U_ALICE', 'U_BOB', 'U_CAROL'].map((u) => box.slack.workspace.home(u)!);
      return homes.every((h, i) => h.publishes > before[['U_ALICE', 'U_BOB', 'U_CAROL'][i]!]!)
        ? homes.map((h) => h.publishedAt).sort((a, b) => a - b)
        : undefined;
    }, 'every Home again');
    expect(times[1]! - times[0]!).toBeGreaterThan(1_500);
    expect(times[2]! - times[1]!).toBeGreaterThan(1_500);
  });
});
