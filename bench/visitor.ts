/**
 * Command-to-card latency of `/visitor <id>` through the real app: a signed slash
 * command from the offline Slack into Bolt, the seven API calls (five security
 * lookups, the visitor record, a page of visits) against the demo API with 20 ms
 * of latency on every request, the card rendered and sent to the response_url,
 * until it shows in the channel. Compared with one security call through
 * AnalyticsApi at the same latency: the calls run concurrently, so a card should
 * cost well under two single calls. Everything runs in this process, on loopback.
 * Run: npm run bench -- visitor   (BENCH_LOOKUPS, BENCH_LATENCY_MS override 200, 20)
 */
import { AnalyticsApi } from '../src/platform/api/analytics.js';
import { fetchVisitorProfile } from '../src/features/visitor/service.js';
import { createLogger } from '../src/platform/log.js';
import { DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import type { Message } from '@lookout/sandbox/slack';
import { startTestSandbox as startSandbox } from '../test/support/sandbox.js';
import { ms, runLoad, type LoadResult } from './stats.js';

const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 200);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 20);
const CHANNEL = 'C_SECURITY';
const USERS = ['U_ALICE', 'U_BOB', 'U_CAROL'];

const box = await startSandbox({ log: createLogger({ level: 'silent' }), demoFaults: { latencyMs: LATENCY_MS } });
const demo = box.demo!;

// The visitors asked about: the five fixed ones, then random ones from the data set (a fixed seed, so runs compare).
let seed = 0x9e3779b9;
const random = () => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
const pool = demo.dataset.visitors;
const ids = Array.from({ length: LOOKUPS + 50 }, (_, i) =>
  i % 4 === 0 ? Object.values(DEMO_VISITORS)[(i / 4) % 5]! : pool[Math.floor(random() * pool.length)]!.id,
);

const headerOf = (m: Message) => {
  const first = m.blocks?.[0] as { type?: string; text?: { text?: string } } | undefined;
  return first?.type === 'header' ? first.text?.text : undefined;
};

/**
 * Cards already counted. A waiter claims the card it resolves with inside the
 * predicate (which runs synchronously), so two concurrent lookups of the same
 * visitor by the same user never count one card twice.
 */
const claimed = new Set<string>();

/** One `/visitor <id>`: from sending the signed command to the card being in the channel. */
async function lookup(i: number): Promise<void> {
  const visitorId = ids[i]!;
  const user = USERS[i % USERS.length]!;
  const card = box.slack.waitForMessage(
    CHANNEL,
    (m) => {
      if (claimed.has(m.ts) || m.ephemeralTo !== user || headerOf(m)?.endsWith(`: visitor ${visitorId}`) !== true)
        return false;
      claimed.add(m.ts);
      return true;
    },
    10_000,
  );
  const [delivery] = await Promise.all([box.slack.slash(CHANNEL, user, visitorId, '/visitor'), card]);
  if (delivery.status !== 200) throw new Error(`slash command answered ${delivery.status}`);
}

const api = new AnalyticsApi({ baseUrl: demo.url, apiKey: box.secrets.apiKey });
const single = (i: number) => api.security.check('bot', ids[i % ids.length]!);
const profile = (i: number) =>
  fetchVisitorProfile(api, ids[i % ids.length]!, { visitsPage: 1, visitsLimit: 10, endDate: '2100-01-01' });

function line(name: string, r: LoadResult): string {
  const failed = r.failures > 0 ? ` (first: ${r.firstError})` : '';
  return `${name.padEnd(34)} p50 ${ms(r.p50).padStart(10)}   p99 ${ms(r.p99).padStart(10)}   ${r.perSecond.toFixed(1).padStart(6)}/s   failures ${r.failures}${failed}`;
}

console.log(
  `visitor: ${LOOKUPS} lookups of ${new Set(ids.slice(0, LOOKUPS)).size} visitors (the 5 fixed ones and random ones), ` +
    `demo API latency ${LATENCY_MS} ms per request, app, offline Slack and demo API in one process`,
);

// Warm up: JIT, connections, the demo API's caches.
await runLoad(20, 1, (i) => single(i));
await runLoad(10, 1, (i) => lookup(LOOKUPS + i));
await runLoad(20, 5, (i) => lookup(LOOKUPS + 10 + (i % 40)));

const one = await runLoad(LOOKUPS, 1, single);
const profiles = await runLoad(LOOKUPS, 1, profile);
const c1 = await runLoad(LOOKUPS, 1, lookup);
const c10 = await runLoad(LOOKUPS, 10, lookup);

console.log(line('one security call (AnalyticsApi)', one));
console.log(line('the 7 calls of a card (no Slack)', profiles));
console.log(line('/visitor → card, 1 at a time', c1));
console.log(line('/visitor → card, 10 at a time', c10));
console.log(
  `card / one call, 1 at a time: p50 ${(c1.p50 / one.p50).toFixed(2)}×, p99 ${(c1.p99 / one.p99).toFixed(2)}× (aim: < 2×); ` +
    `Slack round trip and rendering add ${ms(c1.p50 - profiles.p50)} at p50`,
);
console.log(
  `card / one call, 10 at a time: p50 ${(c10.p50 / one.p50).toFixed(2)}×, p99 ${(c10.p99 / one.p99).toFixed(2)}× ` +
    `(70 API calls in flight share the client's 8 connections)`,
);

await api.close();
await box.stop();
