/**
 * A digest explains its change: a human spike from a new referrer and a scraper wave on one
 * page, produced in the demo account yesterday, show in the digest's top movers and in its
 * flagged share, with the demo API's own counts of the two days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '@lookout/sandbox/slack';
import { formatCount } from '../../src/kernel/format.js';
import { percent } from '../../src/kernel/explain.js';
import { validateMessage } from '../../src/slack-rules/validate.js';
import { CHANNEL, USER, headerOf, mrkdwnOf, sandbox, type Sandbox } from '../support/sandbox.js';

const DAY = 86_400_000;
let box: Sandbox & { logs: string[] };

beforeAll(async () => {
  box = await sandbox({ scheduler: false, admins: ['U_BOB'] });
});
afterAll(async () => {
  await box?.stop();
});

const text = (m: Message) => mrkdwnOf(m).join('\n');

describe('a digest of a day with a human spike and a scraper wave', () => {
  it('names the new referrer and the scraped page among its movers, and its flagged share is the demo’s own', async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const yesterday = today - DAY;
    const before = yesterday - DAY;
    const account = box.demo!.accounts[0]!;
    const human = box.demo!.spike({ kind: 'human', hour: new Date(yesterday + 10 * 3_600_000), visits: 900 });
    const wave = box.demo!.spike({ kind: 'scraper', hour: new Date(yesterday + 15 * 3_600_000), visits: 600 });
    expect(wave.flaggedVisits).toBe(600);

    // Threat alerts on since the day before yesterday; one scan judges every visitor since then.
    await box.lookout.store.subscriptions.upsert({
      channelId: 'C_SECURITY',
      teamId: 'T_LOOKOUT',
      createdBy: 'U_BOB',
      minSeverity: 'high',
      checks: ['bot', 'scraping', 'vpn', 'extensions'],
    });
    await box.lookout.store.db.query('update alert_subscriptions set created_at = $1', [new Date(before)]);
    const [key] = await box.lookout.threatScan.stateKeys();
    await box.lookout.store.scanState.saveProgress(key!, {
      watermark: new Date(before),
      seenIds: [],
      counts: {},
      at: new Date(),
    });
    const scanned = await box.lookout.threatScan.scan();
    expect(scanned).toMatchObject({ status: 'scanned' });

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
    const slot = new Date(today + 9 * 3_600_000);
    expect(await box.lookout.scheduler.runSlot(digest, slot)).toBe(true);
    await box.lookout.deliveries.drained();
    const run = await box.lookout.store.runs.get(digest.id, slot);
    expect(run?.status).toBe('posted');
    const posted = box.slack.messages(CHANNEL).find((m) => m.ts === run!.messageTs)!;
    expect(headerOf(posted)).toBe('Digest: Sources, Pages, Countries');
    const verdict = validateMessage(posted);
    expect(verdict.ok ? [] : verdict.reasons).toEqual([]);
    const body = text(posted);

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
        `${dayLabel(yesterday)} (days in UTC), +${formatCount(points)} ${points === 1 ? 'point' : 'points'} against ` +
        `the previous period (${dayLabel(before)}: ${share(then)} of the ${formatCount(then.visits)} visits).`,
    );
    expect(body).not.toMatch(/visitors judged/); // every visitor of both days was judged
    expect(body).not.toMatch(/The threat scan/); // the share replaces the scan's own line
  });
});

/** "Nov 24, 2026", as the digest writes a one-day span. */
function dayLabel(ms: number): string {
  return new Date(ms).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}
