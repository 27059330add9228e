/**
 * "Who moved it" against the truth, end to end: the demo API's real data (a daily and hourly
 * rhythm, returning visitors, daily scrapers), with a human spike, a scraper wave, both in
 * one hour, and a drop of one source, each in an hour of its own a few days back. The threat
 * scan judges what it reads from a day before the first of them on, so the baseline hours
 * weeks back are judged only where their visitors came back (returners and scrapers first):
 * no sample of them. The watch evaluates under a test clock and its alert is explained; the
 * verdict must be the one the demo's own counts give, or unknown, and no share it states
 * may exclude the true one. Then the README's two demo spikes in one hour, most of whose
 * visitors the scan has not judged: "mixed" or "unknown" with its bounds, never "mostly
 * automated".
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookout, type Lookout } from '../../../src/compose.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { captureLogs } from '../../support/log-capture.js';
import { headerOf, mrkdwnOf, mrkdwnText } from '../../support/sandbox.js';
import { until } from '../../support/until.js';
import { falsehoods, readWhoMoved, trueShares, type Truth } from '../../support/who-moved.js';
import { ephemeralAnswer } from '../../support/answers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-${randomBytes(8).toString('hex')}`;

// The demo's data ends now; the scenarios are in its past, at 14:00 UTC (a busy hour) of days before today.
const dataEnd = new Date();
const today = Math.floor(dataEnd.getTime() / DAY) * DAY;
const hourOf = (daysAgo: number) => new Date(today - daysAgo * DAY + 14 * HOUR);
const HUMAN = hourOf(6);
const WAVE = hourOf(5);
const MIXED = hourOf(4);
let DROP: Date;
let newSource = '';
let scrapedPage = '';
const README = hourOf(1);

let clock = HUMAN.getTime() - 2 * HOUR;
const now = () => new Date(clock);

let demo: DemoApi;
let slack: OfflineSlack;
let app: Lookout;
let dropRule = '';
/** The "What moved" line of the alert explained last. */
let whatMoved = '';

beforeAll(async () => {
  // The demo's data set is generated around the real time and stays there; Lookout runs on the test clock.
  demo = await startDemoApi({ apiKey: 'k', now: () => dataEnd });
  slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: { burst: 50, perSecond: 20 } });
  app = await startLookout({
    api: { baseUrl: demo.url, apiKey: 'k' },
    slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
    store: { memory: true },
    log: captureLogs('warn').logger,
    demo: true,
    now,
    port: 0,
    scheduler: false,
    settings: {
      ANALYTICS_TIMEOUT_MS: 5_000,
      ALERT_SCAN_INTERVAL: DAY,
      ALERT_RECHECK_AFTER: WEEK,
      ALERT_BURST: 50,
      SLACK_TIMEOUT: 5_000,
      DELIVERY_PACE: 10,
      ADMIN_USERS: ['U_CAROL'],
      SECURITY_USERS: ['U_ALICE', 'U_CAROL'],
      WATCH_SPREAD_HOURLY: 0,
      WATCH_SPREAD_DAILY: 0,
      WATCH_CLAIM_STALE: 1_000,
      ANALYTICS_SETTLE_MARGIN: 60_000,
      USER_RATE_LIMIT: 100_000,
    },
  });
  slack.setAppUrl(app.requestUrl!);

  // The changes, made before the scan reads their hours (the README's come later, after it has).
  newSource = demo.spike({ kind: 'human', hour: HUMAN, visits: 150 }).source.name;
  scrapedPage = demo.spike({ kind: 'scraper', hour: WAVE, visits: 140 }).page!.path;
  demo.spike({ kind: 'human', hour: MIXED, visits: 300 });
  demo.spike({ kind: 'scraper', hour: MIXED, visits: 130 });
  // The drop: the commonest source of an hour of the day three days back leaves, in an hour where that is a fall against last week.
  DROP = [14, 13, 15, 12, 16, 11, 17, 10, 18]
    .map((h) => new Date(today - 3 * DAY + h * HOUR))
    .find((h) => {
      const c = demo.accounts[0]!.counts(h, new Date(h.getTime() + HOUR));
      return c.visits - Math.max(...Object.values(c.sources)) <= 0.9 * visitsIn(new Date(h.getTime() - WEEK));
    })!;
  const drop = demo.spike({ kind: 'drop', hour: DROP });
  // The watch for the drop: a fall against the same hour last week, by a little less than it fell.
  const fell = 1 - visitsIn(DROP) / visitsIn(new Date(DROP.getTime() - WEEK));
  expect(drop.visits).toBeGreaterThan(0);
  expect(fell).toBeGreaterThanOrEqual(0.1);
  dropRule = `watch visits drops ${Math.floor(fell * 100)}% vs last week every hour`;

  // Threat alerts on (high only: fewer messages; every visitor is judged alike); the scan reads from a day before the first hour.
  await command('C_SECURITY', 'alerts on min high', 'U_CAROL');
  await app.store.scanState.saveProgress((await app.features.threats.scan.stateKeys())[0]!, {
    watermark: new Date(HUMAN.getTime() - DAY),
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

const visitsIn = (h: Date) => demo.accounts[0]!.counts(h, new Date(h.getTime() + HOUR)).visits;

const command = (channel: string, text: string, user = 'U_ALICE') => ephemeralAnswer(slack, channel, user, text);

/** The truth of an hour against its baseline hours, from the demo's own data. */
function truthOf(h: Date, baseline: readonly Date[]): Truth {
  const counted = (at: Date) => demo.accounts[0]!.counts(at, new Date(at.getTime() + HOUR));
  const hour = counted(h);
  return {
    visits: hour.visits,
    flagged: hour.flaggedVisits,
    baseline: baseline.map((b) => ({ visits: counted(b).visits, flagged: counted(b).flaggedVisits })),
  };
}

const weeksBefore = (h: Date, weeks: number[]) => weeks.map((w) => new Date(h.getTime() - w * WEEK));

/**
 * A watch on `rule` made the hour before `h`; the scan judges what it has not read yet up to
 * the end of the hour (unless `scan` is false); the watch evaluates `h`. Its "Who moved it".
 */
async function explain(h: Date, rule: string, scan = true): Promise<string> {
  clock = Math.max(clock, h.getTime() - HOUR);
  // Carol's zone is UTC: the watch's hours are the demo's, DST or not.
  const id = Number(/Watch #(\d+)/.exec(mrkdwnOf(await command('C_MARKETING', rule, 'U_CAROL')).join(' '))?.[1]);
  clock = h.getTime() + HOUR - 1_000;
  if (scan) expect((await app.features.threats.scan.scan()).status).toBe('scanned');
  clock = h.getTime() + HOUR + 60_000;
  await app.features.watches.evaluator.tick();
  clock = h.getTime() + HOUR + 3 * 60_000;
  await app.features.watches.evaluator.tick();
  const alert = await until(
    () =>
      slack
        .messages('C_MARKETING')
        .find(
          (m) =>
            /^Watch: /.test(headerOf(m) ?? '') &&
            mrkdwnText(m).includes(`watch #${id}`) &&
            mrkdwnText(m).includes('Who moved it'),
        ),
    `watch #${id}'s alert, explained`,
  );
  await command('C_MARKETING', `watch remove ${id}`, 'U_CAROL');
  whatMoved = /\*What moved\*.*$/m.exec(mrkdwnText(alert))![0];
  return /\*Who moved it:\* (.+)$/m.exec(mrkdwnText(alert))![1]!;
}

describe('who moved it, as far as the judged visitors tell it', () => {
  it('a human spike from a new source: mostly people, and no false usual', async () => {
    const text = await explain(HUMAN, 'watch visits spike every hour');
    const truth = truthOf(HUMAN, weeksBefore(HUMAN, [1, 2, 3, 4]));
    expect(falsehoods(text, truth)).toEqual([]);
    expect(trueShares(truth).verdict).toBe('mostly people');
    expect(readWhoMoved(text).verdict).toBe('mostly people');
    expect(whatMoved).toContain(`: source ${newSource} +150 (new`);
  });

  it('a scraper wave on one page: mostly automated, and no false usual', async () => {
    const text = await explain(WAVE, 'watch visits spike every hour');
    const truth = truthOf(WAVE, weeksBefore(WAVE, [1, 2, 3, 4]));
    expect(falsehoods(text, truth)).toEqual([]);
    expect(trueShares(truth).verdict).toBe('mostly automated');
    expect(readWhoMoved(text).verdict).toBe('mostly automated');
    // The wave's page moves about as much as its source (its visits are the same): either may lead.
    expect(whatMoved).toMatch(new RegExp(`[:,] page ${scrapedPage.replace(/[/.]/g, '\\$&')} \\+\\d+`));
  });

  it('both in one hour: mixed, or unknown with its bounds, and no false usual', async () => {
    const text = await explain(MIXED, 'watch visits spike every hour');
    const truth = truthOf(MIXED, weeksBefore(MIXED, [1, 2, 3, 4]));
    expect(falsehoods(text, truth)).toEqual([]);
    expect(trueShares(truth).verdict).toBe('mixed');
    expect(text).toMatch(/^(mixed: |unknown: between \d+% and \d+% of the rise)/);
  });

  it('a drop of one source: the verdict the truth allows or unknown, never a false usual', async () => {
    const text = await explain(DROP, dropRule);
    const truth = truthOf(DROP, weeksBefore(DROP, [1]));
    expect(trueShares(truth).direction).toBe('fall');
    expect(falsehoods(text, truth)).toEqual([]);
    expect(readWhoMoved(text).direction).toBe('fall');
  });

  it('the README’s two demo spikes in one hour, most of their visitors not judged: mixed or unknown with the bounds', async () => {
    // As the sandbox's controls make them: at 14:37, in the hour up to then, after the scan has read it.
    clock = README.getTime() + 37 * 60_000;
    expect((await app.features.threats.scan.scan()).status).toBe('scanned');
    const before = new Date(clock);
    const human = demo.spike({ kind: 'human', hour: README, visits: 150, before });
    const wave = demo.spike({ kind: 'scraper', hour: README, visits: 140, before });
    expect([human.flaggedVisits, wave.flaggedVisits]).toEqual([0, 140]);
    const text = await explain(README, 'watch visits spike every hour', false);
    const truth = truthOf(README, weeksBefore(README, [1, 2, 3, 4]));
    expect(falsehoods(text, truth)).toEqual([]);
    expect(text).toMatch(/^(mixed: |unknown: between \d+% and \d+% of the rise is from flagged visitors)/);
    expect(text).toContain('sampled: ');
  });
});
