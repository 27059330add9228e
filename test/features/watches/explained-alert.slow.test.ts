import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookout, type Lookout } from '../../../src/compose.js';
import { startDemoApi, type DemoApi, type PeriodCounts } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type Message, type OfflineSlack } from '@lookout/sandbox/slack';
import { captureLogs } from '../../support/log-capture.js';
import { headerOf, mrkdwnOf, mrkdwnText, watchIdOf } from '../../support/sandbox.js';
import { until } from '../../support/until.js';
import { SAMPLE_LOOKUPS } from '../../../src/features/watches/explainer.js';
import { ephemeralAnswer } from '../../support/answers.js';

/**
 * "Is this spike real?" end to end: the demo produces a human spike from a new source and a
 * scraper wave on one page, each in an hour after its data ends (so the hour holds only what
 * is produced), the threat scan judges the hour's visitors, the watch evaluates, and its alert
 * is explained in place. The figures are checked against the demo API's own counts.
 */
const HOUR = 3_600_000;
const API_DAYS = { timeZone: 'UTC', settleMs: 60_000 };
const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-${randomBytes(8).toString('hex')}`;

let clock = Date.now();
const now = () => new Date(clock);
let nextHour = Math.ceil(Date.now() / HOUR) * HOUR + HOUR;
const hour = (): Date => {
  const h = new Date(nextHour);
  nextHour += 2 * HOUR;
  return h;
};

let demo: DemoApi;
let slack: OfflineSlack;
let app: Lookout;

beforeAll(async () => {
  demo = await startDemoApi({ apiKey: 'k', now });
  slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: { burst: 50, perSecond: 20 } });
  app = await startLookout({
    api: { baseUrl: demo.url, apiKey: 'k', timeoutMs: 5_000 },
    slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
    store: { memory: true },
    log: captureLogs('warn').logger,
    defaultTimezone: 'UTC',
    demo: true,
    now,
    port: 0,
    scheduler: false,
    alerts: { scanIntervalMs: 60_000, recheckMs: 6 * HOUR, burst: 50 },
    deliveries: { slackTimeoutMs: 5_000, heartbeatMs: 10_000, paceMs: 50 },
    admins: ['U_CAROL'],
    // Bob may not see security details: the flagged visitors are refused him.
    security: { channels: [], users: ['U_ALICE', 'U_CAROL'], scrapingScoreThreshold: 0.8 },
    watches: { spreadMs: { hour: 0, day: 0 }, staleMs: 1_000 },
    apiDays: API_DAYS,
    limits: { userRequests: 100_000 },
  });
  slack.setAppUrl(app.requestUrl!);
  clock = nextHour - 60_000;
  await command('C_SECURITY', 'alerts on min medium', 'U_CAROL');
  await app.store.scanState.saveProgress((await app.features.threats.scan.stateKeys())[0]!, {
    watermark: now(),
    seenIds: [],
    counts: {},
    at: now(),
  });
});
afterAll(async () => {
  await app?.stop();
  await slack?.close();
  await demo?.close();
});

const command = (channel: string, text: string, user = 'U_ALICE') => ephemeralAnswer(slack, channel, user, text);

/** The threat scan judges the hour, then the clock moves past it and the watches evaluate. */
async function evaluate(h: Date): Promise<void> {
  clock = h.getTime() + HOUR - 1_000;
  await app.features.threats.scan.scan();
  clock = h.getTime() + HOUR + 60_000;
  await app.features.watches.evaluator.tick();
  clock = h.getTime() + HOUR + 3 * 60_000;
  await app.features.watches.evaluator.tick();
}

/** The watch's alert in `channel`, once its explanation is in it. */
function explained(channel: string, id: number): Promise<Message> {
  return until(
    () =>
      slack
        .messages(channel)
        .find(
          (m) =>
            /^Watch: /.test(headerOf(m) ?? '') &&
            mrkdwnText(m).includes(`watch #${id}`) &&
            mrkdwnText(m).includes('What moved'),
        ),
    `watch #${id}'s alert, explained`,
  );
}

const alertsOf = (channel: string, id: number) =>
  slack.messages(channel).filter((m) => /^Watch: /.test(headerOf(m) ?? '') && mrkdwnText(m).includes(`watch #${id}`));

/** Each label's average visits over the four same hours before, as the demo counts them. */
function usual(h: Date, pick: (c: PeriodCounts) => number): number {
  const weeks = [1, 2, 3, 4].map((w) => {
    const from = new Date(h.getTime() - w * 7 * 24 * HOUR);
    return pick(demo.accounts[0]!.counts(from, new Date(from.getTime() + HOUR)));
  });
  return weeks.reduce((a, b) => a + b, 0) / weeks.length;
}

describe('a watch alert explains its spike', () => {
  it('a human spike from a new source: names the source as new, with the demo’s figure, and says it is mostly people', async () => {
    const h = hour();
    clock = h.getTime() - HOUR;
    const all = watchIdOf(await command('C_MARKETING', 'watch visits spike every hour'));
    const people = watchIdOf(await command('C_GENERAL', 'watch visits by people spike every hour'));
    const spike = demo.spike({ kind: 'human', hour: h, visits: 150 });
    await evaluate(h);

    const alert = await explained('C_MARKETING', all);
    const text = mrkdwnText(alert);
    const counted = demo.accounts[0]!.counts(h, new Date(h.getTime() + HOUR));
    expect(counted.sources[spike.source.name]).toBe(150);
    expect(text).toContain(`${spike.source.name} +150 (new`);
    expect(text).not.toContain('Ignore automated spikes');
    expect(text).toMatch(
      /Who moved it:\* mostly people: (none|at most \d+%|under \d+%) of the rise is from flagged visitors/,
    );
    // The people-only watch alerts too.
    expect(alertsOf('C_GENERAL', people)).toHaveLength(1);
    for (const id of [all, people]) await command('C_MARKETING', `watch remove ${id}`);
  }, 60_000);

  it('visitors the scan has not judged yet: a bounded sample of them is looked up, and the explanation says it is a sample', async () => {
    const h = hour();
    clock = h.getTime() - HOUR;
    const all = watchIdOf(await command('C_MARKETING', 'watch visits spike every hour'));
    const spike = demo.spike({ kind: 'human', hour: h, visits: 150 });
    const lookupsBefore = demo.requests.filter((r) => r.path.startsWith('/security/')).length;
    // No scan this hour: none of its visitors is judged when the watch evaluates.
    clock = h.getTime() + HOUR + 60_000;
    await app.features.watches.evaluator.tick();
    clock = h.getTime() + HOUR + 3 * 60_000;
    await app.features.watches.evaluator.tick();
    const text = mrkdwnText(await explained('C_MARKETING', all));
    expect(text).toContain(`sampled: ${SAMPLE_LOOKUPS} of ${spike.visitors} visitors judged`);
    const lookups = demo.requests.filter((r) => r.path.startsWith('/security/')).slice(lookupsBefore);
    expect(new Set(lookups.map((r) => r.path.split('/').at(-1))).size).toBe(SAMPLE_LOOKUPS);
    await command('C_MARKETING', `watch remove ${all}`);
  }, 60_000);

  it('a scraper wave on one page: names the page with the demo’s change, says it is mostly automated, lists the flagged visitors; ignoring automated spikes silences the next wave', async () => {
    const h = hour();
    clock = h.getTime() - HOUR;
    const all = watchIdOf(await command('C_MARKETING', 'watch visits spike every hour'));
    const people = watchIdOf(await command('C_GENERAL', 'watch visits by people spike every hour'));
    const wave = demo.spike({ kind: 'scraper', hour: h, visits: 140 });
    await evaluate(h);

    const alert = await explained('C_MARKETING', all);
    const text = mrkdwnText(alert);
    const url = wave.page!.url;
    const change = Math.round(
      demo.accounts[0]!.counts(h, new Date(h.getTime() + HOUR)).pages[url]! - usual(h, (c) => c.pages[url] ?? 0),
    );
    expect(text).toContain(`${wave.page!.path} +${change}`);
    expect(text).toMatch(/Who moved it:\* mostly automated: (all|at least \d+%) of the rise is from flagged visitors/);
    expect(alertsOf('C_GENERAL', people)).toEqual([]);

    // Flagged visitors are security details: refused to Bob, shown to Alice with the scan's verdicts.
    const bobs = slack.messages('C_MARKETING', { user: 'U_BOB' }).length;
    await slack.click(alert, 'watch.flagged', undefined, { user: 'U_BOB' });
    const refused = await until(
      () =>
        slack
          .messages('C_MARKETING', { user: 'U_BOB' })
          .slice(bobs)
          .find((m) => m.ephemeralTo === 'U_BOB'),
      'the refusal',
    );
    expect(mrkdwnOf(refused).join(' ')).toContain('security details');
    expect(mrkdwnOf(refused).join(' ')).not.toContain(wave.visitorIds[0]!);
    const before = slack.messages('C_MARKETING', { user: 'U_ALICE' }).length;
    await slack.click(alert, 'watch.flagged', undefined, { user: 'U_ALICE' });
    const list = await until(
      () =>
        slack
          .messages('C_MARKETING', { user: 'U_ALICE' })
          .slice(before)
          .find((m) => m.ephemeralTo === 'U_ALICE'),
      'the flagged visitors',
    );
    const listed = mrkdwnOf(list).join('\n');
    const scrapers = new Set(wave.visitorIds);
    expect(listed).toContain(`${scrapers.size} flagged visitors`);
    for (const id of scrapers) expect(listed).toContain(id);

    // Ignore automated spikes: the watch counts people; the next wave does not alert.
    await slack.click(alert, 'watch.ignore-automated', undefined, { user: 'U_ALICE' });
    await until(async () => (await app.store.watches.get(all))?.rule.who === 'people' || undefined, 'people only');
    const next = hour();
    demo.spike({ kind: 'scraper', hour: next, visits: 140 });
    await evaluate(next);
    await until(
      async () =>
        ((await app.store.watches.get(all))?.lastPeriod ?? '') >= next.toISOString().slice(0, 13) || undefined,
      'the next hour judged',
    );
    expect(alertsOf('C_MARKETING', all)).toHaveLength(1);
    for (const id of [all, people]) await command('C_MARKETING', `watch remove ${id}`);
  }, 60_000);
});
