/**
 * What evaluating watches costs: 200 watches over 20 distinct questions (5 reports × 4
 * filter sets, each asked by 10 watches with different conditions: thresholds, a change
 * against the day before, a spike against the 4 weeks before). Everything real but the
 * data: the demo API in its own process (10 ms a request), the API client, SharedFetcher,
 * TrendService, WatchObserver and WatchEvaluator as the app wires them, PGlite in memory.
 *
 * - the first evaluation: an empty store (the days behind a change or a spike are fetched too);
 * - the next day's, and a month in: finished days are kept, so once a spike's baseline
 *   days (7, 14, 21 and 28 days back) have passed through the store, each question costs
 *   its new day;
 * - the floor: one request per distinct question, made directly, in the same run.
 *
 * Then what explaining an alert costs (issue 30): for a spike watch on all visits, hourly and
 * daily, the API calls of the watch's evaluation alone (empty store), of its explanation cold
 * (a new process's fetcher and store: nothing shared) and warm (right after the evaluation,
 * as the app runs it: the same fetcher within its minute and the same store).
 *
 * Run: npm run bench -- watches   (BENCH_ROUNDS overrides 3)
 */
import { AnalyticsApi } from '../src/platform/api/analytics.js';
import { SharedFetcher } from '../src/platform/api/shared-fetcher.js';
import { openRepos } from '../src/compose.js';
import { decodeQuery, encodeQuery, type ReportQuery } from '../src/kernel/query.js';
import { REPORTS, type ReportId } from '../src/kernel/catalog.js';
import { shiftDate, localDate } from '../src/kernel/dates.js';
import type { FilterGroup } from '../src/kernel/filters.js';
import { TrendService } from '../src/features/trends/service.js';
import { WatchObserver } from '../src/features/watches/observe.js';
import { WatchEvaluator } from '../src/features/watches/evaluator.js';
import { WatchExplainer } from '../src/features/watches/explainer.js';
import { lastPeriod } from '../src/features/watches/period.js';
import type { Condition, WatchRule } from '../src/features/watches/plan.js';
import { memoryQuota } from '../src/platform/quota.js';
import { createLogger } from '../src/platform/log.js';
import { median, peakRssMb, spawnDemoApi } from './stats.js';

/** The demo API counts its days in UTC; its figures settle at once. */
const API_DAYS = { timeZone: 'UTC', settleMs: 60_000 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const KEY = 'bench-watches';
const ZONE = 'UTC';
const log = createLogger({ level: 'silent' });
const demo = await spawnDemoApi({ DEMO_API_KEY: KEY, DEMO_API_LATENCY_MS: '10' });

const is = (object: string, value: string): FilterGroup[] => [
  { filters: [{ object, field: 'name', operator: 'is_any_of', value: [value] }] },
];
const FILTER_SETS: FilterGroup[][] = [
  [],
  is('country', 'Germany'),
  is('country', 'United States'),
  is('browser', 'Chrome'),
];
const REPORT_SET: ReportId[] = ['sources', 'pages', 'countries', 'browsers', 'devices'];
const CONDITIONS: Condition[] = [
  { kind: 'above', value: 50 },
  { kind: 'above', value: 500 },
  { kind: 'below', value: 10 },
  { kind: 'below', value: 100 },
  { kind: 'above', value: 5000 },
  { kind: 'below', value: 1 },
  { kind: 'change', direction: 'drops', pct: 40, against: 'previous' },
  { kind: 'change', direction: 'rises', pct: 50, against: 'previous' },
  { kind: 'spike' },
  { kind: 'spike' },
];
const rules: WatchRule[] = REPORT_SET.flatMap((report) =>
  FILTER_SETS.flatMap((filters) =>
    CONDITIONS.map((condition) => ({ metric: 'visits' as const, report, filters, condition, every: 'day' as const })),
  ),
);

const refs = {
  ref: async (_team: string, q: ReportQuery) => encodeQuery(q),
  resolve: async (_team: string, r: string | undefined) => (r ? decodeQuery(r, REPORTS) : null),
};
const rows: Record<string, { calls: number[]; ms: number[] }> = {};
const record = (name: string, calls: number, ms: number) => {
  rows[name] ??= { calls: [], ms: [] };
  rows[name].calls.push(calls);
  rows[name].ms.push(ms);
};

/** A store in memory, the API client, its shared fetcher and the trend service, as the app wires them, at `now`. */
async function wired(now: () => Date) {
  const repos = await openRepos({ memory: true });
  const api = new AnalyticsApi({ baseUrl: demo.url, apiKey: KEY, timeoutMs: 10_000 });
  const fetcher = new SharedFetcher(api, { now });
  const trends = new TrendService({
    repo: repos.trends,
    refs,
    timeZoneFor: async () => ZONE,
    now,
    demo: true,
    quota: memoryQuota({ points: 1e6, windowMs: 60_000 }),
    apiDays: API_DAYS,
    log,
  });
  return { repos, api, fetcher, trends };
}

// A month ago: the demo API's data set holds every day from then to now, so each simulated day has its visits.
const today = new Date(Date.now() - 30 * 86_400_000);
for (let round = 0; round < ROUNDS; round++) {
  let clock = today;
  const { repos, api, fetcher, trends } = await wired(() => clock);
  const evaluator = new WatchEvaluator({
    db: repos.db,
    tenants: { of: async (team) => ({ team, account: 'bench', api, fetcher }) },
    observer: new WatchObserver({
      trends,
      flagged: { judged: async () => undefined },
      apiDays: API_DAYS,
      log,
    }),
    apiDays: API_DAYS,
    owner: 'bench',
    now: () => clock,
    log,
    queued: () => {},
    demo: true,
    spreadMs: { hour: 0, day: 0 },
  });
  for (const rule of rules)
    await repos.watches.create({ teamId: 'T', channelId: `C${rule.report}`, ownerId: 'U', rule, timeZone: ZONE });

  // The floor: each distinct question once (yesterday's rows of each report and filter set).
  const yesterday = shiftDate(localDate(clock, ZONE)!, -1);
  let started = performance.now();
  const floorApi = new AnalyticsApi({ baseUrl: demo.url, apiKey: KEY, timeoutMs: 10_000 });
  await Promise.all(
    REPORT_SET.flatMap((report) =>
      FILTER_SETS.map((filterGroups) =>
        floorApi.report(report, { startDate: yesterday, endDate: yesterday, filterGroups, limit: 1000 }),
      ),
    ),
  );
  record('floor: the 20 distinct questions, once each', floorApi.http.stats.attempts, performance.now() - started);
  await floorApi.close();

  started = performance.now();
  const evaluated = await evaluator.tick();
  if (evaluated !== rules.length) throw new Error(`evaluated ${evaluated} of ${rules.length}`);
  record('first evaluation of 200 watches (empty store)', api.http.stats.attempts, performance.now() - started);

  // Day by day for a month: a spike's baseline days (7 to 28 days back) become kept days as the days go by.
  for (let day = 1; day <= 29; day++) {
    clock = new Date(today.getTime() + day * 86_400_000);
    const before = api.http.stats.attempts;
    started = performance.now();
    await evaluator.tick();
    if (day === 1)
      record(
        'the next day (a spike’s baseline days are new)',
        api.http.stats.attempts - before,
        performance.now() - started,
      );
    if (day === 29)
      record(
        'a month in (every day behind the watches kept)',
        api.http.stats.attempts - before,
        performance.now() - started,
      );
  }
  await api.close();
  await repos.close();
}

// What an explanation costs, against the watch alone.
const explained: Record<string, { watch: number[]; cold: number[]; warm: number[]; ms: number[] }> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const every of ['hour', 'day'] as const) {
    const rule: WatchRule = { metric: 'visits', report: 'visits', filters: [], condition: { kind: 'spike' }, every };
    const clock = new Date(Date.now() - 2 * 86_400_000);
    const period = lastPeriod(every, ZONE, clock, API_DAYS)!;
    const setUp = async () => {
      const { repos, api, fetcher, trends } = await wired(() => clock);
      const observer = new WatchObserver({
        trends,
        // The scan is on and has judged nobody: verdicts come from the store, never from the API.
        flagged: { judged: async () => ({ checked: new Set<string>(), flagged: new Set<string>() }) },
        apiDays: API_DAYS,
        log,
      });
      const tenant = { team: 'T', account: 'bench', api, fetcher };
      const close = async () => {
        await api.close();
        await repos.close();
      };
      return { api, observer, explainer: new WatchExplainer(observer), tenant, close };
    };
    const row = (explained[every] ??= { watch: [], cold: [], warm: [], ms: [] });
    const warm = await setUp();
    const observation = await warm.observer.observe(warm.tenant, rule, period, ZONE);
    if (!observation.ok) throw new Error(`the ${every} watch did not evaluate: ${observation.error}`);
    row.watch.push(warm.api.http.stats.attempts);
    let before = warm.api.http.stats.attempts;
    const started = performance.now();
    await warm.explainer.explain(warm.tenant, rule, period, ZONE);
    row.ms.push(performance.now() - started);
    row.warm.push(warm.api.http.stats.attempts - before);
    await warm.close();
    const cold = await setUp();
    before = cold.api.http.stats.attempts;
    await cold.explainer.explain(cold.tenant, rule, period, ZONE);
    row.cold.push(cold.api.http.stats.attempts - before);
    await cold.close();
  }
}
demo.stop();

const floor = median(rows['floor: the 20 distinct questions, once each']!.ms);
console.log(
  `\nWatches: 200 watches over 20 distinct questions; medians of ${ROUNDS} rounds; demo API in its own process, 10 ms a request; peak RSS ${peakRssMb().toFixed(0)} MB`,
);
console.log('| case | API calls | time | ÷ floor |');
console.log('|---|---|---|---|');
for (const [name, r] of Object.entries(rows)) {
  const t = median(r.ms);
  console.log(`| ${name} | ${median(r.calls)} | ${t.toFixed(0)} ms | ${(t / floor).toFixed(1)}× |`);
}

console.log(`\nExplaining a spike alert on all visits (what moved, who moved it); medians of ${ROUNDS} rounds`);
console.log(
  '| watch | the watch alone (empty store) | explanation, warm (right after it) | explanation, cold | warm ÷ the watch | warm time |',
);
console.log('|---|---|---|---|---|---|');
for (const [every, r] of Object.entries(explained)) {
  console.log(
    `| every ${every} | ${median(r.watch)} | ${median(r.warm)} | ${median(r.cold)} | ${(median(r.warm) / median(r.watch)).toFixed(2)}× | ${median(r.ms).toFixed(0)} ms |`,
  );
}
