/**
 * The API client's overhead: the same calls through AnalyticsApi (validation,
 * retries, limiter, single-flight) and through a bare undici request + JSON.parse,
 * against the demo API on loopback. Run: npm run bench -- api-client
 */
import { Pool } from 'undici';
import { AnalyticsApi } from '../src/platform/api/analytics.js';
import { REPORTS, type ReportId } from '../src/kernel/catalog.js';
import { ms, runLoad, spawnDemoApi, type LoadResult } from './stats.js';

const KEY = 'bench-key';
const PAGE_SIZE = 1000;
const CONCURRENCY = 8;
const CALLS = Number(process.env.BENCH_CALLS ?? 600);
const RANGE = { startDate: '2000-01-01', endDate: '2100-01-01' };

const demo = await spawnDemoApi({ DEMO_API_KEY: KEY });
const api = new AnalyticsApi({ baseUrl: demo.url, apiKey: KEY, maxConcurrency: CONCURRENCY });
const pool = new Pool(demo.url, { connections: CONCURRENCY });

/** Call i of a run: distinct page/sort combinations, so single-flight never merges concurrent calls. */
function call(id: ReportId, i: number): { page: number; sort: { key: string; value: 1 | -1 } } {
  const pages = id === 'visits' ? 30 : 3;
  const keys = id === 'visits' ? ['created'] : ['first_seen', 'last_seen', 'id'];
  const page = (i % pages) + 1;
  const combo = Math.floor(i / pages);
  return { page, sort: { key: keys[combo % keys.length]!, value: combo % 2 === 0 ? -1 : 1 } };
}

function bare(id: ReportId, i: number): Promise<unknown> {
  const { page, sort } = call(id, i);
  return pool
    .request({
      method: 'POST',
      path: REPORTS[id].path,
      query: { start_date: RANGE.startDate, end_date: RANGE.endDate },
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({
        filter_groups: [],
        pagination: { current_page: page, limit: PAGE_SIZE },
        sort_params: sort,
      }),
    })
    .then(async ({ statusCode, body }) => {
      const json: unknown = JSON.parse(await body.text());
      if (statusCode !== 200 || !Array.isArray(json)) throw new Error(`HTTP ${statusCode}`);
      return json as unknown[];
    });
}

function viaClient(id: ReportId, i: number): Promise<unknown> {
  const { page, sort } = call(id, i);
  return api.report(id, { ...RANGE, page, limit: PAGE_SIZE, sort });
}

function line(name: string, r: LoadResult): string {
  const failed = r.failures > 0 ? ` (first: ${r.firstError})` : '';
  return `${name.padEnd(8)} ${r.perSecond.toFixed(0).padStart(6)} req/s   p50 ${ms(r.p50).padStart(10)}   p99 ${ms(r.p99).padStart(10)}   CPU per call ${ms(r.cpuPerTask)}   failures ${r.failures}${failed}`;
}

const ROUNDS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function summary(runs: LoadResult[]): LoadResult {
  return {
    count: runs.reduce((n, r) => n + r.count, 0),
    failures: runs.reduce((n, r) => n + r.failures, 0),
    seconds: runs.reduce((n, r) => n + r.seconds, 0),
    perSecond: median(runs.map((r) => r.perSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    firstError: runs.find((r) => r.firstError)?.firstError,
    cpuPerTask: median(runs.map((r) => r.cpuPerTask)),
  };
}

console.log(
  `api-client: ${ROUNDS} interleaved rounds of ${CALLS} calls each way, ${CONCURRENCY} concurrent, ` +
    `${PAGE_SIZE}-row pages, demo API in its own process on loopback (medians of the rounds)`,
);
for (const id of ['visits', 'visitors'] as const) {
  // Warm both paths (JIT, connections, the demo API's cache) before measuring.
  await runLoad(100, CONCURRENCY, (i) => bare(id, i));
  await runLoad(100, CONCURRENCY, (i) => viaClient(id, i));
  const bareRuns: LoadResult[] = [];
  const clientRuns: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bareRuns.push(await runLoad(CALLS, CONCURRENCY, (i) => bare(id, i)));
    clientRuns.push(await runLoad(CALLS, CONCURRENCY, (i) => viaClient(id, i)));
  }
  const b = summary(bareRuns);
  const c = summary(clientRuns);
  console.log(`\n/${id}`);
  console.log(line('bare', b));
  console.log(line('client', c));
  console.log(
    `client/bare: p50 ${(c.p50 / b.p50).toFixed(2)}×, p99 ${(c.p99 / b.p99).toFixed(2)}×, throughput ${(c.perSecond / b.perSecond).toFixed(2)}×; ` +
      `the client adds ${ms(c.cpuPerTask - b.cpuPerTask)} of CPU per call (validation, retries, limiter, single-flight)`,
  );
}

await api.close();
await pool.close();
demo.stop();
