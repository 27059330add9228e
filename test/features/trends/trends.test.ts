import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRepos, openRepos, type Repos } from '../../../src/compose.js';
import { REPORT_IDS, REPORTS, type ReportId } from '../../../src/kernel/catalog.js';
import { localDate, shiftDate } from '../../../src/kernel/dates.js';
import { resolveRange } from '../../../src/kernel/range-dates.js';
import type { FilterGroup } from '../../../src/kernel/filters.js';
import { fieldOf } from '../../../src/kernel/records.js';
import { trendSource, type TrendMetric } from '../../../src/kernel/trend.js';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { SharedFetcher } from '../../../src/platform/api/shared-fetcher.js';
import { memoryQuota } from '../../../src/platform/quota.js';
import { ofAccount, QueryRefsStub } from '../../support/trends.js';
import { TrendService, type TrendSpec } from '../../../src/features/trends/service.js';
import { TrendRepo } from '../../../src/features/trends/repo.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { captureLogs } from '../../support/log-capture.js';
import { describeEachDb } from '../../support/db.js';
import { allRows } from '../../support/paging.js';

const API_KEY = 'trend-test-key';
/** The demo data set is generated around this instant (120 days back); the app's clock starts here too. */
const DATA_NOW = new Date('2026-11-20T15:00:00Z');
const ZONE = 'Europe/Berlin';
/** The demo API counts its days in UTC. */
const API_DAYS = { timeZone: 'UTC', settleMs: 10 * 60_000 };

let demo: DemoApi;
const { logger } = captureLogs('warn');

beforeAll(async () => {
  demo = await startDemoApi({ apiKey: API_KEY, now: () => DATA_NOW });
});
afterAll(async () => {
  await demo?.close();
});
beforeEach(() => demo.setFaults({}));

function client(): AnalyticsApi {
  return new AnalyticsApi({ baseUrl: demo.url, apiKey: API_KEY, timeoutMs: 5_000, retry: { retries: 0 } });
}

/** A trend service as compose.ts builds it, over `repo`, with its own fetcher (a fresh process). */
function service(api: AnalyticsApi, repo: TrendRepo, now: () => Date = () => DATA_NOW, concurrency?: number) {
  const fetcher = new SharedFetcher(api);
  const trends = new TrendService({
    repo,
    refs: new QueryRefsStub(),
    timeZoneFor: async () => ZONE,
    now,
    demo: true,
    quota: memoryQuota({ points: 1_000, windowMs: 60_000 }),
    log: logger,
    apiDays: API_DAYS,
    ...(concurrency ? { concurrency } : {}),
  });
  return ofAccount(trends, api, fetcher);
}

function spec(report: ReportId, range: string, extra: Partial<TrendSpec> = {}, now = DATA_NOW): TrendSpec {
  const resolved = resolveRange(range, ZONE, now);
  if (!resolved.ok) throw new Error(resolved.error);
  return { report, filters: [], metric: 'visits', range: resolved.range, timeZone: ZONE, ...extra };
}

/** The report's own total over the same dates, summed from every row, straight from the demo API. */
async function reportTotal(
  api: AnalyticsApi,
  report: ReportId,
  startDate: string,
  endDate: string,
  filters: FilterGroup[],
  metric: TrendMetric,
): Promise<number> {
  const def = REPORTS[trendSource(report)];
  const { rows, complete } = await allRows(api, def.id, { startDate, endDate, filterGroups: filters });
  expect(complete).toBe(true);
  const field = metric === 'visits' ? def.countField! : (def.sortKeys.unique ?? 'unique_visitors');
  return rows.reduce((n, r) => n + (Number(fieldOf(r, field)) || 0), 0);
}

const calls = () => demo.requests.length;

/** Visits whose time falls on `day` in ZONE, from every visit of the API's days around it. */
async function visitsOnLocalDay(api: AnalyticsApi, day: string): Promise<number> {
  const { rows, complete } = await allRows(api, 'visits', {
    startDate: shiftDate(day, -1),
    endDate: shiftDate(day, 1),
  });
  expect(complete).toBe(true);
  return rows.filter((v) => localDate(new Date(String(fieldOf(v, 'date'))), ZONE) === day).length;
}

describe('a trend adds up to the report it charts', () => {
  let repos: Repos;
  let api: AnalyticsApi;
  beforeAll(async () => {
    repos = await openRepos({ memory: true });
    api = client();
  });
  afterAll(async () => {
    await api?.close();
    await repos?.close();
  });

  const RANGES = [
    'today',
    'yesterday',
    'last7d',
    'last30d',
    'last90d',
    'mtd',
    'lastmonth',
    'ytd',
    'all',
    '2026-09-01..2026-10-15',
    '2026-11-02',
  ];

  // Every report, each with a different kind of range; and every range for all visits.
  const cases: [ReportId, string][] = [
    ...REPORT_IDS.map((id, i): [ReportId, string] => [id, RANGES[i % RANGES.length]!]),
    ...RANGES.map((r): [ReportId, string] => ['visits', r]),
  ];

  it.each(cases)('%s over %s', async (report, range) => {
    const trend = await service(api, repos.trends).series(spec(report, range));
    const { plan } = trend;
    const expectedGrain =
      range === 'today' || range === 'yesterday' || range === '2026-11-02'
        ? 'hour'
        : ['ytd', 'all'].includes(range)
          ? 'week'
          : 'day';
    expect(plan.grain).toBe(expectedGrain);
    expect(trend.current.values).toHaveLength(plan.buckets.length);
    expect(trend.previous.values).toHaveLength(plan.previous.length);
    expect(plan.previous).toHaveLength(plan.buckets.length);
    // Hours are the zone's: they add up to the visits made on that day in the zone, counted here from /visits.
    const total = (day: string, to: string) =>
      plan.grain === 'hour' ? visitsOnLocalDay(api, day) : reportTotal(api, report, day, to, [], 'visits');
    expect(trend.current.total).toBe(await total(plan.range.startDate, plan.range.endDate));
    expect(trend.current.total).toBeGreaterThan(range === 'today' || range === 'all' ? -1 : 0);
    expect(trend.previous.total).toBe(await total(plan.previous[0]!.startDate, plan.previous.at(-1)!.endDate));
  });

  it('with row filters, by unique visitors: each day is the report for that day', async () => {
    const filters: FilterGroup[] = [
      { filters: [{ object: 'source', field: 'name', operator: 'is_any_of', value: ['google', 'direct'] }] },
    ];
    const trend = await service(api, repos.trends).series(spec('sources', 'last7d', { filters, metric: 'unique' }));
    expect(trend.current.values.some((v) => v > 0)).toBe(true);
    for (const [i, bucket] of trend.plan.buckets.entries()) {
      expect(trend.current.values[i]).toBe(
        await reportTotal(api, 'sources', bucket.startDate, bucket.endDate, filters, 'unique'),
      );
    }
    const visits = await service(api, repos.trends).series(spec('sources', 'last7d', { filters }));
    expect(visits.current.total).toBe(
      await reportTotal(api, 'sources', visits.plan.range.startDate, visits.plan.range.endDate, filters, 'visits'),
    );
    expect(visits.current.total).toBeLessThan(
      await reportTotal(api, 'sources', visits.plan.range.startDate, visits.plan.range.endDate, [], 'visits'),
    );
  });

  it('a store that cannot be read or written costs requests, not the answer: every period is fetched, and the failure is counted', async () => {
    const broken = await openRepos({ memory: true });
    await broken.close();
    const seen: Record<string, number> = {};
    const trends = new TrendService({
      repo: broken.trends,
      refs: new QueryRefsStub(),
      timeZoneFor: async () => ZONE,
      now: () => DATA_NOW,
      demo: true,
      quota: memoryQuota({ points: 1_000, windowMs: 60_000 }),
      log: logger,
      apiDays: API_DAYS,
      observe: (source, n) => (seen[source] = (seen[source] ?? 0) + n),
    });
    const trend = await ofAccount(trends, api, new SharedFetcher(api)).series(spec('visits', 'last7d'));
    const healthy = await service(api, repos.trends).series(spec('visits', 'last7d'));
    expect(trend.current.values).toEqual(healthy.current.values);
    expect(seen.api).toBe(14);
    expect(seen.store_error).toBeGreaterThanOrEqual(12); // the read (12 finished days) and each write
  });

  it('a range longer than 53 weeks charts its last 53 weeks, and says so', async () => {
    const trend = await service(api, repos.trends).series(spec('visits', 'all'));
    expect(trend.plan.clipped).toBe(true);
    expect(trend.plan.buckets).toHaveLength(53);
    expect(trend.plan.buckets.at(-1)!.endDate).toBe('2026-11-20');
  });
});

describeEachDb('periods over at the API are fetched once, and asked again once at their re-check', (t) => {
  let api: AnalyticsApi;
  beforeAll(() => {
    api = client();
  });
  afterAll(() => api?.close());

  it('a 30-day trend: 60 calls cold (59 days over at the API, one request each, and today), 0 again within the minute, 1 in a new process (today), 3 the next day (the day just over, the new today, and a young day asked again)', async () => {
    const repo = new TrendRepo(t.db);
    demo.resetRequests();
    const first = await service(api, repo).series(spec('visits', 'last30d'));
    expect(calls()).toBe(59 + 1);
    // No request for the row past a day's end: a first read is not checked whole.
    expect(
      demo.requests.filter((r) => (r.body as { pagination?: { limit?: number } }).pagination?.limit === 1),
    ).toEqual([]);
    expect(await repo.count()).toBe(2 * 59); // both metrics of every day over at the API: today is live

    demo.resetRequests();
    const same = service(api, repo);
    await same.series(spec('visits', 'last30d'));
    const again = await same.series(spec('visits', 'last30d'));
    expect(calls()).toBe(1); // a fresh process: only today, live
    expect(again.current.values).toEqual(first.current.values);
    demo.resetRequests();
    await same.series(spec('visits', 'last30d'));
    expect(calls()).toBe(0); // within the minute: today is shared too

    const tomorrow = new Date(DATA_NOW.getTime() + 86_400_000);
    demo.resetRequests();
    const next = await service(api, repo, () => tomorrow).series(spec('visits', 'last30d', {}, tomorrow));
    expect(calls()).toBe(3);
    // Nov 17 was kept 2 days after it ended: 3 days after, it is asked once more, and found the same.
    expect(new Set(demo.requests.map((r) => r.query['start_date']))).toEqual(
      new Set(['2026-11-17', '2026-11-20', '2026-11-21']),
    );
    // The days shift by one; the day that was live yesterday is now over and kept.
    expect(next.current.values.slice(0, 28)).toEqual(first.current.values.slice(1, 29));
  });

  it('what the cache keys on: the same days in another zone, with other filters, or for another report are fetched anew', async () => {
    const repo = new TrendRepo(t.db);
    await service(api, repo).series(spec('countries', 'last7d'));
    for (const changed of [
      { timeZone: 'America/New_York' },
      {
        filters: [
          { filters: [{ object: 'country', field: 'name', operator: 'is_any_of' as const, value: ['Germany'] }] },
        ],
      },
      { report: 'sources' as const },
    ]) {
      demo.resetRequests();
      await service(api, repo).series({ ...spec('countries', 'last7d'), ...changed });
      expect(calls(), JSON.stringify(changed)).toBe(13 + 1);
    }
    // Visits and visitors are summed from countries: the same kept days serve them.
    demo.resetRequests();
    await service(api, repo).series(spec('visitors', 'last7d', { metric: 'unique' }));
    expect(calls()).toBe(1);
  });

  it('kept periods belong to an analytics account: another account fetches anew, the same account (however its URL is written) shares them', async () => {
    const repo = new TrendRepo(t.db);
    await service(api, repo).series(spec('countries', 'last7d'));
    // The same account, its URL with a trailing slash: nothing asked again.
    demo.resetRequests();
    const same = new AnalyticsApi({
      baseUrl: `${demo.url}/`,
      apiKey: API_KEY,
      timeoutMs: 5_000,
      retry: { retries: 0 },
    });
    expect(same.account).toBe(api.account);
    await service(same, repo).series(spec('countries', 'last7d'));
    expect(calls()).toBe(1);
    // Another account (its own key, at its own address) over the same store: every period fetched from it.
    const other = await startDemoApi({ apiKey: 'another-account-key', now: () => DATA_NOW });
    try {
      const theirs = new AnalyticsApi({
        baseUrl: other.url,
        apiKey: 'another-account-key',
        timeoutMs: 5_000,
        retry: { retries: 0 },
      });
      expect(theirs.account).not.toBe(api.account);
      await service(theirs, repo).series(spec('countries', 'last7d'));
      expect(other.requests.length).toBe(13 + 1);
    } finally {
      await other.close();
    }
  });

  it('two trends asking for the same days at once fetch each day once', async () => {
    const repo = new TrendRepo(t.db);
    const svc = service(api, repo);
    demo.resetRequests();
    const [a, b] = await Promise.all([svc.series(spec('devices', 'last30d')), svc.series(spec('devices', 'last30d'))]);
    expect(a.current.values).toEqual(b.current.values);
    expect(calls()).toBe(59 + 1);
  });

  it('a fill cut off half-way keeps what it fetched; the next process fetches only the rest and gets the same figures', async () => {
    const repo = new TrendRepo(t.db);
    demo.setFaults({ latencyMs: 5 });
    demo.resetRequests();
    // The first process loses its API client half-way, as a process that dies does.
    const dying = client();
    const outcome = service(dying, repo, () => DATA_NOW, 2)
      .series(spec('browsers', 'last90d'))
      .then(
        () => 'finished',
        (error: Error) => error.message,
      );
    while (calls() < 120) await new Promise((r) => setTimeout(r, 5));
    await dying.close();
    expect(await outcome).toMatch(/analytics API is unavailable/);
    await new Promise((r) => setTimeout(r, 100)); // what was queued behind it fails at once
    const kept = (await repo.count()) / 2;
    expect(kept).toBeGreaterThanOrEqual(55);
    expect(kept).toBeLessThan(179);

    demo.setFaults({});
    demo.resetRequests();
    const resumed = await service(api, repo).series(spec('browsers', 'last90d'));
    expect(calls()).toBe(179 - kept + 1);
    const fresh = await service(api, new TrendRepo(createRepos(t.db).db)).series(spec('browsers', 'last90d'));
    expect(resumed.current.values).toEqual(fresh.current.values);
    expect(resumed.previous.values).toEqual(fresh.previous.values);
  });

  it('runs at most `concurrency` requests at once', async () => {
    const repo = new TrendRepo(t.db);
    demo.setFaults({ latencyMs: 40 });
    const started = Date.now();
    await service(api, repo, () => DATA_NOW, 3).series(spec('os', 'last7d'));
    // 14 requests, 3 at a time, 40 ms each: at least 5 rounds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * 40 - 10);
  });
});
