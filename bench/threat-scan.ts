/**
 * One threat scan after a busy minute: 10,000 new visits by 2,000 distinct visitors.
 * Everything real but the data: the demo API in its own process with 10 ms added to
 * every answer (DEMO_API_LATENCY_MS) and the new visits made in that process
 * (DEMO_API_EXTRA_VISITS: the newest 10,000 visits, spread over the minute before
 * DEMO_API_NOW, by 2,000 generated visitors with their generated security profiles),
 * a real AnalyticsApi (its default concurrency of 8, as the app runs it), PGlite in
 * memory, a subscription for all four checks at medium severity or more, the offline
 * Slack (rate limits off) reached by a @slack/web-api WebClient, and a ThreatScan
 * whose watermark is set 1 ms after the minute begins, just before the first new visit.
 *
 * Figures: visits and visitors found; calls per path (counted in this process as the
 * AnalyticsApi's HttpClient is called, plus its attempts on the wire); the scan time;
 * peak RSS of this process (the demo data lives in the other one), and what the scan
 * itself added (resident set and JS heap sampled every 20 ms); alerts posted.
 * Then two more scans: the next one (nothing new), and one over the same minute again
 * (watermark put back: the same 2,000 visitors seen again), whose security answers
 * must all come from the store's cache within ALERT_RECHECK_AFTER: 0 security calls.
 *
 * Aims: ≤ 2,000 security calls per enabled check (one per visitor, never per visit),
 * < 200 MB of memory for the scan, and the whole bench within ~2 minutes. The process
 * as a whole peaks far higher: PGlite (PostgreSQL compiled to WASM) costs some 650 MB
 * of resident memory just to open, before anything is stored; the bench prints both.
 * Run: npm run bench -- threat-scan   (BENCH_VISITS, BENCH_VISITORS, BENCH_LATENCY_MS override 10000, 2000, 10)
 */
import { randomBytes } from 'node:crypto';
import { LogLevel, WebClient } from '@slack/web-api';
import { AnalyticsApi } from '../src/platform/api/analytics.js';
import { ThreatScan, type ScanResult } from '../src/features/threats/scan.js';
import { createLogger } from '../src/platform/log.js';
import { startOfflineSlack } from '@lookout/sandbox/slack';
import { openRepos } from '../src/compose.js';
import type { AlertCheck as CheckName } from '../src/kernel/verdict.js';
import { webPoster } from '../src/platform/slack/poster.js';
import { DeliveryWorker } from '../src/platform/deliveries/worker.js';
import { ALERT_SUBJECTS } from '../src/features/alerts/deliveries.js';
import { AlertReader } from '../src/features/alerts/index.js';
import { Subjects } from '../src/platform/deliveries/subject.js';
import { peakRssMb, spawnDemoApi } from './stats.js';

const VISITS = Number(process.env.BENCH_VISITS ?? 10_000);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 2_000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 10);
const KEY = 'bench-threat-scan';
const CHANNEL = 'C_SECURITY';
const CHECKS: CheckName[] = ['bot', 'scraping', 'vpn', 'extensions'];
const PER_CHECK_PATH: Record<CheckName, string> = {
  bot: '/security/bot-status',
  scraping: '/security/scraping-status',
  vpn: '/security/vpn-status',
  extensions: '/security/scraping-extensions-status',
};
const RSS_AIM_MB = 200;
const MINUTE = 60_000;

const log = createLogger({ level: 'silent' });
const started = performance.now();
const say = (text: string) =>
  console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${text}`);
const n = (x: number) => x.toLocaleString('en-US');

// ---- the demo API, with the busy minute in its own process -----------------------------------

/** The demo data's "now": the new visits are dated over (at − 60 s, at], every generated one at or before at − 60 s. */
const at = new Date(Math.floor(Date.now() / 1000) * 1000);
const watermark = new Date(at.getTime() - MINUTE + 1);
const demo = await spawnDemoApi({
  DEMO_API_KEY: KEY,
  DEMO_API_NOW: at.toISOString(),
  DEMO_API_EXTRA_VISITS: `${VISITS}:${VISITORS}`,
  DEMO_API_LATENCY_MS: String(LATENCY_MS),
});
say(
  `demo API in its own process at ${demo.url}: ${n(VISITS)} visits by ${n(VISITORS)} visitors over the minute before ${at.toISOString()}, ${LATENCY_MS} ms added to every answer`,
);

// ---- the app's parts ----------------------------------------------------------------------------

const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-bench-${randomBytes(12).toString('hex')}`;
const slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: false });
const web = new WebClient(botToken, { slackApiUrl: slack.apiUrl, logLevel: LogLevel.ERROR });

/** ANALYTICS_MAX_CONCURRENCY's default: calls in flight at once, across the threat scan's 16 visitors × 4 checks. */
const CLIENT_CONCURRENCY = 8;
const api = new AnalyticsApi({
  baseUrl: demo.url,
  apiKey: KEY,
  timeoutMs: 20_000,
  maxConcurrency: CLIENT_CONCURRENCY,
  logger: log,
});
/** Calls made through the HttpClient, by path (security paths without the visitor id). */
const calls = new Map<string, number>();
const pathOf = (path: string) => (path.startsWith('/security/') ? path.split('/').slice(0, 3).join('/') : path);
const count = (path: string) => calls.set(pathOf(path), (calls.get(pathOf(path)) ?? 0) + 1);
const http = api.http;
const realGet = http.get.bind(http);
const realPost = http.post.bind(http);
http.get = (path, query, schema) => (count(path), realGet(path, query, schema));
http.post = (path, request, schema) => (count(path), realPost(path, request, schema));

const rssBeforeStore = peakRssMb();
const storeStart = performance.now();
const store = await openRepos({ memory: true });
const storeSeconds = (performance.now() - storeStart) / 1000;
const rssAfterStore = peakRssMb();
await store.subscriptions.upsert({
  channelId: CHANNEL,
  teamId: 'T_LOOKOUT',
  minSeverity: 'medium',
  checks: CHECKS,
  createdBy: 'U_ALICE',
});
await store.scanState.saveProgress('visits', { watermark, seenIds: [], counts: {}, at: new Date() });

const worker = new DeliveryWorker({
  db: store.db,
  poster: async () => webPoster(web),
  owner: 'bench',
  log,
  subjects: new Subjects(ALERT_SUBJECTS),
  paceMs: 0,
});
await worker.start();
const scan = new ThreatScan({
  tenants: { all: async () => [{ account: { account: api.account, api } }] },
  repos: store,
  leases: store.leases,
  db: store.db,
  queued: () => worker.wake(),
  log,
  now: () => new Date(),
  owner: 'bench',
  intervalMs: MINUTE,
  recheckMs: 6 * 3_600_000,
});
scan.readBy(
  new AlertReader({
    repos: store,
    verdict: { scrapingScoreThreshold: 0.8 },
    deliveryDeadlineMs: 6 * 3_600_000,
    timeZone: 'UTC',
    burst: 5,
  }),
);
say(
  `PGlite in memory, ${CHANNEL} subscribed (checks ${CHECKS.join(', ')}; medium or more), watermark ${watermark.toISOString()}, offline Slack with rate limits off`,
);

// ---- the scans ----------------------------------------------------------------------------------

interface Measured {
  result: ScanResult;
  seconds: number;
  calls: Map<string, number>;
  attempts: number;
  retries: number;
  posts: number;
  /** Sampled every 20 ms during the scan (MB): resident set and JS heap, at the start and at their highest. */
  rss: { start: number; peak: number };
  heap: { start: number; peak: number };
}

const mb = (bytes: number) => bytes / 1_048_576;

const postsInSlack = () => slack.workspace.allMessages(CHANNEL).length;

async function measure(): Promise<Measured> {
  calls.clear();
  const attempts = http.stats.attempts;
  const retries = http.stats.retries;
  const posts = postsInSlack();
  const m0 = process.memoryUsage();
  const rss = { start: mb(m0.rss), peak: mb(m0.rss) };
  const heap = { start: mb(m0.heapUsed), peak: mb(m0.heapUsed) };
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    rss.peak = Math.max(rss.peak, mb(m.rss));
    heap.peak = Math.max(heap.peak, mb(m.heapUsed));
  }, 20);
  const t0 = performance.now();
  const result = await scan.tick();
  await worker.drained(120_000);
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  rss.peak = Math.max(rss.peak, mb(process.memoryUsage().rss));
  heap.peak = Math.max(heap.peak, mb(process.memoryUsage().heapUsed));
  return {
    result,
    seconds,
    calls: new Map(calls),
    attempts: http.stats.attempts - attempts,
    retries: http.stats.retries - retries,
    posts: postsInSlack() - posts,
    rss,
    heap,
  };
}

const rssBefore = peakRssMb();
say(`peak RSS before the scan: ${rssBefore.toFixed(0)} MB`);
const first = await measure();
say(`scan 1 done: ${first.result.status}${first.result.error ? ` (${first.result.error})` : ''}`);
const rssAfter = peakRssMb();
if (rssAfter >= RSS_AIM_MB)
  say(
    `note: the process's peak RSS (${rssAfter.toFixed(0)} MB) is over ${RSS_AIM_MB} MB because of PGlite; the scan's own share is below`,
  );

const next = await measure();
say(`scan 2 (right after) done: ${next.result.status}`);

// The same minute again: the same visitors, their answers now in the store.
await store.scanState.saveProgress((await scan.stateKeys())[0]!, {
  watermark,
  seenIds: [],
  counts: {},
  at: new Date(),
});
const again = await measure();
say(`scan 3 (the same minute again) done: ${again.result.status}`);

// ---- figures ------------------------------------------------------------------------------------

const top = slack.workspace.visibleMessages(CHANNEL);
const summaries = top.filter((m) => JSON.stringify(m.blocks ?? []).includes('new flagged visitors'));
const perCheck = CHECKS.map((c) => [c, first.calls.get(PER_CHECK_PATH[c]) ?? 0] as const);
const otherSecurity = [...first.calls].filter(
  ([p]) => p.startsWith('/security/') && !Object.values(PER_CHECK_PATH).includes(p),
);
const row = (label: string, text: string) => console.log(`${label.padEnd(34)} ${text}`);
const securityOf = (m: Measured) =>
  [...m.calls].filter(([p]) => p.startsWith('/security/')).reduce((sum, [, c]) => sum + c, 0);
const callsOf = (m: Measured) =>
  [...m.calls]
    .sort()
    .map(([p, c]) => `${p} ${n(c)}`)
    .join(', ') || 'none';

console.log('');
row(
  'scan 1: visits / visitors found',
  `${n(first.result.visits)} / ${n(first.result.visitors)} (made: ${n(VISITS)} / ${n(VISITORS)})`,
);
row(
  'scan 1: security calls per check',
  `${perCheck.map(([c, k]) => `${c} ${n(k)}`).join(', ')}${otherSecurity.length ? `; others ${otherSecurity.map(([p, c]) => `${p} ${c}`).join(', ')}` : ''} (aim ≤ ${n(VISITORS)} each)`,
);
row(
  'scan 1: all API calls',
  `${callsOf(first)}; ${n(first.attempts)} HTTP attempts on the wire, ${first.retries} retries; lookups counted by the threat scan ${n(first.result.lookups)}`,
);
const floor = (perCheck.reduce((sum, [, k]) => sum + k, 0) / CLIENT_CONCURRENCY) * (LATENCY_MS / 1000);
row(
  'scan 1: time to finish',
  `${first.seconds.toFixed(2)} s (the latency alone sets a floor of ${floor.toFixed(1)} s: ${n(first.result.lookups)} lookups, ${CLIENT_CONCURRENCY} in flight, ${LATENCY_MS} ms each)`,
);
row(
  'scan 1: alerts posted',
  `${n(first.result.alerts)} (${summaries.length} burst summar${summaries.length === 1 ? 'y' : 'ies'} at the top of ${CHANNEL}, the alerts in its thread; ${n(first.posts)} messages in all)`,
);
row(
  'peak RSS (this process)',
  `${rssAfter.toFixed(0)} MB after scan 1, ${rssBefore.toFixed(0)} MB before it; opening PGlite (in memory) took it from ${rssBeforeStore.toFixed(0)} to ${rssAfterStore.toFixed(0)} MB in ${storeSeconds.toFixed(1)} s`,
);
row(
  'scan 1: memory it added',
  `resident ${first.rss.start.toFixed(0)} → peak ${first.rss.peak.toFixed(0)} MB (+${(first.rss.peak - first.rss.start).toFixed(0)} MB), JS heap ${first.heap.start.toFixed(0)} → peak ${first.heap.peak.toFixed(0)} MB (aim: the scan < ${RSS_AIM_MB} MB)`,
);
row(
  'scan 2 (right after)',
  `${n(next.result.visits)} new visits, ${n(securityOf(next))} security calls, ${callsOf(next)}, ${next.result.alerts} alerts, ${next.seconds.toFixed(2)} s`,
);
const againSecurity = securityOf(again);
row(
  'scan 3 (same minute, cache)',
  `${n(again.result.visits)} visits / ${n(again.result.visitors)} visitors, ${n(againSecurity)} security calls (cache hit), ${callsOf(again)}, ${again.result.alerts} new alerts, ${n(again.result.sightings)} sightings threaded, ${again.seconds.toFixed(2)} s`,
);
row('whole bench', `${((performance.now() - started) / 1000).toFixed(1)} s`);

const problems: string[] = [];
if (first.result.status !== 'scanned') problems.push(`scan 1 ${first.result.status}: ${first.result.error ?? ''}`);
if (first.result.visits !== VISITS || first.result.visitors !== VISITORS)
  problems.push('scan 1 did not find exactly the new visits and visitors');
for (const [check, k] of perCheck) if (k > VISITORS) problems.push(`${k} ${check} calls (more than one per visitor)`);
if (first.result.alerts === 0) problems.push('no alerts posted');
if (first.rss.peak - first.rss.start >= RSS_AIM_MB)
  problems.push(`the scan added ${(first.rss.peak - first.rss.start).toFixed(0)} MB of resident memory`);
if (next.result.visits !== 0 || next.result.alerts !== 0) problems.push('scan 2 found or posted something');
if (again.result.visits !== VISITS || againSecurity !== 0) problems.push('scan 3 was not served from the cache');
if (again.result.alerts !== 0) problems.push('scan 3 posted new alerts for visitors already alerted');
console.log(
  problems.length === 0
    ? '\nOK: one security call per visitor and check, then none from the cache; within the memory aim.'
    : `\nNOT OK: ${problems.join('; ')}`,
);

await scan.stop();
await worker.stop();
await api.close();
await store.close();
await slack.close();
demo.stop();
process.exit(problems.length === 0 ? 0 : 1);
