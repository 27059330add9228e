/**
 * Figures are kept for good only when they are final: what the issue measured against an
 * API with one visit a minute. An empty answer once, a short page once, a failed page, a day
 * over in the channel's zone but still open at the API (which counts in UTC), and a day whose
 * last visits arrive late: each is corrected, never kept wrong for good. A first read costs
 * one request a period: it is confirmed by its re-check, or at once when it looks wrong.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { resolveRange } from '../../../src/kernel/range-dates.js';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { SharedFetcher } from '../../../src/platform/api/shared-fetcher.js';
import { memoryQuota } from '../../../src/platform/quota.js';
import { TrendService, type TrendSpec } from '../../../src/features/trends/service.js';
import { TrendRepo } from '../../../src/features/trends/repo.js';
import type { Queryable } from '../../../src/platform/store/db.js';
import { captureLogs } from '../../support/log-capture.js';
import { describeEachDb } from '../../support/db.js';
import { ofAccount, QueryRefsStub } from '../../support/trends.js';
import { startSteadyApi, type SteadyApi } from '../../support/steady-api.js';

const KEY = 'steady';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Noon (UTC) on Nov 20: the API's Nov 20 holds 721 of its 1,440 visits. */
const NOON = new Date('2026-11-20T12:00:00Z').getTime();
const { logger } = captureLogs('warn');

let clock = NOON;
const now = () => new Date(clock);
let api: SteadyApi;
const clients: AnalyticsApi[] = [];

beforeAll(async () => {
  api = await startSteadyApi({ now, from: new Date('2026-09-01T00:00:00Z'), apiKey: KEY });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await api?.close();
});
afterEach(() => {
  api.glitches.length = 0;
  api.requests.length = 0;
  clock = NOON;
});

const rechecks: { changed: boolean; periods: number }[] = [];

/** A trend service as compose.ts builds it (a fresh process each time: its own fetcher), the API's days in UTC, settled after 10 minutes. */
function service(repo: TrendRepo, zone = 'UTC') {
  const { trends, client, fetcher } = trendService(repo, zone);
  return ofAccount(trends, client, fetcher);
}

function trendService(repo: TrendRepo, zone = 'UTC') {
  const client = new AnalyticsApi({ baseUrl: api.url, apiKey: KEY, timeoutMs: 5_000, retry: { retries: 0 } });
  clients.push(client);
  const fetcher = new SharedFetcher(client, { now });
  const trends = new TrendService({
    repo,
    refs: new QueryRefsStub(),
    timeZoneFor: async () => zone,
    now,
    demo: false,
    quota: memoryQuota({ points: 1_000, windowMs: 60_000 }),
    log: logger,
    apiDays: { timeZone: 'UTC', settleMs: 10 * MINUTE },
    observeRecheck: (changed: boolean, periods: number) => rechecks.push({ changed, periods }),
  });
  return { trends, client, fetcher };
}

function spec(range: string, zone = 'UTC'): TrendSpec {
  const resolved = resolveRange(range, zone, now());
  if (!resolved.ok) throw new Error(resolved.error);
  return { report: 'visits', filters: [], metric: 'visits', range: resolved.range, timeZone: zone };
}

/** The figure of one day in a daily trend over the last 7 days. */
async function dayFigure(repo: TrendRepo, day: string, zone = 'UTC'): Promise<number> {
  const trend = await service(repo, zone).series(spec('last7d', zone));
  const i = trend.plan.buckets.findIndex((b) => b.key === day);
  expect(i, `${day} is charted`).toBeGreaterThanOrEqual(0);
  return trend.current.values[i]!;
}

const asked = (path: string, day: string) => api.requests.filter((r) => r.path === path && r.startDate === day).length;
/** Requests for the row just past an answer's end (what confirms it whole). */
const probes = () => api.requests.filter((r) => r.limit === 1);
/** How a day's visits are kept: its figure, and whether it is final and confirmed whole. */
async function kept(db: Queryable, day: string) {
  const { rows } = await db.query<{ value: number; final: boolean; confirmed: boolean }>(
    "SELECT value, final, confirmed FROM trend_points WHERE bucket = $1 AND metric = 'visits'",
    [day],
  );
  return rows[0];
}

describeEachDb('a trend keeps a figure for good only once it is final', (t) => {
  it('an empty answer once, for a past day between days with visits, is not kept: the day is asked again and charted whole', async () => {
    const repo = new TrendRepo(t.db);
    api.glitches.push({ path: '/countries', startDate: '2026-11-17', keep: 0, times: 1 });
    expect(await dayFigure(repo, '2026-11-17')).toBe(1_440);
    expect(api.glitches).toEqual([]); // the glitch did happen
    clock += HOUR;
    expect(await dayFigure(repo, '2026-11-17')).toBe(1_440);
  });

  it('an empty answer that lasts a few minutes, between days with visits, is kept only as provisional: asked again after the settling margin, and corrected', async () => {
    const repo = new TrendRepo(t.db);
    api.glitches.push({ path: '/countries', startDate: '2026-11-17', keep: 0, until: new Date(NOON + 5 * MINUTE) });
    expect(await dayFigure(repo, '2026-11-17')).toBe(0);
    clock = NOON + 20 * MINUTE;
    rechecks.length = 0;
    api.requests.length = 0;
    expect(await dayFigure(repo, '2026-11-17')).toBe(1_440);
    expect(asked('/countries', '2026-11-17')).toBeGreaterThanOrEqual(1);
    expect(rechecks).toContainEqual({ changed: true, periods: 1 });
  });

  it('a short page once (500 of a day of visits) is not kept: the hours of the day add up to its 1,440 visits, now and later', async () => {
    const repo = new TrendRepo(t.db);
    api.glitches.push({ path: '/visits', startDate: '2026-11-18', page: 1, keep: 500, times: 1 });
    const first = await service(repo).series(spec('2026-11-19'));
    expect(first.plan.grain).toBe('hour');
    expect(api.glitches).toEqual([]);
    expect([first.current.total, first.previous.total]).toEqual([1_440, 1_440]);
    clock += HOUR;
    const later = await service(repo).series(spec('2026-11-19'));
    expect([later.current.total, later.previous.total]).toEqual([1_440, 1_440]);
    expect(later.current.values.every((v) => v === 60)).toBe(true);
  });

  it('a day over in Pacific/Kiritimati (UTC+14) but still open at the API (UTC) is not kept, and is whole once the API has finished it', async () => {
    const repo = new TrendRepo(t.db);
    const zone = 'Pacific/Kiritimati';
    // 02:00 on Nov 21 in Kiritimati: Nov 20 is over there, at noon of the API's Nov 20.
    expect(await dayFigure(repo, '2026-11-20', zone)).toBe(721);
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM trend_points WHERE bucket = '2026-11-20'",
    );
    expect(rows[0]!.n).toBe(0);
    clock = NOON + 6 * HOUR;
    expect(await dayFigure(repo, '2026-11-20', zone)).toBe(1_081); // still counting
    // The API's Nov 20 ended at midnight UTC; 10 minutes later it is final.
    clock = new Date('2026-11-21T00:30:00Z').getTime();
    expect(await dayFigure(repo, '2026-11-20', zone)).toBe(1_440);
    api.requests.length = 0;
    clock += HOUR;
    expect(await dayFigure(repo, '2026-11-20', zone)).toBe(1_440);
    expect(asked('/countries', '2026-11-20')).toBe(0); // kept now
  });

  it("answers are shared for a minute of the app's clock however it jumps, so an answer made before a period ended is never taken for a later one", async () => {
    const client = new AnalyticsApi({ baseUrl: api.url, apiKey: KEY, timeoutMs: 5_000, retry: { retries: 0 } });
    clients.push(client);
    const fetcher = new SharedFetcher(client, { now });
    const request = { startDate: '2026-11-20', endDate: '2026-11-20' };
    const first = fetcher.report('countries', request);
    await first;
    clock += 30_000;
    expect(fetcher.report('countries', request)).toBe(first); // within the minute: shared
    clock += HOUR;
    // At once, with no timer run in between: an hour later it is asked again.
    const later = fetcher.report('countries', request);
    expect(later).not.toBe(first);
    await later;
    expect(api.requests.filter((r) => r.path === '/countries')).toHaveLength(2);
  });

  it('a day younger than a few days is asked again once, when it is 3 days old: late visits are counted, and the re-check is told as a change', async () => {
    const repo = new TrendRepo(t.db);
    // 40 of Nov 19's visits reach the API a day late.
    api.glitches.push({ path: '/countries', startDate: '2026-11-19', missing: 40, until: new Date(NOON + DAY) });
    expect(await dayFigure(repo, '2026-11-19')).toBe(1_400);
    clock = NOON + 1.5 * DAY;
    api.requests.length = 0;
    expect(await dayFigure(repo, '2026-11-19')).toBe(1_400); // kept, provisional: not asked again yet
    expect(asked('/countries', '2026-11-19')).toBe(0);
    // Nov 19 ended at midnight UTC: 3 days and 10 minutes later it is asked once more.
    clock = new Date('2026-11-23T00:30:00Z').getTime();
    rechecks.length = 0;
    expect(await dayFigure(repo, '2026-11-19')).toBe(1_440);
    expect(rechecks).toContainEqual({ changed: true, periods: 1 });
    api.requests.length = 0;
    clock += DAY;
    expect(await dayFigure(repo, '2026-11-19')).toBe(1_440);
    expect(asked('/countries', '2026-11-19')).toBe(0); // final
  });

  it('a first read costs one request a period: served, kept provisionally, and asked again once 3 days after the read; found the same, it is final', async () => {
    const repo = new TrendRepo(t.db);
    const range = spec('2026-11-01..2026-11-10');
    const first = await service(repo).series(range);
    expect(first.current.values.every((v) => v === 1_440)).toBe(true);
    expect(api.requests).toHaveLength(20); // the 10 days and the 10 before
    expect(probes()).toEqual([]);
    expect(await kept(t.db, '2026-11-05')).toEqual({ value: 1_440, final: false, confirmed: false });
    api.requests.length = 0;
    clock = NOON + 3 * DAY - HOUR;
    await service(repo).series(range);
    expect(api.requests).toHaveLength(0);
    clock = NOON + 3 * DAY;
    rechecks.length = 0;
    expect((await service(repo).series(range)).current.values).toEqual(first.current.values);
    expect(api.requests).toHaveLength(20);
    expect(probes()).toEqual([]); // the same figure twice, three days apart: nothing more to ask
    expect(rechecks.filter((r) => !r.changed)).toHaveLength(20);
    expect(await kept(t.db, '2026-11-05')).toEqual({ value: 1_440, final: true, confirmed: true });
    api.requests.length = 0;
    clock += DAY;
    await service(repo).series(range);
    expect(api.requests).toHaveLength(0);
  });

  it('a first read with under half the visits of the days beside it (440 of 1,440) is asked again at once, whole, and kept final', async () => {
    const repo = new TrendRepo(t.db);
    api.glitches.push({ path: '/countries', startDate: '2026-11-05', missing: 1_000, times: 1 });
    const trend = await service(repo).series(spec('2026-11-01..2026-11-10'));
    expect(api.glitches).toEqual([]);
    expect(trend.current.values[4]).toBe(1_440);
    expect(asked('/countries', '2026-11-05')).toBe(3); // the first read, the read again, and the row past its end
    expect(probes()).toHaveLength(1);
    expect(await kept(t.db, '2026-11-05')).toEqual({ value: 1_440, final: true, confirmed: true });
  });

  it('a first read a little short (100 visits fewer, once) is charted as read but never kept for good: its re-check finds another figure, confirms it whole and keeps that', async () => {
    const repo = new TrendRepo(t.db);
    const range = spec('2026-11-01..2026-11-10');
    api.glitches.push({ path: '/countries', startDate: '2026-11-05', missing: 100, times: 1 });
    expect((await service(repo).series(range)).current.values[4]).toBe(1_340);
    expect(await kept(t.db, '2026-11-05')).toEqual({ value: 1_340, final: false, confirmed: false });
    clock = NOON + 3 * DAY;
    api.requests.length = 0;
    rechecks.length = 0;
    expect((await service(repo).series(range)).current.values[4]).toBe(1_440);
    expect(asked('/countries', '2026-11-05')).toBe(2); // read again, and the row past its end
    expect(rechecks).toContainEqual({ changed: true, periods: 1 });
    expect(await kept(t.db, '2026-11-05')).toEqual({ value: 1_440, final: true, confirmed: true });
  });

  it('what a watch judges by is confirmed whole: hours a chart read with a short page (1,200 of 1,440 visits) are asked for whole before values() gives them', async () => {
    const repo = new TrendRepo(t.db);
    const { trends, client, fetcher } = trendService(repo);
    const from = { account: client.account, fetcher };
    api.glitches.push({ path: '/visits', startDate: '2026-11-18', page: 2, keep: 200, times: 1 });
    const chart = await trends.series(from, spec('2026-11-18'));
    expect(chart.plan.grain).toBe('hour');
    expect(chart.current.total).toBe(1_200); // not under half of the day before: charted as read
    const { values, unsettled } = await trends.values(
      from,
      { report: 'visits', filters: [], metric: 'visits', timeZone: 'UTC' },
      chart.plan.buckets,
    );
    expect(values.reduce((a, b) => a + b, 0)).toBe(1_440);
    expect(values.every((v) => v === 60)).toBe(true);
    expect(unsettled).toEqual([]);
    expect(await kept(t.db, '2026-11-18T05')).toEqual({ value: 60, final: false, confirmed: true });
  });

  it('a failed page is never kept: the trend fails, nothing of its day is kept, and the next ask reads the day whole', async () => {
    const repo = new TrendRepo(t.db);
    api.glitches.push({ path: '/visits', startDate: '2026-11-18', page: 2, status: 500, times: 1 });
    await expect(service(repo).series(spec('2026-11-19'))).rejects.toThrow();
    expect(api.glitches).toEqual([]);
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM trend_points WHERE bucket LIKE '2026-11-18%'",
    );
    expect(rows[0]!.n).toBe(0);
    const again = await service(repo).series(spec('2026-11-19'));
    expect([again.current.total, again.previous.total]).toEqual([1_440, 1_440]);
  });
});
