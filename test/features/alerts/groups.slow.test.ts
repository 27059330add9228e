import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookout, type Lookout, type LookoutOptions } from '../../../src/compose.js';
import { GROUP_WINDOW_MS } from '../../../src/features/alerts/plan.js';
import type { DemoApi } from '@lookout/sandbox/demo-api';
import type { OfflineSlack } from '@lookout/sandbox/slack';
import { colourOf, headerOf, hasAction, mrkdwnOf, tableOf, textsOf } from '../../support/sandbox.js';
import { startThreatWorld, type ThreatWorld } from '../../support/threat-scan.js';
import { until } from '../../support/until.js';

/**
 * Threat alerts grouped (the default): new flagged visitors of a channel within
 * GROUP_WINDOW_MS of a group's first share one message, edited in place as it grows, with
 * an alert each in its thread. A lone one is a plain alert; `each` is one message per visitor.
 */
const SECURITY = 'C_SECURITY';
/** A controlled clock: the app and the demo API's new visits both read it. */
let clock = Date.now();
const now = () => new Date(clock);

let world: ThreatWorld;
let demo: DemoApi;
let slack: OfflineSlack;
const options = (store: LookoutOptions['store'], replica: string) => world.options(store, replica);

let made = 0;
/** A new visitor of the demo API: an attacker (a threat, high) or an abuser (suspicious, medium). */
function visitor(kind: 'threat' | 'suspicious'): string {
  const id = `v_group_${kind}_${++made}`;
  demo.dataset.addVisitor({
    id,
    security: (kind === 'threat' ? { is_attacker: 'True' } : { is_abuser: 'True' }) as never,
  });
  return id;
}

/** A visit by `visitorId`, a second after the last one. */
function visit(visitorId: string): void {
  clock += 1000;
  demo.dataset.addVisit({
    visitor_id: visitorId,
    date: new Date(clock).toISOString(),
    url: 'https://www.example-shop.com/login',
  });
}

const topLevel = (channel = SECURITY) =>
  slack.messages(channel).filter((m) => !m.ephemeralTo && (!m.thread_ts || m.thread_ts === m.ts));
const replies = (ts: string, channel = SECURITY) => slack.thread(channel, ts).slice(1);
const message = (ts: string, channel = SECURITY) => slack.thread(channel, ts)[0]!;
/** The alert cards among a thread's replies, by the visitor they name. */
const cardsIn = (ts: string, channel = SECURITY) =>
  replies(ts, channel).filter((m) => /severity: visitor /.test(headerOf(m) ?? ''));
const named = (id: string) => (m: { blocks?: readonly unknown[]; attachments?: readonly unknown[] }) =>
  (headerOf(m) ?? '').endsWith(`visitor ${id}`);

beforeAll(async () => {
  world = await startThreatWorld(now);
  ({ demo, slack } = world);
});
afterAll(() => world?.close());

describe('threat alerts grouped by default', () => {
  let app: Lookout;
  /** The first group's message. */
  let groupTs: string;
  let first: string[];

  async function scan(expected: Record<string, unknown>): Promise<void> {
    expect(await app.features.threats.scan.scan()).toMatchObject({ status: 'scanned', ...expected });
    await app.deliveries.drained();
  }

  async function command(text: string, expected: RegExp): Promise<string> {
    const before = new Set(slack.messages(SECURITY, { user: 'U_ALICE' }).map((m) => m.ts));
    await slack.slash(SECURITY, 'U_ALICE', text);
    const reply = await slack.waitForMessage(
      SECURITY,
      (m) => m.ephemeralTo === 'U_ALICE' && !before.has(m.ts) && expected.test(textsOf(m).join(' ')),
    );
    return textsOf(reply).join(' ');
  }

  beforeAll(async () => {
    app = await startLookout(options({ memory: true }, 'solo'));
    slack.setAppUrl(app.requestUrl!);
    const on = await command('alerts on', /Threat alerts are on/);
    expect(on).toContain(
      "New flagged visitors within 5 minutes of each other's first share one message, with an alert each in its thread",
    );
    await app.store.scanState.saveProgress('visits', { watermark: now(), seenIds: [], counts: {}, at: now() });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('a lone flagged visitor gets a plain alert; a second within the window turns that message into the group, with both alerts in its thread', async () => {
    first = [visitor('threat'), visitor('suspicious')];
    visit(first[0]!);
    await scan({ alerts: 1 });
    const [alone] = topLevel();
    expect(topLevel()).toHaveLength(1);
    expect(headerOf(alone!)).toBe(`Threat · high severity: visitor ${first[0]}`);
    expect(hasAction(alone!, 'alert.ack')).toBe(true);
    groupTs = alone!.ts;

    clock += 60_000;
    visit(first[1]!);
    await scan({ alerts: 1 });
    // The same message, edited in place: no second top-level message.
    expect(topLevel().map((m) => m.ts)).toEqual([groupTs]);
    const group = message(groupTs);
    expect(group.updates).toBeGreaterThanOrEqual(1);
    expect(headerOf(group)).toMatch(/^:rotating_light: 2 flagged visitors since /);
    expect(mrkdwnOf(group)[0]).toMatch(
      /^\*2 flagged visitors\* in <#C_SECURITY> since .* \(UTC\): 1 threat, 1 suspicious visitor$/,
    );
    expect(mrkdwnOf(group)[1]).toMatch(
      /^1 high · 1 medium · one alert each in the thread, with its buttons · flagged visitors until .* join this message; later ones start a new one$/,
    );
    expect(colourOf(group)).toBe('error');
    expect(hasAction(group, 'alert.ack')).toBe(false);
    expect(
      tableOf(group)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(first);
    // One reply each, with its buttons; each alert now lives in its reply.
    const cards = cardsIn(groupTs);
    for (const id of first) expect(cards.filter(named(id))).toHaveLength(1);
    for (const card of cards)
      expect(
        hasAction(card, 'alert.ack') && hasAction(card, 'alert.mute.24h') && hasAction(card, 'alert.details'),
      ).toBe(true);
    expect(await app.store.alerts.get('T_LOOKOUT', SECURITY, first[0]!)).toMatchObject({
      messageTs: cards.find(named(first[0]!))!.ts,
      threadTs: groupTs,
    });
  });

  it('grows: later scans within the window add replies and edit the summary, never a new message', async () => {
    clock += 60_000;
    const more = [visitor('threat'), visitor('threat')];
    for (const id of more) visit(id);
    await scan({ alerts: 2 });
    clock += 60_000;
    const last = visitor('suspicious');
    visit(last);
    await scan({ alerts: 1 });
    first.push(...more, last);

    expect(topLevel().map((m) => m.ts)).toEqual([groupTs]);
    const group = message(groupTs);
    expect(mrkdwnOf(group)[0]).toMatch(
      /^\*5 flagged visitors\* in <#C_SECURITY> since .*: 3 threats, 2 suspicious visitors$/,
    );
    expect(mrkdwnOf(group)[1]).toMatch(/^3 high · 2 medium · /);
    expect(tableOf(group)).toHaveLength(6);
    const cards = cardsIn(groupTs);
    expect(cards).toHaveLength(5);
    for (const id of first) expect(cards.filter(named(id))).toHaveLength(1);
  });

  it('Acknowledge on a reply: that reply turns grey and says who; the group and the other replies stay as they were', async () => {
    const target = cardsIn(groupTs).find(named(first[1]!))!;
    const groupBefore = JSON.stringify(message(groupTs));
    const othersBefore = cardsIn(groupTs)
      .filter((m) => m.ts !== target.ts)
      .map((m) => JSON.stringify(m));
    expect(colourOf(target)).toBe('warning');
    await slack.click(target, 'alert.ack', undefined, { user: 'U_CAROL' });
    const acked = await slack.waitFor(() => {
      const m = message(target.ts);
      return mrkdwnOf(m).join(' ').includes('Acknowledged by <@U_CAROL>') ? m : undefined;
    });
    expect(colourOf(acked)).toBe('neutral');
    expect(hasAction(acked, 'alert.ack')).toBe(false);
    expect(acked.thread_ts).toBe(groupTs);
    expect((await app.store.alerts.get('T_LOOKOUT', SECURITY, first[1]!))?.acknowledgedBy).toBe('U_CAROL');
    expect(JSON.stringify(message(groupTs))).toBe(groupBefore);
    expect(
      cardsIn(groupTs)
        .filter((m) => m.ts !== target.ts)
        .map((m) => JSON.stringify(m)),
    ).toEqual(othersBefore);

    // Mute works on a reply too, and says until when.
    const other = cardsIn(groupTs).find(named(first[2]!))!;
    await slack.click(other, 'alert.mute.24h', undefined, { user: 'U_ALICE' });
    await slack.waitFor(() => mrkdwnOf(message(other.ts)).join(' ').includes('Muted until'));
  });

  it("a grouped visitor seen again: a reply in the group's thread naming it, and its own reply counts the visits", async () => {
    const id = first[0]!;
    visit(id);
    visit(id);
    await scan({ alerts: 0, sightings: 1 });
    expect(topLevel().map((m) => m.ts)).toEqual([groupTs]);
    expect(replies(groupTs).map((m) => m.text)).toContainEqual(
      expect.stringMatching(new RegExp(`^Seen again: visitor ${id}, 2 more visits, last on /login`)),
    );
    const card = message((await app.store.alerts.get('T_LOOKOUT', SECURITY, id))!.messageTs!);
    expect(card.thread_ts).toBe(groupTs);
    expect(mrkdwnOf(card).join(' ')).toMatch(/\*Seen\*\n3 visits/);
  });

  it('after the window a new flagged visitor starts a new message, which a second one makes a new group; the first group is left as it was', async () => {
    const before = JSON.stringify(message(groupTs));
    clock += GROUP_WINDOW_MS;
    const [a, b] = [visitor('suspicious'), visitor('threat')];
    visit(a);
    await scan({ alerts: 1 });
    const fresh = topLevel().filter((m) => m.ts !== groupTs);
    expect(fresh.map((m) => headerOf(m))).toEqual([`Suspicious · medium severity: visitor ${a}`]);
    expect(colourOf(fresh[0]!)).toBe('warning');

    clock += 30_000;
    visit(b);
    await scan({ alerts: 1 });
    expect(topLevel().map((m) => m.ts)).toEqual([groupTs, fresh[0]!.ts]);
    const second = message(fresh[0]!.ts);
    expect(mrkdwnOf(second)[0]).toMatch(
      /^\*2 flagged visitors\* in <#C_SECURITY> since .*: 1 threat, 1 suspicious visitor$/,
    );
    // Coloured by the worst severity, whoever came first.
    expect(colourOf(second)).toBe('error');
    expect(cardsIn(second.ts).map((m) => headerOf(m))).toEqual([
      `Suspicious · medium severity: visitor ${a}`,
      `Threat · high severity: visitor ${b}`,
    ]);
    expect(JSON.stringify(message(groupTs))).toBe(before);
  });

  it('several new visitors in one scan and no open group: the group message, then a reply each', async () => {
    clock += GROUP_WINDOW_MS;
    const ids = [visitor('suspicious'), visitor('threat'), visitor('threat')];
    for (const id of ids) visit(id);
    const count = topLevel().length;
    await scan({ alerts: 3 });
    const [group] = topLevel().slice(count);
    expect(topLevel()).toHaveLength(count + 1);
    expect(mrkdwnOf(group!)[0]).toMatch(
      /^\*3 flagged visitors\* in <#C_SECURITY> since .*: 2 threats, 1 suspicious visitor$/,
    );
    // The most severe first, in the table and in the thread.
    expect(
      tableOf(group!)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual([ids[1], ids[2], ids[0]]);
    expect(cardsIn(group!.ts).map((m) => headerOf(m))).toEqual(
      [ids[1], ids[2], ids[0]].map((id) => expect.stringMatching(new RegExp(`visitor ${id}$`))),
    );
  });

  it('`/traffic alerts on each`: one message per visitor, and the status says so; `grouped` groups again', async () => {
    const on = await command('alerts on each', /Threat alerts are on/);
    expect(on).toContain(
      'Each flagged visitor gets a message of its own (`/traffic alerts on grouped` to group them).',
    );
    expect(await command('alerts status', /Watching/)).toMatch(
      /Watching:\* medium severity or more · checks bot, scraping, vpn, extensions · one message per visitor/,
    );
    clock += GROUP_WINDOW_MS;
    const ids = [visitor('threat'), visitor('threat'), visitor('suspicious')];
    const count = topLevel().length;
    for (const id of ids) {
      visit(id);
      await scan({ alerts: 1 });
    }
    expect(
      topLevel()
        .slice(count)
        .map((m) => headerOf(m)),
    ).toEqual([
      `Threat · high severity: visitor ${ids[0]}`,
      `Threat · high severity: visitor ${ids[1]}`,
      `Suspicious · medium severity: visitor ${ids[2]}`,
    ]);
    for (const m of topLevel().slice(count)) expect(replies(m.ts)).toHaveLength(0);

    await command('alerts on grouped', /Threat alerts are on/);
    expect(await command('alerts status', /Watching/)).toMatch(/· grouped \(5 minutes\)/);
    const [c, d] = [visitor('threat'), visitor('threat')];
    visit(c);
    await scan({ alerts: 1 });
    visit(d);
    await scan({ alerts: 1 });
    expect(
      topLevel()
        .slice(count + 3)
        .map((m) => headerOf(m)),
    ).toEqual([expect.stringMatching(/^:rotating_light: 2 flagged visitors since /)]);
  });
});

describe("one flagged visitor a minute for 50 minutes (the issue's measurement)", () => {
  it('grouped: 10 top-level messages of 5 visitors each, every visitor once in a thread; each: 50 top-level alerts', async () => {
    const app = await startLookout(options({ memory: true }, 'rate'));
    try {
      slack.setAppUrl(app.requestUrl!);
      const channels = { grouped: 'C_MARKETING', each: 'C_GENERAL' } as const;
      const marks = { grouped: topLevel(channels.grouped).length, each: topLevel(channels.each).length };
      for (const [grouping, channelId] of Object.entries(channels)) {
        await app.store.subscriptions.upsert({
          channelId,
          teamId: 'T_LOOKOUT',
          minSeverity: 'medium',
          checks: ['bot'],
          createdBy: 'U_ALICE',
          grouping: grouping as 'grouped' | 'each',
        });
      }
      clock += GROUP_WINDOW_MS;
      await app.store.scanState.saveProgress('visits', { watermark: now(), seenIds: [], counts: {}, at: now() });
      const ids: string[] = [];
      for (let minute = 0; minute < 50; minute++) {
        const id = visitor(minute % 4 === 0 ? 'suspicious' : 'threat');
        ids.push(id);
        visit(id);
        expect(await app.features.threats.scan.scan()).toMatchObject({ alerts: 2 });
        await app.deliveries.drained();
        clock += 60_000 - 1000;
      }
      const grouped = topLevel(channels.grouped).slice(marks.grouped);
      const each = topLevel(channels.each).slice(marks.each);
      console.log(
        `[alerts-groups] 50 flagged visitors, one a minute: ${grouped.length} top-level messages grouped, ${each.length} with one message each`,
      );
      expect(grouped).toHaveLength(10);
      expect(grouped.map((m) => mrkdwnOf(m)[0])).toEqual(
        grouped.map(() => expect.stringMatching(/^\*5 flagged visitors\* in <#C_MARKETING> since /)),
      );
      const cards = grouped.flatMap((m) => cardsIn(m.ts, channels.grouped));
      for (const id of ids) expect(cards.filter(named(id))).toHaveLength(1);
      expect(each.map((m) => headerOf(m))).toEqual(
        ids.map((id) => expect.stringMatching(new RegExp(`visitor ${id}$`))),
      );
    } finally {
      await app.stop();
    }
  }, 120_000);
});

describe("a restart between a group's message and its replies", () => {
  it('posts each reply once, repeats nothing, and the restarted app goes on with the same group', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lookout-groups-'));
    const channel = 'C_GENERAL';
    const mark = topLevel(channel).length; // earlier tests' messages
    const fresh = () => topLevel(channel).slice(mark);
    try {
      let app = await startLookout(options({ dataDir: dir }, 'first'));
      slack.setAppUrl(app.requestUrl!);
      await app.store.subscriptions.upsert({
        channelId: channel,
        teamId: 'T_LOOKOUT',
        minSeverity: 'medium',
        checks: ['bot'],
        createdBy: 'U_ALICE',
      });
      clock += GROUP_WINDOW_MS; // the other tests' groups are over
      await app.store.scanState.saveProgress('visits', { watermark: now(), seenIds: [], counts: {}, at: now() });
      const [a, b, c] = [visitor('threat'), visitor('threat'), visitor('suspicious')];
      visit(a);
      expect(await app.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
      await app.deliveries.drained();
      const [top] = fresh();
      expect(headerOf(top!)).toBe(`Threat · high severity: visitor ${a}`);

      // Slack edits the message but refuses every new post (HTTP 500: nothing reached the channel), until the app is stopped.
      slack.failNext('chat.postMessage', { status: 500 }, Infinity, { channel });
      visit(b);
      visit(c);
      expect(await app.features.threats.scan.scan()).toMatchObject({ alerts: 2 });
      await until(
        () => mrkdwnOf(message(top!.ts, channel))[0]?.startsWith('*3 flagged visitors*'),
        'the group message to be edited',
      );
      await until(
        async () =>
          (
            await app.store.deliveries.unfinished({
              team: 'T_LOOKOUT',
              channels: [channel],
              failedWithinMs: 0,
              limit: 10,
            })
          ).some((d) => d.attempts > 0),
        'a reply to be tried',
      );
      expect(replies(top!.ts, channel)).toHaveLength(0);
      await app.stop();
      slack.clearFailures();

      app = await startLookout(options({ dataDir: dir }, 'second'));
      slack.setAppUrl(app.requestUrl!);
      await app.deliveries.drained();
      expect(await app.features.threats.scan.scan()).toMatchObject({ alerts: 0 });
      await app.deliveries.drained();
      expect(fresh().map((m) => m.ts)).toEqual([top!.ts]);
      const cards = cardsIn(top!.ts, channel);
      expect(cards).toHaveLength(3);
      for (const id of [a, b, c]) expect(cards.filter(named(id))).toHaveLength(1);
      expect(replies(top!.ts, channel).filter((m) => /Sent again after an interruption/.test(m.text))).toHaveLength(0);
      for (const id of [a, b, c])
        expect((await app.store.alerts.get('T_LOOKOUT', channel, id))?.threadTs).toBe(top!.ts);

      // Within the window still: a fourth joins the same group.
      const d = visitor('threat');
      visit(d);
      expect(await app.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
      await app.deliveries.drained();
      await app.stop();
      expect(fresh().map((m) => m.ts)).toEqual([top!.ts]);
      expect(mrkdwnOf(message(top!.ts, channel))[0]).toMatch(
        /^\*4 flagged visitors\* .*: 3 threats, 1 suspicious visitor$/,
      );
      expect(cardsIn(top!.ts, channel).filter(named(d))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
