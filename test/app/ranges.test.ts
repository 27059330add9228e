/**
 * One grammar for ranges and times (issue 27), as a person types it into the offline Slack:
 * signed slash commands, the answers read back from what Slack shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { headerOf, mrkdwnText, sandbox, tableOf, type Sandbox } from '../support/sandbox.js';
import { run } from '../support/answers.js';

// Saturday Nov 21, 2026, midday: last week is Mon Nov 9 – Sun Nov 15. The demo API's history ends then too.
const NOW = new Date('2026-11-21T12:00:00Z');

let box: Sandbox & { logs: string[] };
let demo: DemoApi;

beforeAll(async () => {
  demo = await startDemoApi({ port: 0, apiKey: 'ranges', now: () => NOW });
  box = await sandbox({ scheduler: false, now: () => NOW, api: { baseUrl: demo.url, apiKey: 'ranges' } });
});
afterAll(async () => {
  await box?.stop();
  await demo?.close();
});

describe('ranges in words, in every command that takes one', () => {
  it('`/traffic sources last 7 days` is the last 7 days, row for row as `last7d`', async () => {
    const words = await run(box, 'sources last 7 days');
    expect(headerOf(words)).toBe('Sources · Last 7 days (Nov 15 – Nov 21, 2026)');
    const token = await run(box, 'sources last7d');
    expect(tableOf(words).length).toBeGreaterThan(1);
    expect(tableOf(words)).toEqual(tableOf(token));
    expect(headerOf(await run(box, 'sources last7 days'))).toBe(headerOf(words));
  });

  it('`/traffic sources lastweek` is the calendar week before this one, Monday to Sunday, as its dates', async () => {
    const week = await run(box, 'sources lastweek');
    expect(headerOf(week)).toBe('Sources · Last week (Nov 9 – Nov 15, 2026)');
    const dates = await run(box, 'sources 2026-11-09..2026-11-15');
    expect(tableOf(week).length).toBeGreaterThan(1);
    expect(tableOf(week)).toEqual(tableOf(dates));
  });

  it('`/traffic trend this month` charts the month to date', async () => {
    const trend = await run(box, 'trend this month');
    expect(headerOf(trend)).toBe('Trend: Visits · Month to date (Nov 1 – Nov 21, 2026)');
  });

  it('a near miss is refused with the range meant, and a number out of bounds with the bounds', async () => {
    expect(mrkdwnText(await run(box, 'sources lst7d'))).toMatch(/Don't understand `lst7d`\. Did you mean `last7d`\?/);
    expect(mrkdwnText(await run(box, 'trend lastweak'))).toMatch(
      /Unknown range `lastweak`\. Did you mean `lastweek`\?/,
    );
    expect(mrkdwnText(await run(box, 'sources last 400 days'))).toMatch(
      /The last N days go from 2 to 365 days; `last 400 days` is 400 days/,
    );
  });
});

describe('a digest time as people say it', () => {
  it('`/traffic digest add daily 9am sources` runs at 09:00', async () => {
    await box.lookout.store.db.query('delete from digests');
    const reply = await run(box, 'digest add daily 9am sources');
    const [digest] = await box.lookout.store.digests.listAll('T_LOOKOUT');
    expect(digest).toMatchObject({
      schedule: { kind: 'daily', time: '09:00' },
      cron: '0 9 * * *',
      reports: ['sources'],
    });
    expect(mrkdwnText(reply)).toContain('every day at 09:00 (Europe/Berlin)');
  });

  it('a near miss of a time is refused with the time meant, and adds nothing', async () => {
    await box.lookout.store.db.query('delete from digests');
    expect(mrkdwnText(await run(box, 'digest add daily 9amm sources'))).toMatch(
      /`9amm` is not a time of day\. Did you mean `9am`\?/,
    );
    expect(mrkdwnText(await run(box, 'digest add daily 25:00 sources'))).toMatch(
      /`25:00` is not a time of day: hours go from 00 to 23/,
    );
    expect(await box.lookout.store.digests.listAll('T_LOOKOUT')).toHaveLength(0);
  });
});
