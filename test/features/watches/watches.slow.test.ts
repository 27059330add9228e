import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookout, type Lookout, type LookoutOptions } from '../../../src/compose.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type Message, type OfflineSlack } from '@lookout/sandbox/slack';
import { captureLogs } from '../../support/log-capture.js';
import { TEST_DATABASE_URL } from '../../support/db.js';
import { colourOf, headerOf, mrkdwnOf, watchIdOf } from '../../support/sandbox.js';
import { lastPeriod } from '../../../src/features/watches/period.js';
import { until } from '../../support/until.js';
import { ephemeralAnswer } from '../../support/answers.js';

/**
 * Watches end to end: the living demo produces a spike, a drop and a scraper wave in
 * whole hours after the demo data ends (so those hours hold only what a scenario adds);
 * the app's clock is moved to just after each hour and the evaluator ticks, as its timer
 * would; the offline Slack shows what was posted.
 */
const HOUR = 3_600_000;
/** The demo API counts its days in UTC; an hour is judged a minute after it ends (the shortest settling margin). */
const API_DAYS = { timeZone: 'UTC', settleMs: 60_000 };
const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-${randomBytes(8).toString('hex')}`;

let clock = Date.now();
const now = () => new Date(clock);
/** The first whole hour after the demo data ends; each scenario takes hours from here on. */
const FIRST = Math.ceil(Date.now() / HOUR) * HOUR + HOUR;
let nextHour = FIRST;
/** `n` consecutive hours nobody else uses. */
function hours(n: number): Date[] {
  const out = Array.from({ length: n }, (_, i) => new Date(nextHour + i * HOUR));
  nextHour += (n + 1) * HOUR;
  return out;
}

let demo: DemoApi;
let slack: OfflineSlack;
const channels: Record<'sales' | 'random' | 'replicas' | 'buttons', string> = {
  sales: '',
  random: '',
  replicas: '',
  buttons: '',
};

function options(store: LookoutOptions['store'], replica: string): LookoutOptions {
  return {
    api: { baseUrl: demo.url, apiKey: 'k' },
    slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
    store,
    log: captureLogs('warn').logger,
    demo: true,
    now,
    port: 0,
    replica,
    scheduler: false,
    settings: {
      ANALYTICS_TIMEOUT_MS: 2_000,
      ALERT_BURST: 50,
      SLACK_TIMEOUT: 5_000,
      DELIVERY_PACE: 50,
      ADMIN_USERS: ['U_CAROL'],
      WATCH_SPREAD_HOURLY: 0,
      WATCH_SPREAD_DAILY: 0,
      WATCH_CLAIM_STALE: 1_000,
      ANALYTICS_API_TIMEZONE: API_DAYS.timeZone,
      ANALYTICS_SETTLE_MARGIN: API_DAYS.settleMs,
    },
  };
}

beforeAll(async () => {
  demo = await startDemoApi({ apiKey: 'k', now });
  slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: { burst: 50, perSecond: 20 } });
  for (const name of ['sales', 'random', 'replicas', 'buttons'] as const)
    channels[name] = slack.workspace.addChannel({ name }).id;
});
afterAll(async () => {
  await slack?.close();
  await demo?.close();
});

function command(app: Lookout, channel: string, text: string, user = 'U_ALICE'): Promise<Message> {
  slack.setAppUrl(app.requestUrl!);
  return ephemeralAnswer(slack, channel, user, text);
}

/**
 * Moves the clock to just after `hour` ends and evaluates what is due, as its timer would over
 * the next minutes (an hour with no visits after hours with some is asked again a settling
 * margin later before it is judged), then waits until everything decided is posted.
 */
async function evaluateAfter(app: Lookout, hour: Date): Promise<number> {
  clock = hour.getTime() + HOUR + 60_000;
  let evaluated = await app.features.watches.evaluator.tick();
  clock = hour.getTime() + HOUR + 3 * 60_000;
  evaluated += await app.features.watches.evaluator.tick();
  await until(async () => (await app.store.deliveries.openCount()) === 0, 'the outbox to drain');
  return evaluated;
}

const alertsIn = (channel: string) =>
  slack
    .messages(channel)
    .filter((m) => !m.thread_ts || m.thread_ts === m.ts)
    .filter((m) => /^(Watch|Back to normal): /.test(headerOf(m) ?? ''));
const alertsFor = (channel: string, id: number) =>
  alertsIn(channel).filter((m) => mrkdwnOf(m).join(' ').includes(`watch #${id}`));
const repliesTo = (channel: string, parent: Message) =>
  slack
    .thread(channel, parent.ts)
    .slice(1)
    .map((m) => m.text);

interface Kind {
  name: string;
  /** The watch, as typed. */
  rule: string;
  /** The hours it needs, and what the demo is asked for in them; the hours evaluated are the last three. */
  hours: number;
  produce(h: Date[], app: Lookout): Promise<void>;
  /** How the breach reads. */
  says: RegExp;
}

/** The threat scan judges the hour's visitors, as its timer would. */
async function scanAfter(app: Lookout, hour: Date): Promise<void> {
  clock = hour.getTime() + HOUR - 1_000;
  await app.features.threats.scan.scan();
}

const KINDS: Kind[] = [
  {
    name: 'a spike',
    rule: 'pages page~/checkout spike every hour',
    hours: 3,
    says: /visits .*: the usual \w+day \d\d:00 is [\d,]+ ± [\d,]+; this is [\d.]+ spreads above/,
    async produce(h) {
      demo.produce({ kind: 'spike', hours: [h[0]!, h[1]!], visits: 150, url: 'https://www.example-shop.com/checkout' });
    },
  },
  {
    name: 'a drop',
    rule: 'visits drops 40% vs previous every hour',
    hours: 4,
    says: /visits .*: −80% against 100 the hour before/,
    async produce(h) {
      demo.produce({ kind: 'drop', hours: h, visits: [100, 20, 12, 12] });
    },
  },
  {
    name: 'a scraper wave',
    rule: 'bots above 20%',
    hours: 3,
    says: /60% of visits by flagged visitors .* \([^;)]+; 30 of 50 judged visits\), above 20%/,
    async produce(h, app) {
      demo.produce({ kind: 'scraper-wave', hour: h[0]!, scrapers: 10, visits: 30, clean: 20 });
      await scanAfter(app, h[0]!);
      demo.produce({ kind: 'scraper-wave', hour: h[1]!, scrapers: 10, visits: 30, clean: 20 });
      await scanAfter(app, h[1]!);
      demo.produce({ kind: 'drop', hours: [h[2]!], visits: [20] });
      await scanAfter(app, h[2]!);
    },
  },
];

describe('watches in one app', () => {
  let app: Lookout;
  beforeAll(async () => {
    app = await startLookout(options({ memory: true }, 'solo'));
    slack.setAppUrl(app.requestUrl!);
    // The threat scan is on (in #security), from just before the first scenario hour.
    clock = FIRST - 60_000;
    expect(mrkdwnOf(await command(app, 'C_SECURITY', 'alerts on min medium', 'U_CAROL')).join(' ')).toMatch(
      /alerts are on/i,
    );
    await app.store.scanState.saveProgress((await app.features.threats.scan.stateKeys())[0]!, {
      watermark: now(),
      seenIds: [],
      counts: {},
      at: now(),
    });
  });
  afterAll(() => app?.stop());

  describe.each(KINDS)('$name', (kind) => {
    it('breach → one alert → an update in its thread → back to normal, the alert edited in place', async () => {
      const h = hours(kind.hours);
      clock = h[0]!.getTime() - HOUR;
      const id = watchIdOf(await command(app, 'C_MARKETING', `watch ${kind.rule}`));
      expect(id).toBeGreaterThan(0);
      await kind.produce(h, app);
      const evaluated = h.slice(-3);

      await evaluateAfter(app, evaluated[0]!);
      const [alert] = alertsFor('C_MARKETING', id);
      expect(alert, 'one alert').toBeDefined();
      expect(headerOf(alert!)).toMatch(/^Watch: /);
      // Amber from the attachment's bar; the statement inside it.
      expect(colourOf(alert!)).toBe('warning');
      expect(mrkdwnOf({ attachments: alert!.attachments }).join('\n')).toMatch(kind.says);

      const charted = (m: Message) =>
        (m.blocks ?? []).some((b) => (b as { type: string }).type === 'data_visualization');
      expect(charted(alert!)).toBe(kind.rule.startsWith('bots') ? false : true);
      await evaluateAfter(app, evaluated[1]!);
      expect(repliesTo('C_MARKETING', alert!), JSON.stringify(await app.store.watches.get(id))).toEqual([
        expect.stringMatching(/^Still on: /),
      ]);
      expect(charted(slack.messages('C_MARKETING').find((m) => m.ts === alert!.ts)!)).toBe(charted(alert!)); // edited in place, chart kept
      await evaluateAfter(app, evaluated[2]!);
      expect(repliesTo('C_MARKETING', alert!)).toEqual([
        expect.stringMatching(/^Still on: /),
        expect.stringMatching(/^:white_check_mark: Back to normal: /),
      ]);
      const edited = slack.messages('C_MARKETING').find((m) => m.ts === alert!.ts)!;
      expect(headerOf(edited)).toMatch(/^Back to normal: /);
      expect(alertsFor('C_MARKETING', id)).toHaveLength(1);
      await command(app, 'C_MARKETING', `watch remove ${id}`);
    }, 30_000);

    it('a muted watch posts nothing, and its list says it breached; unmuted mid-breach, it posts the alert then, and its recovery in the thread', async () => {
      const h = hours(kind.hours);
      clock = h[0]!.getTime() - HOUR;
      const id = watchIdOf(await command(app, 'C_GENERAL', `watch ${kind.rule}`));
      await command(app, 'C_GENERAL', `watch mute ${id} for 7d`);
      await kind.produce(h, app);
      const evaluated = h.slice(-3);
      await evaluateAfter(app, evaluated[0]!);
      expect(alertsFor('C_GENERAL', id)).toEqual([]);
      const list = mrkdwnOf(await command(app, 'C_GENERAL', 'watch list')).join(' ');
      expect(list, list).toMatch(new RegExp(`#${id}\\*[^]*breaching: [^]*:mute: muted`));

      await command(app, 'C_GENERAL', `watch unmute ${id}`);
      await evaluateAfter(app, evaluated[1]!);
      const [alert, ...more] = alertsFor('C_GENERAL', id);
      expect(more).toEqual([]);
      expect(headerOf(alert!)).toMatch(/^Watch: /);
      expect(repliesTo('C_GENERAL', alert!)).toEqual([]);
      await evaluateAfter(app, evaluated[2]!);
      expect(repliesTo('C_GENERAL', alert!)).toEqual([expect.stringMatching(/Back to normal/)]);
      await command(app, 'C_GENERAL', `watch remove ${id}`);
    }, 30_000);

    it('an API outage while evaluating is "unknown": no false alert, and the error is shown', async () => {
      const h = hours(kind.hours);
      clock = h[0]!.getTime() - HOUR;
      const id = watchIdOf(await command(app, channels.sales, `watch ${kind.rule}`));
      await kind.produce(h, app);
      const evaluated = h.slice(-3);
      demo.setFaults({ status500Until: 1_000 });
      try {
        await evaluateAfter(app, evaluated[0]!);
      } finally {
        demo.setFaults({});
      }
      expect(alertsFor(channels.sales, id)).toEqual([]);
      const watch = await app.store.watches.get(id);
      expect(watch).toMatchObject({ lastOutcome: 'unknown', state: 'ok' });
      const list = mrkdwnOf(await command(app, channels.sales, 'watch list')).join(' ');
      expect(list).toMatch(/:grey_question: unknown: The analytics API is unavailable right now/);
      const metrics = await (await fetch(`${app.ops.url}/metrics`)).text();
      expect(
        Number(/lookout_watch_evaluations_total\{outcome="unknown"\} (\d+)/.exec(metrics)?.[1]),
      ).toBeGreaterThanOrEqual(1);
      // The API is back: the next hour is judged again (a breach held through it is reported then).
      await evaluateAfter(app, evaluated[1]!);
      expect((await app.store.watches.get(id))?.lastOutcome).not.toBe('unknown');
      await command(app, channels.sales, `watch remove ${id}`);
    }, 30_000);
  });
});

describe('the buttons and the rules', () => {
  let app: Lookout;
  beforeAll(async () => {
    app = await startLookout(options({ memory: true }, 'buttons'));
    slack.setAppUrl(app.requestUrl!);
  });
  afterAll(() => app?.stop());

  it('Acknowledge and Mute 24h edit the alert in place for everyone; a muted watch then posts nothing; Details shows the report behind it', async () => {
    const h = hours(3);
    clock = h[0]!.getTime() - HOUR;
    const id = watchIdOf(await command(app, channels.buttons, 'watch pages page~/checkout spike every hour'));
    demo.produce({
      kind: 'spike',
      hours: [h[0]!, h[1]!, h[2]!],
      visits: 150,
      url: 'https://www.example-shop.com/checkout',
    });
    await evaluateAfter(app, h[0]!);
    const [alert] = alertsFor(channels.buttons, id);

    await slack.click(alert!, 'watch.ack', undefined, { user: 'U_BOB' });
    const acked = await until(
      () =>
        slack
          .messages(channels.buttons)
          .find((m) => m.ts === alert!.ts && mrkdwnOf(m).join(' ').includes('Acknowledged by <@U_BOB>')),
      'the acknowledgement',
    );
    expect((acked.blocks ?? []).some((b) => JSON.stringify(b).includes('watch.ack'))).toBe(false);

    await slack.click(acked, 'watch.mute.24h', undefined, { user: 'U_BOB' });
    const muted = await until(
      () =>
        slack
          .messages(channels.buttons)
          .find((m) => m.ts === alert!.ts && mrkdwnOf(m).join(' ').includes(':mute: Muted until')),
      'the mute',
    );
    await evaluateAfter(app, h[1]!);
    expect(repliesTo(channels.buttons, alert!)).toEqual([]); // still breaching, but muted: no reply

    const before = slack.messages(channels.buttons, { user: 'U_BOB' }).length;
    await slack.click(muted, 'watch.details', undefined, { user: 'U_BOB' });
    const details = await until(
      () =>
        slack
          .messages(channels.buttons, { user: 'U_BOB' })
          .slice(before)
          .find((m) => m.ephemeralTo === 'U_BOB'),
      'the report',
    );
    expect(headerOf(details)).toMatch(/^Pages · Today/);
    expect(mrkdwnOf(details).join(' ')).toMatch(/page contains `\/checkout`/);
    await command(app, channels.buttons, `watch remove ${id}`);
  }, 30_000);

  it("only the owner or an admin may change a watch; edit changes the rule and starts afresh; the list's buttons pause and resume", async () => {
    const id = watchIdOf(await command(app, 'C_GENERAL', 'watch visits below 5 every hour'));
    const bob = async (text: string) => {
      const before = slack.messages('C_GENERAL', { user: 'U_BOB' }).length;
      await slack.slash('C_GENERAL', 'U_BOB', text);
      return until(
        () =>
          slack
            .messages('C_GENERAL', { user: 'U_BOB' })
            .slice(before)
            .find((m) => m.ephemeralTo === 'U_BOB'),
        text,
      );
    };
    expect(mrkdwnOf(await bob(`watch remove ${id}`)).join(' ')).toMatch(/belongs to someone else/);
    expect(mrkdwnOf(await bob(`watch edit ${id} visits above 1`)).join(' ')).toMatch(/belongs to someone else/);
    expect(await app.store.watches.get(id)).toMatchObject({ rule: { condition: { kind: 'below', value: 5 } } });

    expect(mrkdwnOf(await command(app, 'C_GENERAL', `watch edit ${id} visits above 1000 every day`)).join(' ')).toMatch(
      new RegExp(`Watch #${id} changed: visits above 1,000 a day`),
    );
    const list = await command(app, 'C_GENERAL', 'watch list');
    await slack.click(list, 'watch.pause', undefined, { blockId: `watch-actions-${id}` });
    await until(async () => (await app.store.watches.get(id))?.paused === true, 'the pause');
    const paused = await until(
      () =>
        slack
          .messages('C_GENERAL', { user: 'U_ALICE' })
          .find((m) => m.ts === list.ts && mrkdwnOf(m).join(' ').includes(':double_vertical_bar: paused')),
      'the list again',
    );
    await slack.click(paused, 'watch.resume', undefined, { blockId: `watch-actions-${id}` });
    await until(async () => (await app.store.watches.get(id))?.paused === false, 'the resume');
    expect(mrkdwnOf(await command(app, 'C_GENERAL', `watch remove ${id}`)).join(' ')).toMatch(/is removed/);
  }, 30_000);
});

describe('another workspace', () => {
  let app: Lookout;
  beforeAll(async () => {
    app = await startLookout(options({ memory: true }, 'other'));
    slack.setAppUrl(app.requestUrl!);
  });
  afterAll(() => app?.stop());

  async function inOther(text: string): Promise<string> {
    const other = slack.team('T_OTHER');
    const before = new Set(other.messages('C_OTHER_GENERAL', { user: 'U_DANA' }).map((m) => m.ts));
    await other.slash('C_OTHER_GENERAL', 'U_DANA', text);
    const answer = await until(
      () =>
        other
          .messages('C_OTHER_GENERAL', { user: 'U_DANA' })
          .find((m) => !before.has(m.ts) && m.ephemeralTo === 'U_DANA'),
      `an answer to ${text}`,
    );
    return mrkdwnOf(answer).join(' ');
  }

  it("finds none of this workspace's watches: remove, mute, unmute, pause and edit by id are not found, and its lists are empty", async () => {
    const id = watchIdOf(await command(app, 'C_GENERAL', 'watch visits below 5 every hour'));
    const before = await app.store.watches.get(id);
    for (const verb of ['remove', 'mute', 'unmute', 'pause', 'resume', 'edit'])
      expect(await inOther(`watch ${verb} ${id}${verb === 'edit' ? ' visits above 1' : ''}`)).toContain(
        `There is no watch #${id}.`,
      );
    expect(await app.store.watches.get(id)).toEqual(before);
    for (const list of ['watch list', 'watch list all']) expect(await inOther(list)).not.toContain(`#${id}`);
    expect(mrkdwnOf(await command(app, 'C_GENERAL', 'watch list all')).join(' ')).toContain(`#${id}`);
    await command(app, 'C_GENERAL', `watch remove ${id}`);
  }, 30_000);
});

describe('a restart mid-breach neither repeats nor loses the alert', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-watches-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a replica that claimed the next hour and died: the restarted app takes it over once', async () => {
    let app = await startLookout(options({ dataDir: dir }, 'first'));
    try {
      const h = hours(3);
      clock = h[0]!.getTime() - HOUR;
      const id = watchIdOf(await command(app, channels.random, 'watch pages page~/checkout spike every hour'));
      demo.produce({ kind: 'spike', hours: [h[0]!, h[1]!], visits: 150, url: 'https://www.example-shop.com/checkout' });
      await evaluateAfter(app, h[0]!);
      expect(alertsIn(channels.random)).toHaveLength(1);
      // The next hour is claimed, then the process dies before it records anything.
      clock = h[1]!.getTime() + HOUR + 60_000;
      const watch = (await app.store.watches.get(id))!;
      const key = lastPeriod('hour', watch.timeZone, now(), API_DAYS)!.key;
      expect(await app.store.watches.claim(id, key, 'first', 60_000)).toBeDefined();
      await app.stop();

      app = await startLookout(options({ dataDir: dir }, 'second'));
      slack.setAppUrl(app.requestUrl!);
      await new Promise((r) => setTimeout(r, 1_100)); // past the claim's stale time
      await evaluateAfter(app, h[1]!);
      await evaluateAfter(app, h[1]!); // a second tick in the same hour changes nothing
      await evaluateAfter(app, h[2]!);
      const [alert, ...more] = alertsIn(channels.random);
      expect(more).toEqual([]);
      expect(repliesTo(channels.random, alert!)).toEqual([
        expect.stringMatching(/^Still on: /),
        expect.stringMatching(/Back to normal/),
      ]);
    } finally {
      await app.stop();
    }
  }, 40_000);
});

describe.skipIf(!TEST_DATABASE_URL)('three replicas on one PostgreSQL', () => {
  it('evaluate each watch once per period', async () => {
    const schema = `w_${randomBytes(4).toString('hex')}`;
    const { Pool } = await import('pg');
    const admin = new Pool({ connectionString: TEST_DATABASE_URL });
    const apps: Lookout[] = [];
    try {
      for (const name of ['r1', 'r2', 'r3'])
        apps.push(await startLookout(options({ databaseUrl: TEST_DATABASE_URL!, schema }, name)));
      const h = hours(3);
      clock = h[0]!.getTime() - HOUR;
      const ids: number[] = [];
      for (const rule of [
        'visits above 1 every hour',
        'visits below 100000 every hour',
        'pages page~/checkout spike every hour',
      ])
        ids.push(watchIdOf(await command(apps[0]!, channels.replicas, `watch ${rule}`)));
      demo.produce({ kind: 'spike', hours: [h[0]!], visits: 60, url: 'https://www.example-shop.com/checkout' });
      for (const hour of h) {
        // Two rounds of ticks, as the timers would make over the first minutes (an hour with no visits is asked again first).
        let evaluated = 0;
        for (const after of [60_000, 3 * 60_000]) {
          clock = hour.getTime() + HOUR + after;
          for (const n of await Promise.all(apps.map((a) => a.features.watches.evaluator.tick()))) evaluated += n;
        }
        expect(evaluated).toBe(ids.length);
      }
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM ${schema}.watches WHERE last_period IS NOT NULL`,
      );
      expect(rows[0].n).toBe(ids.length);
    } finally {
      for (const a of apps) await a.stop();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  }, 60_000);
});
