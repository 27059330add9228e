/**
 * A digest explains its change: a human spike from a new referrer and a scraper wave on one
 * page, produced in the demo account yesterday, show in the digest's top movers and in its
 * flagged share, with the demo API's own counts of the two days.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '@lookout/sandbox/slack';
import { isFlagged, type DemoAccount } from '@lookout/sandbox/demo-api';
import { counted, formatCount } from '../../../src/kernel/format.js';
import { percent } from '../../../src/kernel/flagged-share.js';
import { validateMessage } from '../../../src/slack-rules/validate.js';
import { CHANNEL, USER, headerOf, sandbox, type Sandbox, mrkdwnText } from '../../support/sandbox.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
let box: Sandbox & { logs: string[] };

// Each test has a workspace of its own: what the threat scan judged in one is not the other's.
beforeEach(async () => {
  box = await sandbox({ scheduler: false, settings: { ADMIN_USERS: ['U_BOB'] } });
});
afterEach(async () => {
  await box?.stop();
});

/** Threat alerts on since `since`, and one scan that judges every visitor of a visit since then. */
async function scanSince(since: number): Promise<void> {
  await box.lookout.store.subscriptions.upsert({
    channelId: 'C_SECURITY',
    teamId: 'T_LOOKOUT',
    createdBy: 'U_BOB',
    minSeverity: 'high',
    checks: ['bot', 'scraping', 'vpn', 'extensions'],
  });
  await box.lookout.store.db.query('update alert_subscriptions set created_at = $1', [new Date(since)]);
  const [key] = await box.lookout.features.threats.scan.stateKeys();
  await box.lookout.store.scanState.saveProgress(key!, {
    watermark: new Date(since),
    seenIds: [],
    counts: {},
    at: new Date(),
  });
  expect(await box.lookout.features.threats.scan.scan()).toMatchObject({ status: 'scanned' });
}

/** Posts yesterday's (UTC) digest of sources, pages and countries; the posted message. */
async function postDigest(today: number): Promise<Message> {
  const digest = await box.lookout.store.digests.create({
    teamId: 'T_LOOKOUT',
    channelId: CHANNEL,
    ownerId: USER,
    reports: ['sources', 'pages', 'countries'],
    filters: [],
    topN: 5,
    period: 'day',
    schedule: { kind: 'daily', time: '09:00' },
    cron: '0 9 * * *',
    timeZone: 'UTC',
  });
  const slot = new Date(today + 9 * HOUR);
  expect(await box.lookout.features.digests.scheduler.runSlot(digest, slot)).toBe(true);
  await box.lookout.deliveries.drained();
  const run = await box.lookout.store.runs.get(digest.id, slot);
  expect(run?.status).toBe('posted');
  const posted = box.slack.messages(CHANNEL).find((m) => m.ts === run!.messageTs)!;
  expect(headerOf(posted)).toBe('Digest: Sources, Pages, Countries');
  const verdict = validateMessage(posted);
  expect(verdict.ok ? [] : verdict.reasons).toEqual([]);
  return posted;
}

describe('a digest of a day with a human spike and a scraper wave', () => {
  it('names the new referrer and the scraped page among its movers, and its flagged share is the demo’s own', async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const yesterday = today - DAY;
    const before = yesterday - DAY;
    const account = box.demo!.accounts[0]!;
    const human = box.demo!.spike({ kind: 'human', hour: new Date(yesterday + 10 * HOUR), visits: 900 });
    const wave = box.demo!.spike({ kind: 'scraper', hour: new Date(yesterday + 15 * HOUR), visits: 600 });
    expect(wave.flaggedVisits).toBe(600);

    // Threat alerts on since the day before yesterday; one scan judges every visitor since then.
    await scanSince(before);
    const posted = await postDigest(today);
    const body = mrkdwnText(posted);

    // The demo API's own counts of yesterday and the day before (UTC days, as the digest's zone).
    const now = account.counts(new Date(yesterday), new Date(today));
    const then = account.counts(new Date(before), new Date(yesterday));
    const change = (counts: 'sources' | 'pages', key: string) => (now[counts][key] ?? 0) - (then[counts][key] ?? 0);

    const movers = body.split('\n').find((l) => l.startsWith('*Top movers* against '))!;
    expect(movers).toBeDefined();
    expect(then.sources[human.source.name]).toBeUndefined();
    expect(change('sources', human.source.name)).toBe(900);
    expect(movers).toContain(`${human.source.name} +${formatCount(900)} (new)`);
    const pageChange = change('pages', wave.page!.url);
    expect(pageChange).toBeGreaterThanOrEqual(600);
    expect(movers).toContain(`${wave.page!.path} +${formatCount(pageChange)}`);
    expect(movers).not.toMatch(/https?:\/\//);

    // The flagged share: of every visit of the day, from the demo's own flagged counts.
    const share = (c: typeof now) => percent(c.flaggedVisits / c.visits);
    const points =
      Math.round((now.flaggedVisits / now.visits) * 100) - Math.round((then.flaggedVisits / then.visits) * 100);
    expect(points).toBeGreaterThan(0);
    expect(body).toContain(
      `Flagged visitors made ${share(now)} of the ${formatCount(now.visits)} visits of ` +
        `${dayLabel(yesterday)} (days in UTC, as the analytics API counts them), +${formatCount(points)} ${points === 1 ? 'point' : 'points'} against ` +
        `the previous period (${dayLabel(before)}: ${share(then)} of the ${formatCount(then.visits)} visits).`,
    );
    expect(body).not.toMatch(/visitors judged/); // every visitor of both days was judged
    expect(body).not.toMatch(/The threat scan/); // the share replaces the scan's own line
  });
});

/**
 * What the demo's own data says of [from, to) when the threat scan judged the visitors of
 * every visit from `judgedFrom` on: visits, those by judged visitors, visits by judged
 * visitors it flags, and the truth: visits by every visitor it flags, judged or not.
 */
function judgedCounts(account: DemoAccount, from: number, to: number, judgedFrom: number) {
  const dataset = account.dataset;
  const judged = (id: string) => dataset.visitsOf(id).some((v) => new Date(v.date).getTime() >= judgedFrom);
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  let visits = 0;
  let judgedVisits = 0;
  let flaggedVisits = 0;
  let trulyFlagged = 0;
  for (const { visit, facts } of dataset.entriesBetween(day(from), day(to - 1))) {
    if (facts.time < from || facts.time >= to) continue;
    visits++;
    const flagged = isFlagged(dataset.securityOf(visit.visitor_id));
    if (flagged) trulyFlagged++;
    if (!judged(visit.visitor_id)) continue;
    judgedVisits++;
    if (flagged) flaggedVisits++;
  }
  return { visits, judgedVisits, flaggedVisits, trulyFlagged };
}

describe('a digest of a day the threat scan began in', () => {
  it('states the flagged share as far as the judged visits tell it, says how many were judged, and the truth lies within', async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const yesterday = today - DAY;
    const account = box.demo!.accounts[0]!;
    const wave = box.demo!.spike({ kind: 'scraper', hour: new Date(yesterday + 15 * HOUR), visits: 300 });
    // The scan began at noon yesterday: the visitors of the morning who did not come back were not judged.
    const noon = yesterday + 12 * HOUR;
    await scanSince(noon);
    const body = mrkdwnText(await postDigest(today));

    const now = judgedCounts(account, yesterday, today, noon);
    const then = judgedCounts(account, yesterday - DAY, yesterday, noon);
    expect(now.visits).toBe(account.counts(new Date(yesterday), new Date(today)).visits);
    expect(now.judgedVisits).toBeGreaterThan(0);
    expect(now.judgedVisits).toBeLessThan(now.visits);
    expect(now.flaggedVisits).toBeGreaterThanOrEqual(wave.flaggedVisits);
    const line = body.split('\n').find((l) => l.startsWith(':shield: '))!;
    // Each share: the judged flagged visits, up to those and every visit not judged, rounded outward.
    const stated = (c: typeof now) => {
      if (c.judgedVisits * 2 < c.visits) return 'an unknown share';
      const low = Math.floor((c.flaggedVisits / c.visits) * 100);
      const high = Math.ceil(((c.flaggedVisits + c.visits - c.judgedVisits) / c.visits) * 100);
      return `${low}–${high}%`;
    };
    expect(line).toContain(
      `:shield: Flagged visitors made ${stated(now)} of the ${formatCount(now.visits)} visits of ` +
        `${dayLabel(yesterday)} (days in UTC, as the analytics API counts them; ${formatCount(now.judgedVisits)} of those visits judged), against the previous period (${dayLabel(yesterday - DAY)}`,
    );
    expect(line).toContain(
      then.judgedVisits === 0
        ? `none of the ${counted(then.visits, 'visit')} was judged.`
        : `${stated(then)} of the ${formatCount(then.visits)} visits; ${formatCount(then.judgedVisits)} of those visits judged).`,
    );
    // No share said excludes the demo's own count of flagged visits.
    for (const c of [now, then]) {
      const range = /^(\d+)–(\d+)%$/.exec(stated(c));
      if (!range) continue;
      const truth = (c.trulyFlagged / c.visits) * 100;
      expect(truth).toBeGreaterThanOrEqual(Number(range[1]));
      expect(truth).toBeLessThanOrEqual(Number(range[2]));
    }
    expect(line).not.toMatch(/points? against/);
  });
});

/** "Nov 24, 2026", as the digest writes a one-day span. */
function dayLabel(ms: number): string {
  return new Date(ms).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}
