/**
 * One busy minute of digests: 1,000 digests due in the same slot, over 100 channels,
 * asking between them for exactly 50 distinct API requests. Everything real but the
 * data: the demo API in its own process, the offline Slack with its chat.postMessage
 * rate limits on (per channel: a burst of 5, then 1 a second; 429 + Retry-After), PGlite
 * in memory, the DigestService + SharedFetcher + @slack/web-api WebClient (retrying on
 * 429 as it does in the app), and DigestScheduler.runSlot for every digest at once.
 *
 * The 1,000 digests: five filter sets (none, Germany, United States, France, Chrome)
 * × four reports (sources, pages, countries, browsers), each digest a different
 * 2–4 of the four, top 5, yesterday, in three zones that share a calendar date. The
 * requests they imply are counted first from their keys (a dry run of gatherDigest
 * against a stub API), then compared with what was fetched.
 * Then one digest of all four reports alone, on a fresh cache: its API calls with threat
 * checks off, and on (every visitor judged), where the flagged share reads /visits.
 * Run: npm run bench -- digests   (BENCH_DIGESTS, BENCH_CHANNELS override 1000, 100)
 */
import { randomBytes } from 'node:crypto';
import { LogLevel, WebClient, WebClientEvent } from '@slack/web-api';
import { AnalyticsApi } from '../src/platform/api/analytics.js';
import type { ReportId } from '../src/kernel/catalog.js';
import type { FilterGroup } from '../src/kernel/filters.js';
import type { MarketingRequest } from '../src/kernel/query.js';
import { DigestContent, gatherDigest } from '../src/features/digests/content.js';
import { SharedFetcher } from '../src/platform/api/shared-fetcher.js';
import { digestPublisher } from '../src/features/digests/publish.js';
import { DIGEST } from '../src/features/digests/deliveries.js';
import { Subjects } from '../src/platform/deliveries/subject.js';
import type { Digest } from '../src/features/digests/repo.js';
import { DigestScheduler } from '../src/features/digests/scheduler.js';
import { webPoster } from '../src/platform/slack/poster.js';
import { DeliveryWorker } from '../src/platform/deliveries/worker.js';
import { createLogger } from '../src/platform/log.js';
import { startOfflineSlack } from '@lookout/sandbox/slack';
import { openRepos } from '../src/compose.js';
import { peakRssMb, spawnDemoApi } from './stats.js';

const DIGESTS = Number(process.env.BENCH_DIGESTS ?? 1000);
const CHANNELS = Number(process.env.BENCH_CHANNELS ?? 100);
/** 5 filter sets × (2 totals + 2 for each of sources, pages, browsers; countries asks what the totals ask). */
const EXPECTED_DISTINCT = 40;
const KEY = 'bench-digests';

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
const REPORT_SET: ReportId[] = ['sources', 'pages', 'countries', 'browsers'];
/** Every non-empty subset of two or more of the four reports, in a fixed order (11 of them). */
const SUBSETS: ReportId[][] = Array.from({ length: 15 }, (_, mask) => mask + 1)
  .map((mask) => REPORT_SET.filter((_, bit) => mask & (1 << bit)))
  .filter((s) => s.length >= 2);
/** Zones on the same date and offset at any minute, so their digests share requests. */
const ZONES = ['Europe/Berlin', 'Europe/Paris', 'Europe/Madrid'];

const log = createLogger({ level: 'silent' });
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
const say = (text: string) => console.log(`[${elapsed().padStart(7)}] ${text}`);

// ---- the slot and the digests -----------------------------------------------------------

// The slot: this minute, so "yesterday" falls inside the demo data set (made around now).
const slot = new Date(Math.floor(Date.now() / 60_000) * 60_000);

const demo = await spawnDemoApi({ DEMO_API_KEY: KEY });
say(`demo API in its own process at ${demo.url}`);

const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-bench-${randomBytes(12).toString('hex')}`;
const slack = await startOfflineSlack({ signingSecret, botToken, port: 0 }); // rate limits on (the default)
const channels = Array.from(
  { length: CHANNELS },
  (_, i) => slack.workspace.addChannel({ name: `digest-${String(i).padStart(3, '0')}` }).id,
);
say(`offline Slack at ${slack.url}: ${channels.length} channels added, chat.postMessage limited per channel`);

const store = await openRepos({ memory: true });
const digests: Digest[] = [];
for (let i = 0; i < DIGESTS; i++) {
  const reports = SUBSETS[Math.floor(i / FILTER_SETS.length) % SUBSETS.length]!;
  digests.push(
    await store.digests.create({
      teamId: 'T_LOOKOUT',
      channelId: channels[i % channels.length]!,
      ownerId: 'U_ALICE',
      reports,
      filters: FILTER_SETS[i % FILTER_SETS.length]!,
      topN: 5,
      period: 'day',
      schedule: { kind: 'cron', cron: '* * * * *' },
      cron: '* * * * *',
      timeZone: ZONES[i % ZONES.length]!,
    }),
  );
}
say(`${digests.length} digests in PGlite (in memory), all due at ${slot.toISOString()}`);

// ---- what they ask for, from the requests' keys -----------------------------------------

const implied = new Set<string>();
const stub = {
  report: (id: ReportId, request: MarketingRequest) => {
    implied.add(JSON.stringify([id, request]));
    return Promise.resolve([]);
  },
} as unknown as AnalyticsApi;
const dryFetcher = new SharedFetcher(stub);
for (const d of digests) {
  await gatherDigest(
    dryFetcher,
    {
      id: d.id,
      reports: d.reports as ReportId[],
      filters: d.filters,
      topN: d.topN,
      period: 'day',
      timeZone: d.timeZone,
    },
    slot,
    { title: '', demo: true, preview: false, apiZone: 'UTC' },
  );
}
say(
  `distinct API requests the ${digests.length} digests imply: ${implied.size} (by key; one per report, filters, dates and page)`,
);
if (implied.size !== EXPECTED_DISTINCT)
  throw new Error(`the digests were designed to need ${EXPECTED_DISTINCT} distinct requests, not ${implied.size}`);

// ---- the real run -----------------------------------------------------------------------

const api = new AnalyticsApi({ baseUrl: demo.url, apiKey: KEY, timeoutMs: 20_000, logger: log });
// Which keys really went out (a call that missed the SharedFetcher cache).
const fetched: string[] = [];
const counting = Object.create(api) as AnalyticsApi;
counting.report = (id, request) => {
  fetched.push(JSON.stringify([id, request]));
  return api.report(id, request);
};
const fetcher = new SharedFetcher(counting);
const web = new WebClient(botToken, {
  slackApiUrl: slack.apiUrl,
  logLevel: LogLevel.ERROR,
  retryConfig: { retries: 0 },
  rejectRateLimitedCalls: true,
  timeout: 10_000,
});
let rateLimited = 0;
web.on(WebClientEvent.RATE_LIMITED, () => rateLimited++);

const content = new DigestContent({
  flagged: { seen: async () => undefined, judged: async () => undefined },
  apiZone: 'UTC',
  demo: true,
});
const worker = new DeliveryWorker({
  db: store.db,
  poster: async () => webPoster(web),
  owner: 'bench',
  log,
  subjects: new Subjects([DIGEST]),
});
const post = digestPublisher({
  content,
  tenants: { of: async (team) => ({ team, account: 'bench', fetcher }) },
  db: store.db,
  log,
  owner: 'bench',
  queued: () => worker.wake(),
});
await worker.start();
let finished = 0;
const scheduler = new DigestScheduler({
  runs: store.runs,
  loadActive: () => store.digests.listActive(),
  loadOne: (id) => store.digests.get(id),
  post: async (digest, at, stopping) => {
    await post(digest, at, stopping);
    finished++;
  },
  log,
  owner: 'bench',
  now: () => slot,
});

const postedCount = () => channels.reduce((n, c) => n + slack.workspace.allMessages(c).length, 0);
const progress = setInterval(() => {
  const posted = postedCount();
  say(
    `progress: ${posted}/${digests.length} posted in Slack, ${finished} runs finished, ${rateLimited} answered 429 so far, API calls ${fetcher.calls}`,
  );
}, 2_000);

const setupRssMb = peakRssMb();
say(
  `peak RSS so far (demo data in another process; PGlite, Slack workspace, 1,000 digests here): ${setupRssMb.toFixed(0)} MB`,
);
const runStart = performance.now();
const claimed = await Promise.all(digests.map((d) => scheduler.runSlot(d, slot)));
await worker.drained(600_000);
const runSeconds = (performance.now() - runStart) / 1000;
clearInterval(progress);

// ---- figures ------------------------------------------------------------------------------

const { rows: statuses } = await store.db.query<{ status: string; n: number }>(
  'SELECT status, count(*)::int AS n FROM digest_runs GROUP BY status ORDER BY status',
);
const byStatus = Object.fromEntries(statuses.map((r) => [r.status, r.n]));
const { rows: reasons } = await store.db.query<{ error: string; n: number }>(
  "SELECT error, count(*)::int AS n FROM digest_runs WHERE status = 'failed' GROUP BY error ORDER BY n DESC LIMIT 3",
);
const posted = postedCount();
const perChannel = channels.map((c) => slack.workspace.allMessages(c).length);
const distinctFetched = new Set(fetched).size;
const missing = [...implied].filter((k) => !fetched.includes(k));

console.log('');
console.log(
  `digests due in one slot        ${digests.length} over ${channels.length} channels (${Math.min(...perChannel)}–${Math.max(...perChannel)} posts a channel)`,
);
console.log(`slots claimed                  ${claimed.filter(Boolean).length}`);
console.log(`distinct queries (by key)      ${implied.size}`);
console.log(
  `API calls made                 ${fetcher.calls} through SharedFetcher (${distinctFetched} distinct, ${missing.length} implied but not made), ${api.http.stats.attempts} HTTP attempts on the wire, ${api.http.stats.retries} retries`,
);
console.log(
  `time to post all               ${runSeconds.toFixed(1)} s, through chat.postMessage rate limits (${rateLimited} answers were 429 and retried through the outbox)`,
);
console.log(
  `posts made / failed            ${byStatus.posted ?? 0} / ${byStatus.failed ?? 0} (runs table); ${posted} messages in the offline Slack`,
);
if (reasons.length > 0)
  console.log(`failure reasons                ${reasons.map((r) => `${r.error} ×${r.n}`).join('; ')}`);
console.log(
  `peak RSS                       ${peakRssMb().toFixed(0)} MB (${setupRssMb.toFixed(0)} MB before the slot ran)`,
);

const ok =
  fetcher.calls === EXPECTED_DISTINCT &&
  distinctFetched === EXPECTED_DISTINCT &&
  (byStatus.posted ?? 0) === digests.length &&
  posted === digests.length;
console.log(
  ok ? '\nOK: every distinct request made once, every digest posted once.' : '\nNOT OK: see the figures above.',
);

// ---- one digest alone ---------------------------------------------------------------------

const single = digests.find((d) => d.reports.length === REPORT_SET.length && d.filters.length === 0)!;
const costs: string[] = [];
for (const on of [false, true]) {
  const own = new SharedFetcher(counting);
  const flagged = on
    ? {
        seen: async () => ({ count: 0, scanningSince: new Date(0) }),
        judged: async (_tenant: unknown, ids: readonly string[]) => ({
          checked: new Set(ids),
          flagged: new Set<string>(),
        }),
      }
    : { seen: async () => undefined, judged: async () => undefined };
  await new DigestContent({ flagged, apiZone: 'UTC', demo: true }).render(
    { team: 'T_LOOKOUT', account: 'bench', fetcher: own },
    single,
    slot,
    false,
  );
  costs.push(`${own.calls} with threat checks ${on ? 'on' : 'off'}`);
}
console.log(`one digest alone              ${single.reports.join(', ')}, yesterday: ${costs.join('; ')} (API calls)`);

await scheduler.stop();
await worker.stop();
await api.close();
await store.close();
await slack.close();
demo.stop();
process.exit(ok ? 0 : 1);
