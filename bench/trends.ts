/**
 * What trends cost: API calls and time for a cold and a warm 90-day trend, and for 50
 * digests rendered with their charts. Everything real but the data: the demo API in its
 * own process (10 ms a request, as a nearby API), the API client, the SharedFetcher,
 * TrendService and DigestContent as compose.ts wires them, PGlite in memory.
 *
 * - cold: an empty store; every day of the 90 and of the 90 before is fetched.
 * - warm, new process: the store holds every finished day; a new service (empty caches)
 *   fetches only today.
 * - warm, same process: within the minute, nothing is fetched.
 * - floor: one request for the whole 90 days (what a one-page report costs), measured in
 *   the same run; the time ratios are against it.
 * - requests' floor: one request per period and series (each of the 90 days and the 90
 *   before asked once, straight from the API client, 6 at a time), measured in the same
 *   round; the cold trend's requests are printed beside it, with the ratio (median and
 *   spread over the rounds).
 * - re-check: the same 90 days 3 days later, a new process over the same store (each first
 *   read asked again once, to confirm it).
 * - 50 digests (weekly, 5 filter sets × sources/pages/countries/browsers): rendered with
 *   charts and without (the same content, no TrendService), cold store, then again warm.
 *
 * Run: npm run bench -- trends   (BENCH_ROUNDS overrides 5)
 */
import { AnalyticsApi } from '../src/platform/api/analytics.js';
import { SharedFetcher } from '../src/platform/api/shared-fetcher.js';
import { openRepos, type Repos } from '../src/compose.js';
import { resolveRange } from '../src/kernel/range-dates.js';
import type { FilterGroup } from '../src/kernel/filters.js';
import type { ReportId } from '../src/kernel/catalog.js';
import { encodeQuery, decodeQuery, type ReportQuery } from '../src/kernel/query.js';
import { REPORTS } from '../src/kernel/catalog.js';
import { TrendService } from '../src/features/trends/service.js';
import { DigestContent } from '../src/features/digests/content.js';
import type { Digest } from '../src/features/digests/repo.js';
import { memoryQuota } from '../src/platform/quota.js';
import { createLogger } from '../src/platform/log.js';
import pLimit from 'p-limit';
import { planTrend } from '../src/kernel/trend.js';
import { median, spawnDemoApi } from './stats.js';

/** The demo API counts its days in UTC; its figures settle at once. */
const API_DAYS = { timeZone: 'UTC', settleMs: 60_000 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const KEY = 'bench-trends';
const ZONE = 'Europe/Berlin';
const log = createLogger({ level: 'silent' });

const demo = await spawnDemoApi({ DEMO_API_KEY: KEY, DEMO_API_LATENCY_MS: '10' });
const now = new Date();
const range = (() => {
  const r = resolveRange('last90d', ZONE, now);
  if (!r.ok) throw new Error(r.error);
  return r.range;
})();

const refs = {
  ref: async (_team: string, q: ReportQuery) => encodeQuery(q),
  resolve: async (_team: string, ref: string | undefined) => (ref ? decodeQuery(ref, REPORTS) : null),
};

/** A fresh process's view: its own API client, fetcher and service, over `repos`, its clock at `at`. */
function world(repos: Repos, at = now) {
  const api = new AnalyticsApi({ baseUrl: demo.url, apiKey: KEY, timeoutMs: 10_000 });
  const fetcher = new SharedFetcher(api);
  const trends = new TrendService({
    repo: repos.trends,
    refs,
    timeZoneFor: async () => ZONE,
    now: () => at,
    demo: true,
    quota: memoryQuota({ points: 1e6, windowMs: 60_000 }),
    apiDays: API_DAYS,
    log,
  });
  return { api, fetcher, trends, source: { account: api.account, fetcher } };
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

const spec = {
  report: 'visits' as ReportId,
  filters: [] as FilterGroup[],
  metric: 'visits' as const,
  range,
  timeZone: ZONE,
};
/** The periods a 90-day trend sums, each one request: the floor of its requests. */
const plan = planTrend(range);
const periods = [...plan.buckets, ...plan.previous];
const perPeriod: { floor: number[]; cold: number[] } = { floor: [], cold: [] };
const rows: Record<string, { calls: number[]; ms: number[] }> = {};
const record = (name: string, calls: number, ms: number) => {
  rows[name] ??= { calls: [], ms: [] };
  rows[name].calls.push(calls);
  rows[name].ms.push(ms);
};

for (let round = 0; round < ROUNDS; round++) {
  const repos = await openRepos({ memory: true });
  const first = world(repos);
  const floor = await timed(() =>
    first.api.report('countries', { startDate: range.startDate, endDate: range.endDate, limit: 1000 }),
  );
  record('floor: one request for the 90 days', 1, floor.ms);
  const direct = world(repos);
  const limit = pLimit(6);
  const each = await timed(() =>
    Promise.all(
      periods.map((b) =>
        limit(() => direct.api.report('countries', { startDate: b.startDate, endDate: b.endDate, limit: 1000 })),
      ),
    ),
  );
  record('floor: one request per period and series (180 days, 6 at a time)', direct.api.http.stats.attempts, each.ms);
  perPeriod.floor.push(direct.api.http.stats.attempts);
  await direct.api.close();
  const before = first.api.http.stats.attempts;
  const cold = await timed(() => first.trends.series(first.source, spec));
  record('90-day trend, cold', first.api.http.stats.attempts - before, cold.ms);
  perPeriod.cold.push(first.api.http.stats.attempts - before);
  const same = await timed(() => first.trends.series(first.source, spec));
  record(
    '90-day trend, warm, same process',
    first.api.http.stats.attempts - before - (rows['90-day trend, cold']!.calls.at(-1) ?? 0),
    same.ms,
  );
  await first.api.close();
  const second = world(repos);
  const warm = await timed(() => second.trends.series(second.source, spec));
  record('90-day trend, warm, new process', second.api.http.stats.attempts, warm.ms);
  await second.api.close();
  const later = world(repos, new Date(now.getTime() + 3 * 86_400_000 + 60_000));
  const recheck = await timed(() => later.trends.series(later.source, spec));
  record('the same 90 days 3 days later, new process (re-checks)', later.api.http.stats.attempts, recheck.ms);
  await later.api.close();
  await repos.close();
}

// ---- 50 digests with charts ------------------------------------------------------------

const is = (object: string, value: string): FilterGroup[] => [
  { filters: [{ object, field: 'name', operator: 'is_any_of', value: [value] }] },
];
const FILTER_SETS: FilterGroup[][] = [
  [],
  is('country', 'Germany'),
  is('country', 'United States'),
  is('country', 'France'),
  is('browser', 'Chrome'),
];
const REPORT_SETS: ReportId[][] = [
  ['sources'],
  ['pages'],
  ['countries', 'browsers'],
  ['sources', 'pages'],
  ['browsers'],
];
const digests: Digest[] = Array.from({ length: 50 }, (_, i) => ({
  id: i + 1,
  teamId: 'T',
  channelId: `C${i}`,
  ownerId: 'U',
  reports: REPORT_SETS[Math.floor(i / 5) % 5]!,
  filters: FILTER_SETS[i % 5]!,
  topN: 5,
  period: 'week',
  schedule: { kind: 'weekly', weekday: 1, time: '09:00' },
  cron: '0 9 * * 1',
  timeZone: ZONE,
  paused: false,
  createdAt: now,
  updatedAt: now,
}));
const flagged = { seen: async () => undefined, judged: async () => undefined };

for (let round = 0; round < ROUNDS; round++) {
  for (const charts of [false, true]) {
    const repos = await openRepos({ memory: true });
    const w = world(repos);
    const tenant = { team: 'T_BENCH', account: w.api.account, fetcher: w.fetcher };
    const content = new DigestContent({
      ...(charts ? { trends: w.trends } : {}),
      flagged,
      apiZone: API_DAYS.timeZone,
      demo: true,
      log,
    });
    const cold = await timed(() => Promise.all(digests.map((d) => content.render(tenant, d, now, false))));
    record(`50 weekly digests ${charts ? 'with charts' : 'without charts'}, cold`, w.api.http.stats.attempts, cold.ms);
    await w.api.close();
    const next = world(repos);
    const nextTenant = { team: 'T_BENCH', account: next.api.account, fetcher: next.fetcher };
    const again = new DigestContent({
      ...(charts ? { trends: next.trends } : {}),
      flagged,
      apiZone: API_DAYS.timeZone,
      demo: true,
      log,
    });
    const warm = await timed(() => Promise.all(digests.map((d) => again.render(nextTenant, d, now, false))));
    record(
      `50 weekly digests ${charts ? 'with charts' : 'without charts'}, store warm, new process`,
      next.api.http.stats.attempts,
      warm.ms,
    );
    await next.api.close();
    await repos.close();
  }
}
demo.stop();

const floorMs = median(rows['floor: one request for the 90 days']!.ms);
console.log(
  `\nTrends: medians of ${ROUNDS} rounds; demo API in its own process, 10 ms a request; ratios against the floor (${floorMs.toFixed(1)} ms)`,
);
console.log('| case | API calls | time | ÷ floor |');
console.log('|---|---|---|---|');
for (const [name, r] of Object.entries(rows)) {
  const t = median(r.ms);
  console.log(`| ${name} | ${median(r.calls)} | ${t.toFixed(1)} ms | ${(t / floorMs).toFixed(1)}× |`);
}

const spread = (xs: number[], digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const ratios = perPeriod.cold.map((n, i) => n / perPeriod.floor[i]!);
const coldMs = rows['90-day trend, cold']!.ms;
const eachMs = rows['floor: one request per period and series (180 days, 6 at a time)']!.ms;
console.log(
  `\nA cold 90-day trend against one request per period and series, each round's floor measured in it; median (min–max) of ${ROUNDS} rounds`,
);
console.log('| | cold 90-day trend | floor: one per period and series | ÷ floor | aim |');
console.log('|---|---|---|---|---|');
console.log(
  `| requests | ${spread(perPeriod.cold)} | ${spread(perPeriod.floor)} | ${spread(ratios, 2)}× | ≤ 1.1×: ${median(ratios) <= 1.1 ? 'met' : 'missed'} |`,
);
console.log(
  `| time (ms) | ${spread(coldMs, 1)} | ${spread(eachMs, 1)} | ${spread(
    coldMs.map((t, i) => t / eachMs[i]!),
    2,
  )}× | — |`,
);
