/**
 * Many workspaces in one minute: N workspaces (default 1,000), each installed (its own bot
 * token, sealed in `installations`) and connected (`workspaces`) to one of A analytics
 * accounts (default 200, so 5 workspaces an account), each with 5 daily digests due at the
 * same minute in one channel, on PostgreSQL with R replicas (default 3).
 *
 * Each replica is its own process: the platform as the app opens it for a distributed app
 * (openPlatform with OAuth settings: each workspace's token through Bolt's `authorize` over
 * the installations, its account from its connection, one analytics client and SharedFetcher
 * per account), the real DigestScheduler on its timer, digestPublisher and the DeliveryWorker
 * (one channel's pace: a burst of 3, then one a second). The digests' content is
 * DigestContent's without trend lines or the flagged-visitors line (as in bench/digests.ts).
 * The offline Slack (this process) holds every workspace with its own bot token and limits
 * chat.postMessage per channel of each workspace (a burst of 5, then 1 a second; 429 and
 * Retry-After beyond) and the other methods per workspace. The demo API runs in its own
 * process with A accounts, each behind its own key with its own (small) data set.
 *
 * Printed: time from the slot to the last post, lateness per workspace (its last post after the
 * slot; p50, p99, max), API calls made against one per distinct (account, question) (the
 * questions counted first from their keys, a dry run of gatherDigest), what the replicas shared
 * through the store (`api_answers`: answers read and written, questions asked again once stale)
 * and what that cost it (statements, rows and bytes), and peak RSS of each replica and of this
 * process. The schema is made for the run and dropped after it.
 *
 * With `--heavy H`, workspace 0 has H digests over H/10 channels instead of 5 in one: what it
 * costs the others is their lateness against its own (workspaces take turns in the scheduler's
 * batches and the outbox's claims).
 *
 * Run: npm run bench -- workspaces   (1,000 workspaces, 200 accounts, 3 replicas)
 *      npx tsx bench/workspaces.ts --workspaces 100 --accounts 20 --replicas 3   (flags scale it)
 *      npx tsx bench/workspaces.ts --workspaces 200 --accounts 40 --heavy 500   (one busy workspace)
 * DATABASE_URL or TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ReportId } from '../src/kernel/catalog.js';
import type { FilterGroup } from '../src/kernel/filters.js';
import type { MarketingRequest } from '../src/kernel/query.js';
import type { AnalyticsApi } from '../src/platform/api/analytics.js';
import { SharedFetcher } from '../src/platform/api/shared-fetcher.js';
import type { ApiAnswerStats } from '../src/platform/store/api-answers.js';
import { defaultSettings } from '../src/config.js';
import { createLogger } from '../src/platform/log.js';
import { percentile, peakRssMb } from './stats.js';

const DEFAULT_DB = 'postgres://postgres@127.0.0.1:5432/test';
const PER_WORKSPACE = 5;
const BOT_SCOPES = ['chat:write', 'commands'];

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} needs a whole number of at least 1`);
    process.exit(2);
  }
  return value;
}

const is = (object: string, value: string): FilterGroup[] => [
  { filters: [{ object, field: 'name', operator: 'is_any_of', value: [value] }] },
];
/** Digest j of every workspace has filter set j: workspaces on one account share some questions, not all. */
const FILTER_SETS: FilterGroup[][] = [
  [],
  is('country', 'Germany'),
  is('country', 'United States'),
  is('browser', 'Chrome'),
  is('country', 'France'),
];
const REPORT_SET: ReportId[] = ['sources', 'pages', 'countries', 'browsers'];
const SUBSETS: ReportId[][] = Array.from({ length: 15 }, (_, mask) => mask + 1)
  .map((mask) => REPORT_SET.filter((_, bit) => mask & (1 << bit)))
  .filter((s) => s.length >= 2);
/** A workspace's zone; all three share the calendar date at most hours of the day. */
const ZONES = ['UTC', 'Europe/Berlin', 'Europe/London'];

const teamOf = (w: number) => `T_WS${String(w).padStart(5, '0')}`;
const channelOf = (w: number) => `C_WS${String(w).padStart(5, '0')}`;
/** Workspace 0's channels when it is the heavy one: ten digests a channel. */
const heavyChannels = (heavy: number) =>
  Array.from({ length: Math.ceil(heavy / 10) }, (_, k) => `${channelOf(0)}_${k}`);
const keyOf = (a: number) => `bench-account-${a}`;

/** What digest j of workspace w asks for, and where it posts. */
function digestOf(w: number, j: number, accounts: number) {
  return {
    reports: SUBSETS[(2 * j + Math.floor(w / accounts)) % SUBSETS.length]!,
    filters: FILTER_SETS[j % FILTER_SETS.length]!,
    timeZone: ZONES[w % ZONES.length]!,
  };
}

/** A daily cron at `slot`'s local minute in `zone`. */
function cronAt(slot: Date, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
  })
    .formatToParts(slot)
    .reduce<Record<string, string>>((o, p) => ({ ...o, [p.type]: p.value }), {});
  return `${Number(parts.minute)} ${Number(parts.hour)} * * *`;
}

// ---------------------------------------------------------------- the demo API's process

async function demoProcess(accounts: number): Promise<void> {
  const { startDemoApi } = await import('@lookout/sandbox/demo-api');
  const api = await startDemoApi({
    port: 0,
    apiKey: `bench-default-${randomBytes(4).toString('hex')}`,
    accounts: Array.from({ length: accounts }, (_, a) => ({
      name: `account-${a}`,
      apiKey: keyOf(a),
      visitors: 150,
      visits: 1500,
    })),
    maxRecordedRequests: 1_000_000,
    onError: () => undefined,
  });
  for (const account of api.accounts) void account.dataset; // made now, not at the slot
  process.on('message', (m: { type: string }) => {
    if (m.type !== 'counts') return;
    const byAccount: Record<string, number> = {};
    for (const r of api.requests) if (r.account) byAccount[r.account] = (byAccount[r.account] ?? 0) + 1;
    process.send!({ type: 'counts', byAccount, failed: api.requests.filter((r) => (r.status ?? 0) >= 400).length });
  });
  process.send!({ type: 'ready', url: api.url });
}

// ---------------------------------------------------------------- one replica's process

async function replicaProcess(): Promise<void> {
  const env = JSON.parse(process.env.BENCH_REPLICA!) as {
    owner: string;
    databaseUrl: string;
    schema: string;
    slackApiUrl: string;
    demoUrl: string;
    encryptionKey: string;
    clientId: string;
    clientSecret: string;
  };
  const { openPlatform } = await import('../src/platform/open.js');
  const { keyring } = await import('../src/platform/secrets.js');
  const { DigestContent } = await import('../src/features/digests/content.js');
  const { digestPublisher } = await import('../src/features/digests/publish.js');
  const { DigestRepo } = await import('../src/features/digests/repo.js');
  const { DigestRunRepo } = await import('../src/features/digests/runs.js');
  const { DigestScheduler } = await import('../src/features/digests/scheduler.js');
  const log = createLogger({ level: process.env.BENCH_VERBOSE ? 'warn' : 'silent' });
  const platform = await openPlatform(
    {
      api: { baseUrl: env.demoUrl },
      slack: {
        signingSecret: randomBytes(16).toString('hex'),
        oauth: { clientId: env.clientId, clientSecret: env.clientSecret, stateSecret: randomBytes(16).toString('hex') },
        apiUrl: env.slackApiUrl,
      },
      store: { databaseUrl: env.databaseUrl, schema: env.schema },
      log,
      now: () => new Date(),
      owner: env.owner,
      settings: defaultSettings(),
      encryption: keyring(env.encryptionKey),
    },
    (await import('../src/features/index.js')).FEATURES,
  );
  const db = platform.repos.db;
  const digests = new DigestRepo(db);
  const runs = new DigestRunRepo(db);
  const scheduler = new DigestScheduler({
    runs,
    loadActive: () => digests.listActive(),
    loadOne: (id) => digests.get(id),
    post: digestPublisher({
      content: new DigestContent({
        flagged: { seen: async () => undefined, judged: async () => undefined },
        apiZone: 'UTC',
        demo: false,
        log,
      }),
      tenants: platform.tenants,
      db,
      log,
      owner: env.owner,
      queued: platform.queued,
    }),
    log,
    owner: env.owner,
    heartbeatMs: 10_000,
  });
  let cpu = process.cpuUsage();
  process.on('message', (m: { type: string }) => {
    if (m.type === 'go') {
      cpu = process.cpuUsage();
      void platform.worker.start().then(() => scheduler.start());
    }
    if (m.type === 'stop') {
      const used = process.cpuUsage(cpu);
      void (async () => {
        await scheduler.stop();
        await platform.worker.stop();
        await platform.close();
        const stopped = {
          rssMb: peakRssMb(),
          cpuMs: (used.user + used.system) / 1000,
          answers: platform.answers?.stats,
        };
        process.send!({ type: 'stopped', ...stopped }, () => process.exit(0));
      })();
    }
  });
  process.send!({ type: 'ready' });
}

// ---------------------------------------------------------------- the bench

function child(args: string[], env: Record<string, string> = {}): ChildProcess {
  return fork(fileURLToPath(import.meta.url), args, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function next<T>(p: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== type) return;
      p.off('message', onMessage);
      p.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null) => reject(new Error(`a child process exited (${code}) before "${type}"`));
    p.on('message', onMessage);
    p.once('exit', onExit);
  });
}

async function main(): Promise<boolean> {
  const N = flag('workspaces', 1000);
  const A = Math.min(N, flag('accounts', 200));
  const R = flag('replicas', 3);
  const heavy = process.argv.includes('--heavy') ? flag('heavy', 500) : 0;
  const countOf = (w: number) => (w === 0 && heavy ? heavy : PER_WORKSPACE);
  const channelFor = (w: number, j: number) =>
    w === 0 && heavy ? heavyChannels(heavy)[j % heavyChannels(heavy).length]! : channelOf(w);
  const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? DEFAULT_DB;
  const schema = `bench_ws_${randomBytes(4).toString('hex')}`;
  const started = performance.now();
  const say = (text: string) =>
    console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${text}`);

  const { startOfflineSlack } = await import('@lookout/sandbox/slack');
  const { openRepos } = await import('../src/compose.js');
  const { InstallationRepo } = await import('../src/platform/slack/installations.js');
  const { ConnectionRepo } = await import('../src/platform/tenancy/connections.js');
  const { keyring } = await import('../src/platform/secrets.js');
  const { gatherDigest } = await import('../src/features/digests/content.js');

  const demo = child(['--demo', String(A)]);
  const { url: demoUrl } = await next<{ url: string }>(demo, 'ready');
  say(`demo API in its own process at ${demoUrl}: ${A} accounts, each its own key and data set`);

  const tokens = Array.from({ length: N }, (_, w) => `xoxb-${w}-${randomBytes(12).toString('hex')}`);
  const slack = await startOfflineSlack({
    signingSecret: randomBytes(16).toString('hex'),
    botToken: `xoxb-main-${randomBytes(8).toString('hex')}`,
    workspaces: tokens.map((botToken, w) => ({
      team: { id: teamOf(w), name: `Workspace ${w}`, domain: `ws-${w}` },
      botToken,
      channels:
        w === 0 && heavy
          ? heavyChannels(heavy).map((id, k) => ({ id, name: `digests-${k}` }))
          : [{ id: channelOf(w), name: 'digests' }],
    })),
  });
  const posted: { w: number; at: number }[] = [];
  for (let w = 0; w < N; w++)
    slack.team(teamOf(w)).workspace.on('change', (c) => {
      if (c.type === 'message') posted.push({ w, at: Number(c.ts) * 1000 });
    });
  say(`offline Slack at ${slack.url}: ${N} workspaces, each its own bot token; limits on`);

  const store = await openRepos({ databaseUrl, schema });
  const cleanUp = async () => {
    await store.db.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
    await store.close();
  };
  const children: ChildProcess[] = [demo];
  try {
    const encryptionKey = randomBytes(32).toString('base64');
    const keys = keyring(encryptionKey);
    const installations = new InstallationRepo(store.db, keys);
    const connections = new ConnectionRepo(store.db, keys);
    const accountOfWorkspace = (w: number) => w % A;
    const ids: { w: number; j: number; id: number }[] = [];
    for (let w = 0; w < N; w++) {
      const team = teamOf(w);
      await installations.storeInstallation({
        team: { id: team, name: `Workspace ${w}` },
        enterprise: undefined,
        user: { id: 'U_ADMIN', token: undefined, scopes: undefined },
        bot: { token: tokens[w]!, scopes: BOT_SCOPES, id: `B_${team}`, userId: `U_${team}_BOT` },
        tokenType: 'bot',
        isEnterpriseInstall: false,
        appId: 'A_LOOKOUT',
        authVersion: 'v2',
      });
      await connections.save({ team, baseUrl: demoUrl, apiKey: keyOf(accountOfWorkspace(w)), connectedBy: 'U_ADMIN' });
      for (let j = 0; j < countOf(w); j++) {
        const d = digestOf(w, j, A);
        // A cron far from now; set to the slot's minute once every replica is up.
        const digest = await store.digests.create({
          teamId: team,
          channelId: channelFor(w, j),
          ownerId: 'U_ADMIN',
          reports: d.reports,
          filters: d.filters,
          topN: 5,
          period: 'day',
          schedule: { kind: 'cron', cron: '0 0 1 1 *' },
          cron: '0 0 1 1 *',
          timeZone: d.timeZone,
        });
        ids.push({ w, j, id: digest.id });
      }
    }
    say(`PostgreSQL schema ${schema}: ${N} installations, ${N} connections over ${A} accounts, ${ids.length} digests`);

    const clientId = `bench.${randomBytes(4).toString('hex')}`;
    const clientSecret = randomBytes(16).toString('hex');
    const replicas = Array.from({ length: R }, (_, r) =>
      child(['--replica'], {
        BENCH_REPLICA: JSON.stringify({
          owner: `replica-${r + 1}`,
          databaseUrl,
          schema,
          slackApiUrl: slack.apiUrl,
          demoUrl,
          encryptionKey,
          clientId,
          clientSecret,
        }),
      }),
    );
    children.push(...replicas);
    await Promise.all(replicas.map((p) => next(p, 'ready')));
    say(
      `${R === 1 ? '1 replica up, in its own process' : `${R} replicas up, each its own process`} on the shared schema`,
    );

    // The slot: the first whole minute at least 15 s away.
    const slot = new Date(Math.ceil((Date.now() + 15_000) / 60_000) * 60_000);
    for (const zone of ZONES)
      await store.db.query(`UPDATE digests SET cron = $1, schedule = $2, next_run_at = NULL WHERE time_zone = $3`, [
        cronAt(slot, zone),
        JSON.stringify({ kind: 'cron', cron: cronAt(slot, zone) }),
        zone,
      ]);

    // The questions the digests imply, by account, from their keys.
    const implied = new Set<string>();
    const stubs = new Map<number, SharedFetcher>();
    for (const { w, j, id } of ids) {
      const account = accountOfWorkspace(w);
      let fetcher = stubs.get(account);
      if (!fetcher) {
        const stub = {
          report: (report: ReportId, request: MarketingRequest) => {
            implied.add(JSON.stringify([account, report, request]));
            return Promise.resolve([]);
          },
        } as unknown as AnalyticsApi;
        fetcher = new SharedFetcher(stub);
        stubs.set(account, fetcher);
      }
      const d = digestOf(w, j, A);
      await gatherDigest(fetcher, { id, ...d, topN: 5, period: 'day' }, slot, {
        title: '',
        demo: false,
        apiZone: 'UTC',
        preview: false,
      });
    }
    say(
      `slot ${slot.toISOString()}: every digest due then; ${implied.size} distinct (account, question) pairs implied`,
    );

    for (const p of replicas) p.send({ type: 'go' });
    const total = ids.length;
    const deadline = slot.getTime() + 15 * 60_000;
    while (posted.length < total && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5_000));
      if (Date.now() >= slot.getTime())
        say(`${posted.length}/${total} posted (${((Date.now() - slot.getTime()) / 1000).toFixed(0)} s after the slot)`);
    }

    const stopped = await Promise.all(
      replicas.map((p) => {
        const done = next<{ rssMb: number; cpuMs: number; answers?: ApiAnswerStats }>(p, 'stopped');
        p.send({ type: 'stop' });
        return done;
      }),
    );
    demo.send({ type: 'counts' });
    const counts = await next<{ byAccount: Record<string, number>; failed: number }>(demo, 'counts');
    const calls = Object.values(counts.byAccount).reduce((n, c) => n + c, 0);

    const { rows: runRows } = await store.db.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM digest_runs GROUP BY status ORDER BY status',
    );
    const { rows: byOwner } = await store.db.query<{ owner: string; n: number }>(
      `SELECT claimed_by AS owner, count(*)::int AS n FROM digest_runs GROUP BY claimed_by ORDER BY claimed_by`,
    );
    const { rows: attempts } = await store.db.query<{ retries: number }>(
      `SELECT coalesce(sum(attempts - 1), 0)::int AS retries FROM deliveries WHERE status = 'posted'`,
    );

    const { rows: kept } = await store.db.query<{ n: number; bytes: number; table: number }>(
      `SELECT count(*)::int AS n, coalesce(sum(octet_length(body)), 0)::int AS bytes,
              pg_total_relation_size('api_answers')::int AS table FROM api_answers`,
    );
    const shared = stopped.reduce<ApiAnswerStats>(
      (sum, r) => {
        for (const k of Object.keys(sum) as (keyof ApiAnswerStats)[]) sum[k] += r.answers?.[k] ?? 0;
        return sum;
      },
      { queries: 0, read: 0, written: 0, bytes: 0, waits: 0, stale: 0, takenOver: 0, errors: 0 },
    );

    const byWorkspace = new Map<number, number>();
    for (const p of posted) byWorkspace.set(p.w, Math.max(byWorkspace.get(p.w) ?? 0, p.at - slot.getTime()));
    const workspaceLate = [...byWorkspace.values()].sort((a, b) => a - b);
    const digestLate = posted.map((p) => p.at - slot.getTime()).sort((a, b) => a - b);
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const perWorkspace = new Map<number, number>();
    for (const p of posted) perWorkspace.set(p.w, (perWorkspace.get(p.w) ?? 0) + 1);
    const complete = [...perWorkspace.entries()].filter(([w, n]) => n === countOf(w)).length;

    console.log('');
    console.log(
      `workspaces / accounts / digests ${N} / ${A} / ${total} (${PER_WORKSPACE} a workspace in one channel${heavy ? `, workspace 0 ${heavy} over ${heavyChannels(heavy).length} channels` : ''}, all due at one minute)`,
    );
    if (heavy) {
      const others = [...byWorkspace.entries()]
        .filter(([w]) => w !== 0)
        .map(([, ms]) => ms)
        .sort((a, b) => a - b);
      const own = posted
        .filter((p) => p.w === 0)
        .map((p) => p.at - slot.getTime())
        .sort((a, b) => a - b);
      console.log(
        `the heavy workspace             its ${heavy} digests: p50 ${s(percentile(own, 50))}, last ${s(own.at(-1) ?? NaN)} after the slot`,
      );
      console.log(
        `the other workspaces            last post p50 ${s(percentile(others, 50))}, p99 ${s(percentile(others, 99))}, max ${s(others.at(-1) ?? NaN)} after the slot`,
      );
    }
    console.log(
      `replicas                        ${R} ${R === 1 ? 'process' : 'processes'} on PostgreSQL (${schema}, dropped after)`,
    );
    console.log(
      `time to post all                ${posted.length === total ? s(digestLate.at(-1)!) : `not all: ${posted.length}/${total} posted`} from the slot to the last post in Slack`,
    );
    console.log(
      `lateness per workspace          p50 ${s(percentile(workspaceLate, 50))}, p99 ${s(percentile(workspaceLate, 99))}, max ${s(workspaceLate.at(-1) ?? NaN)} (each workspace's last post after the slot; ${complete} of ${N} got all ${PER_WORKSPACE})`,
    );
    console.log(
      `lateness per digest             p50 ${s(percentile(digestLate, 50))}, p99 ${s(percentile(digestLate, 99))}`,
    );
    console.log(
      `API calls made                  ${calls} against ${implied.size} distinct (account, question) pairs: ${(calls / implied.size).toFixed(2)}× (${counts.failed} answered with an error)`,
    );
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    console.log(
      `answers shared among replicas   ${shared.read} read from another replica, ${shared.written} written for the others (${mb(shared.bytes)}, ${(shared.bytes / Math.max(1, shared.written) / 1024).toFixed(1)} kB an answer); ${shared.stale} asked again once their answer was a minute old, ${shared.takenOver} claims taken over, ${shared.waits} looks found the question being asked; ${shared.errors} store errors`,
    );
    console.log(
      `what sharing cost the store     ${shared.queries} statements (${(shared.queries / implied.size).toFixed(2)} a distinct pair, ${(shared.queries / Math.max(1, calls)).toFixed(2)} an API call); at the end ${kept[0]!.n} rows, ${mb(kept[0]!.bytes)} of answers, ${mb(kept[0]!.table)} on disk with its index and TOAST`,
    );
    console.log(
      `runs                            ${runRows.map((r) => `${r.status} ${r.n}`).join(', ')}; by replica ${byOwner.map((r) => `${r.owner} ${r.n}`).join(', ')}`,
    );
    console.log(`posts retried after a 429       ${attempts[0]!.retries}`);
    console.log(
      `peak RSS                        ${stopped.map((r, i) => `replica ${i + 1} ${r.rssMb.toFixed(0)} MB`).join(', ')}; this process (offline Slack, ${N} workspaces) ${peakRssMb().toFixed(0)} MB`,
    );
    console.log(
      `CPU from go to stop             ${stopped.map((r, i) => `replica ${i + 1} ${(r.cpuMs / 1000).toFixed(1)} s`).join(', ')}`,
    );
    const ok = posted.length === total && complete === N;
    console.log(ok ? '\nOK: every digest posted once.' : '\nNOT OK: see the figures above.');
    return ok;
  } finally {
    for (const p of children) if (p.exitCode === null) p.kill('SIGTERM');
    await cleanUp();
    await slack.close();
  }
}

if (process.argv[2] === '--demo') await demoProcess(Number(process.argv[3]));
else if (process.argv[2] === '--replica') await replicaProcess();
else process.exit((await main()) ? 0 : 1);
