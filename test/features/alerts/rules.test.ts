import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP_WINDOW_MS } from '../../../src/features/alerts/plan.js';
import { headerOf, hasAction, mrkdwnOf, sandbox, textsOf, type Sandbox } from '../../support/sandbox.js';

/** Threat alerts with ADMIN_USERS set: who may change what, re-announcements, a refused group message, Unmute. */
const SECURITY = 'C_SECURITY';
const ADMIN = 'U_CAROL';
const PERSON = 'U_ALICE';

let clock = Date.now();
const now = () => new Date(clock);
let box: Sandbox & { logs: string[] };

const top = () => box.slack.messages(SECURITY).filter((m) => !m.ephemeralTo && (!m.thread_ts || m.thread_ts === m.ts));
const alertsFor = (id: string) => top().filter((m) => (headerOf(m) ?? '').endsWith(`visitor ${id}`));
const repliesTo = (user: string, text: RegExp) =>
  box.slack.waitForMessage(SECURITY, (m) => m.ephemeralTo === user && text.test(textsOf(m).join(' ')));

/** A visitor of the demo API with these security answers (the rest human). */
function visitor(id: string, security: Record<string, unknown>): string {
  box.demo!.dataset.addVisitor({ id, security: security });
  return id;
}

/** Past the channel's group window: the next flagged visitor has a message of its own. */
function nextWindow(): void {
  clock += GROUP_WINDOW_MS;
}

function visit(id: string): void {
  clock += 1000;
  box.demo!.dataset.addVisit({ visitor_id: id, date: now().toISOString(), url: 'https://www.example-shop.com/login' });
}

async function command(user: string, text: string, expected: RegExp): Promise<string> {
  await box.slack.slash(SECURITY, user, text);
  return textsOf(await repliesTo(user, expected)).join(' ');
}

beforeAll(async () => {
  box = await sandbox({
    admins: [ADMIN],
    scheduler: false,
    now,
    alerts: { scanIntervalMs: 60_000, recheckMs: 0, burst: 2 },
    slack: { rateLimit: { burst: 30, perSecond: 10 } },
    deliveries: { slackTimeoutMs: 5_000, heartbeatMs: 10_000, paceMs: 100 },
  });
  await box.lookout.store.scanState.saveProgress((await box.lookout.features.threats.scan.stateKeys())[0]!, {
    watermark: now(),
    seenIds: [],
    counts: {},
    at: now(),
  });
});
afterAll(() => box?.stop());

describe('the admin gate on threat alerts', () => {
  it('a person who is not an admin cannot turn alerts on, off, or mute; nothing changes', async () => {
    for (const text of ['alerts on', 'alerts off', 'alerts mute v_x for 24h', 'alerts unmute v_x']) {
      expect(await command(PERSON, text, /Only Lookout admins/)).toMatch(
        /Only Lookout admins can change threat alerts/,
      );
    }
    expect(await box.lookout.store.subscriptions.list(undefined)).toEqual([]);
    expect(await box.lookout.store.mutes.listActive('T_LOOKOUT', SECURITY, now())).toEqual([]);
  });

  it('anyone may read the status; an admin turns alerts on', async () => {
    // `alert` (singular) is the dispatcher's other word for the sub-command.
    expect(await command(PERSON, 'alert status', /Watching/)).toMatch(/nothing in this channel/);
    expect(await command(ADMIN, 'alerts on min low checks vpn', /Threat alerts are on/)).toMatch(
      /low severity or more \(checks: vpn\)/,
    );
    expect(await box.lookout.store.subscriptions.get('T_LOOKOUT', SECURITY)).toMatchObject({
      minSeverity: 'low',
      checks: ['vpn'],
      createdBy: ADMIN,
    });
  });

  it("a person's Mute on an alert is refused and changes nothing; their Acknowledge works", async () => {
    const id = visitor('v_gate', { vpn: 'True' });
    visit(id);
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
    await box.lookout.deliveries.drained();
    const alert = await box.slack.waitFor(() => alertsFor(id)[0]);
    await box.slack.click(alert, 'alert.mute.24h', undefined, { user: PERSON });
    await repliesTo(PERSON, /Only Lookout admins can change threat alerts/);
    expect(await box.lookout.store.mutes.isMuted('T_LOOKOUT', SECURITY, id, now())).toBeUndefined();
    expect(mrkdwnOf(box.slack.messages(SECURITY).find((m) => m.ts === alert.ts)!).join(' ')).not.toMatch(/Muted/);

    await box.slack.click(alert, 'alert.ack', undefined, { user: PERSON });
    await box.slack.waitFor(() =>
      mrkdwnOf(box.slack.messages(SECURITY).find((m) => m.ts === alert.ts)!)
        .join(' ')
        .includes(`Acknowledged by <@${PERSON}>`),
    );
    expect((await box.lookout.store.alerts.get('T_LOOKOUT', SECURITY, id))?.acknowledgedBy).toBe(PERSON);
  });
});

describe('an alert whose visitor looks worse later', () => {
  it('is announced again at the higher severity, and the acknowledgement is cleared', async () => {
    const id = visitor('v_rises', { vpn: 'True', is_attacker: 'True', is_threat: 'True' });
    nextWindow();
    visit(id);
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
    await box.lookout.deliveries.drained();
    const first = await box.slack.waitFor(() => alertsFor(id)[0]);
    expect(headerOf(first)).toBe(`Suspicious · low severity: visitor ${id}`);
    await box.slack.click(first, 'alert.ack', undefined, { user: PERSON });
    await box.slack.waitFor(() =>
      mrkdwnOf(box.slack.messages(SECURITY).find((m) => m.ts === first.ts)!)
        .join(' ')
        .includes('Acknowledged'),
    );

    // The channel now watches the bot checks too: the same visitor is an attacker.
    await command(ADMIN, 'alerts on min low checks bot,vpn', /Threat alerts are on/);
    visit(id);
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ alerts: 1, sightings: 0 });
    await box.lookout.deliveries.drained();
    const again = await box.slack.waitFor(() => alertsFor(id).find((m) => m.ts !== first.ts));
    expect(headerOf(again)).toBe(`Severity rose: Threat · high severity: visitor ${id}`);
    expect(mrkdwnOf(again).join(' ')).toContain('flagged as attacker');
    expect(hasAction(again, 'alert.ack')).toBe(true);
    expect(await box.lookout.store.alerts.get('T_LOOKOUT', SECURITY, id)).toMatchObject({
      severity: 'high',
      messageTs: again.ts,
      acknowledgedBy: undefined,
    });

    // Seen again at the same severity: a thread reply under the new message, no third alert.
    visit(id);
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ alerts: 0, sightings: 1 });
    await box.lookout.deliveries.drained();
    expect(alertsFor(id)).toHaveLength(2);
    expect(box.slack.thread(SECURITY, again.ts).length).toBe(2);

    // Another visitor within the window: the first message becomes the group's, and the visitor already
    // announced again (at the higher severity) stays where it is; only the newcomer is in the thread.
    const other = visitor('v_rises_next', { is_attacker: 'True' });
    visit(other);
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
    await box.lookout.deliveries.drained();
    const group = box.slack.messages(SECURITY).find((m) => m.ts === first.ts)!;
    expect(mrkdwnOf(group)[0]).toMatch(/^\*2 flagged visitors\* in <#C_SECURITY> since .*: 2 threats$/);
    expect(
      box.slack
        .thread(SECURITY, first.ts)
        .slice(1)
        .map((m) => headerOf(m)),
    ).toEqual([`Threat · high severity: visitor ${other}`]);
    expect(await box.lookout.store.alerts.get('T_LOOKOUT', SECURITY, id)).toMatchObject({ messageTs: again.ts });
    expect(headerOf(box.slack.messages(SECURITY).find((m) => m.ts === again.ts)!)).toBe(
      `Threat · high severity: visitor ${id}`,
    );
  });
});

describe('Unmute', () => {
  it("an admin's Mute turns into Unmute; Unmute lifts it and the alert offers Mute again", async () => {
    const id = visitor('v_unmute', { is_attacker: 'True' });
    nextWindow();
    visit(id);
    await box.lookout.features.threats.scan.scan();
    await box.lookout.deliveries.drained();
    const alert = await box.slack.waitFor(() => alertsFor(id)[0]);
    await box.slack.click(alert, 'alert.mute.7d', undefined, { user: ADMIN });
    const muted = await box.slack.waitFor(() => {
      const m = box.slack.messages(SECURITY).find((x) => x.ts === alert.ts)!;
      return mrkdwnOf(m).join(' ').includes('Muted until') ? m : undefined;
    });
    expect(hasAction(muted, 'alert.unmute')).toBe(true);
    expect(hasAction(muted, 'alert.mute.24h')).toBe(false);
    expect(await box.lookout.store.mutes.isMuted('T_LOOKOUT', SECURITY, id, now())).toBeDefined();

    await box.slack.click(muted, 'alert.unmute', undefined, { user: ADMIN });
    const unmuted = await box.slack.waitFor(() => {
      const m = box.slack.messages(SECURITY).find((x) => x.ts === alert.ts)!;
      return hasAction(m, 'alert.mute.24h') ? m : undefined;
    });
    expect(mrkdwnOf(unmuted).join(' ')).not.toMatch(/Muted/);
    expect(hasAction(unmuted, 'alert.unmute')).toBe(false);
    expect(await box.lookout.store.mutes.isMuted('T_LOOKOUT', SECURITY, id, now())).toBeUndefined();
    visit(id);
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ sightings: 1 });
    await box.lookout.deliveries.drained();
  });

  it('muting an id no alert here has named says so, and mutes it anyway', async () => {
    const text = await command(ADMIN, 'alerts mute v_never_seen for 24h', /is muted here/);
    expect(text).toContain('No alert about v_never_seen has been raised here yet');
    expect(await box.lookout.store.mutes.isMuted('T_LOOKOUT', SECURITY, 'v_never_seen', now())).toBeDefined();
  });

  it("a person's Unmute is refused and the mute stays", async () => {
    const id = 'v_unmute';
    await command(ADMIN, `alerts mute ${id} for 24h`, /is muted here/);
    const alert = alertsFor(id)[0]!;
    await box.slack.click(alert, 'alert.mute.24h', undefined, { user: ADMIN });
    const muted = await box.slack.waitFor(() => {
      const m = box.slack.messages(SECURITY).find((x) => x.ts === alert.ts)!;
      return hasAction(m, 'alert.unmute') ? m : undefined;
    });
    await box.slack.click(muted, 'alert.unmute', undefined, { user: PERSON });
    await repliesTo(PERSON, /Only Lookout admins/);
    expect(await box.lookout.store.mutes.isMuted('T_LOOKOUT', SECURITY, id, now())).toBeDefined();
  });
});

describe('a group message that Slack refuses', () => {
  it('loses no alert: the alerts go out on their own, the owner is told, and the failure is logged with its delivery', async () => {
    const ids = ['v_burst_1', 'v_burst_2', 'v_burst_3'].map((id) => visitor(id, { is_attacker: 'True' }));
    nextWindow();
    for (const id of ids) visit(id);
    const before = top().length;
    box.slack.failNext('chat.postMessage', 'channel_not_found');
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ status: 'scanned', alerts: 3 });
    await box.lookout.deliveries.drained();
    const posted = top().slice(before);
    expect(posted.map((m) => headerOf(m)).sort()).toEqual(
      ids.map((id) => `Threat · high severity: visitor ${id}`).sort(),
    );
    for (const id of ids)
      expect(await box.lookout.store.alerts.get('T_LOOKOUT', SECURITY, id)).toMatchObject({
        messageTs: expect.any(String),
      });
    const failed = box.logs.find(
      (line) => line.includes('delivery failed for good') && line.includes('channel_not_found'),
    );
    expect(failed).toMatch(/"delivery":\d+/);
    const subscription = await box.lookout.store.subscriptions.get('T_LOOKOUT', SECURITY);
    const dm = box.slack.messages(`D_${subscription!.createdBy}`);
    expect(dm.map((m) => m.text).join(' ')).toMatch(
      /could not post threat alerts in <#C_SECURITY> \(Slack said channel_not_found\)/,
    );
    // The channel took the details since, so it no longer needs attention.
    expect(subscription?.attention).toBeUndefined();
  });
});

/** A fresh `/traffic alerts status` for `user`, as text. */
async function status(user: string): Promise<string> {
  const before = new Set(box.slack.messages(SECURITY, { user }).map((m) => m.ts));
  await box.slack.slash(SECURITY, user, 'alerts status');
  const reply = await box.slack.waitForMessage(
    SECURITY,
    (m) => m.ephemeralTo === user && !before.has(m.ts) && /Deliveries/.test(textsOf(m).join(' ')),
  );
  return textsOf(reply).join(' ');
}

describe('a channel Slack refuses for good', () => {
  it('needs attention in the status, which shows each failed delivery with its reason; the owner is told once; a later post clears it', async () => {
    const ids = ['v_refused_1', 'v_refused_2'].map((id) => visitor(id, { is_attacker: 'True' }));
    box.slack.failNext('chat.postMessage', 'not_in_channel', Infinity, { channel: SECURITY });
    const owner = (await box.lookout.store.subscriptions.get('T_LOOKOUT', SECURITY))!.createdBy;
    const notices = () => box.slack.messages(`D_${owner}`).filter((m) => m.text.includes('not_in_channel')).length;
    const before = notices();
    nextWindow();
    for (const id of ids) {
      visit(id);
      expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
      await box.lookout.deliveries.drained();
    }
    expect(notices() - before).toBe(1);
    const shown = await status(PERSON);
    expect(shown).toMatch(/Needs attention:\* Slack refuses this channel \(`not_in_channel`\)/);
    expect(shown.match(/alert failed \(not_in_channel\)/g)).toHaveLength(2);
    expect((await box.lookout.store.subscriptions.get('T_LOOKOUT', SECURITY))?.attention).toBe('not_in_channel');

    box.slack.clearFailures();
    visit(visitor('v_refused_3', { is_attacker: 'True' }));
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
    await box.lookout.deliveries.drained();
    expect((await box.lookout.store.subscriptions.get('T_LOOKOUT', SECURITY))?.attention).toBeUndefined();
    expect(await status(PERSON)).not.toMatch(/Needs attention/);
  });
});

describe('another workspace', () => {
  it("Acknowledge and Mute on a copy of this workspace's alert, sent from another workspace, say not found and change nothing; its status shows none of this workspace's alerts", async () => {
    await command(ADMIN, 'alerts on min low checks bot,vpn', /Threat alerts are on/);
    const id = visitor('v_other_workspace', { is_attacker: 'True' });
    nextWindow();
    visit(id);
    expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
    await box.lookout.deliveries.drained();
    const alert = await box.slack.waitFor(() => alertsFor(id)[0]);
    const stored = await box.lookout.store.alerts.get('T_LOOKOUT', SECURITY, id);
    expect(stored?.messageTs).toBe(alert.ts);

    // Other Co has a channel with the same id (as a Slack Connect channel has), and a copy of the alert in it.
    const other = box.slack.team('T_OTHER');
    other.workspace.addChannel({ name: 'security', id: SECURITY, members: ['U_DANA'] });
    const copy = other.workspace.post({
      channel: SECURITY,
      text: alert.text,
      blocks: alert.blocks,
      attachments: alert.attachments,
    });
    for (const action of ['alert.ack', 'alert.mute.24h']) {
      const before = new Set(other.messages(SECURITY).map((m) => m.ts));
      await other.click({ channel: SECURITY, ts: copy.ts }, action, undefined, { user: 'U_DANA' });
      const said = await other.waitForMessage(SECURITY, (m) => m.ephemeralTo === 'U_DANA' && !before.has(m.ts));
      expect(textsOf(said).join(' ')).toMatch(/This alert is not found/);
    }
    expect(await box.lookout.store.alerts.get('T_LOOKOUT', SECURITY, id)).toEqual(stored);
    expect(await box.lookout.store.alerts.get('T_OTHER', SECURITY, id)).toBeUndefined();
    expect(await box.lookout.store.mutes.isMuted('T_OTHER', SECURITY, id, now())).toBeUndefined();
    expect(await box.lookout.store.mutes.isMuted('T_LOOKOUT', SECURITY, id, now())).toBeUndefined();
    expect(other.workspace.message(SECURITY, copy.ts)?.attachments).toEqual(alert.attachments);

    // This workspace's #security is subscribed, mutes someone and has failed deliveries; Other Co's sees none of it.
    await command(ADMIN, 'alerts mute v_muted_here for 7d', /is muted here/);
    expect(await status(PERSON)).toMatch(/Watching:\* low severity or more/);
    const before = new Set(other.messages(SECURITY).map((m) => m.ts));
    await other.slash(SECURITY, 'U_DANA', 'alerts status');
    const shown = textsOf(
      await other.waitForMessage(
        SECURITY,
        (m) => m.ephemeralTo === 'U_DANA' && !before.has(m.ts) && /Deliveries/.test(textsOf(m).join(' ')),
      ),
    ).join(' ');
    expect(shown).toMatch(/Watching:\* nothing in this channel/);
    expect(shown).toMatch(/Deliveries:\* none waiting or failed/);
    expect(shown).toMatch(/Muted here:\* nobody/);
    expect(shown).not.toMatch(/Needs attention|severity or more|v_muted_here/);
  });
});
