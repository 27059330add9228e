/**
 * CPU per answered /traffic command, ack latency and command-to-answer latency, for Lookout
 * in production mode (`node dist/main.js`) against three other apps, each in its own process:
 *   - bare Bolt: acks only (the floor for ack latency);
 *   - the floor: a bare Bolt app that acks, makes one undici request to the same demo API and
 *     posts the rows to the response_url (the floor for CPU per answered command);
 *   - the answer floor: the floor answering with Lookout's own message (rendered and checked
 *     by Lookout's code), so Lookout ÷ it is what Lookout's platform costs beside its answer.
 * The load comes from this process: signed slash commands at a steady rate (open loop: sent
 * on schedule whatever the answers do) to the app's request URL, from 500 people in turn (each
 * within the per-person limit, which Lookout checks in its store), each with its own
 * response_url on a sink the offline Slack serves (Lookout answers no other origin). The demo API runs in a fourth process. Rates and apps are
 * interleaved over several rounds, always in the same order, so each app has been idle as
 * long before its phase (BENCH_TOGETHER=1: every app is sent the same commands at once, so
 * a busy machine's drift weighs on each alike); the figures are medians over rounds, and
 * ratios the median of each round's ratio. CPU is the app
 * process's user + system time (/proc/<pid>/stat) over the phase, divided by commands answered.
 * Run: npm run bench -- ack   (BENCH_ROUNDS 3, BENCH_SECONDS 10, BENCH_RATES 20,100,300;
 * BENCH_IDLE_SECONDS 5: how long each app's idle CPU is read;
 * BENCH_LOOKOUT_FLAGS: Node or V8 flags for Lookout's process, for experiments;
 * BENCH_BUILDS: other builds of Lookout to run beside it in the same run, as `name=main.js`
 * pairs separated by commas, e.g. `before=node_modules/.cache/before/dist/main.js`: an earlier
 * dist/ inside this checkout, so it finds node_modules (docs/benchmarks.md says how to build
 * one); each keeps a data directory of its own, and Node flags of its own may come before its
 * main.js, e.g. `young=--min-semi-space-size=16 dist/main.js` (the name ends at the first `=`);
 * BENCH_DATABASE_URL: a PostgreSQL database every build of Lookout shares, as replicas do;
 * with BENCH_BUILDS, a last table gives Lookout's CPU per command ÷ each build's, median of the rounds' own)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { REPORT_IDS } from '../src/kernel/catalog.js';
import { type ExtraRoutes, signRequest } from '@lookout/sandbox/slack';
import { median, otherBuilds, percentile, productionWorld } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATES = (process.env.BENCH_RATES ?? '20,100,300').split(',').map(Number);
const RANGES = ['last7d', 'last30d', 'today', 'yesterday', 'mtd'];
const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux
const say = (text: string) => console.log(`[ack] ${text}`);

// The response_url sink: answers arrive here; the time from command to answer is recorded.
// It is served by the offline Slack, on Slack's origin: Lookout answers no response_url elsewhere.
const sent = new Map<string, { at: number; answers: number[] }>();
const SINK = '/sink/';
const sink: ExtraRoutes = (req, res, { url }) => {
  if (!url.pathname.startsWith(SINK)) return false;
  const id = url.pathname.slice(SINK.length);
  req.resume();
  req.on('end', () => {
    const command = sent.get(id);
    command?.answers.push(performance.now() - command.at);
    sent.delete(id);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  return true;
};

say('building dist/, starting an offline Slack and the demo API (its own process)');
const world = await productionWorld({ extraRoutes: sink });
const signingSecret = world.env.SLACK_SIGNING_SECRET!;
const dataDir = mkdtempSync(join(tmpdir(), 'lookout-ack-'));
const sinkUrl = `${new URL(world.env.SLACK_API_URL!).origin}${SINK.slice(0, -1)}`;

interface Server {
  name: string;
  child: ChildProcess;
  url: string;
  answers: boolean;
}

/** BENCH_DATABASE_URL: Lookout on PostgreSQL, every build sharing it as replicas do; else each on its own embedded store. */
const store = (data: string) =>
  process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : { DATA_DIR: data };

async function start(name: string, args: string[], answersCommands: boolean, data = dataDir): Promise<Server> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, args, {
    env: { ...world.env, PORT: String(port), OPS_PORT: '0', LOG_LEVEL: 'error', ...store(data) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { name, child, url: `http://127.0.0.1:${port}/slack/events`, answers: answersCommands };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} did not start`);
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

let seq = 0;
let ticks = 0;
interface Phase {
  ackP50: number;
  ackP99: number;
  answerP50: number;
  answerP99: number;
  cpuMsPerCommand: number;
  sent: number;
  answered: number;
  failures: number;
}

/** `rate` commands a second to each of `servers` at once (one app in turn, or all together: BENCH_TOGETHER). */
async function phases(servers: Server[], rate: number): Promise<Phase[]> {
  const each = servers.map((server) => {
    const target = new URL(server.url);
    return {
      server,
      target,
      pool: new Pool(target.origin, { connections: 64 }),
      acks: [] as number[],
      answers: [] as number[],
      failures: 0,
      cpuBefore: cpuSeconds(server.child.pid!),
    };
  });
  sent.clear();
  const total = Math.round(rate * SECONDS);
  const t0 = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const tick = ++ticks;
    const text = `${REPORT_IDS[tick % 11]} ${RANGES[tick % RANGES.length]}`;
    for (const app of each) {
      const id = String(++seq);
      const body = new URLSearchParams({
        token: 'x',
        team_id: 'T_LOOKOUT',
        team_domain: 'bench',
        channel_id: 'C_MARKETING',
        channel_name: 'marketing',
        user_id: `U_BENCH${tick % 500}`,
        user_name: 'alice',
        command: '/traffic',
        text,
        api_app_id: 'A_LOOKOUT',
        response_url: `${sinkUrl}/${id}`,
        trigger_id: `t.${id}`,
      }).toString();
      const sentAt = performance.now();
      sent.set(id, { at: sentAt, answers: app.answers });
      inFlight.push(
        app.pool
          .request({
            method: 'POST',
            path: app.target.pathname,
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...signRequest(signingSecret, body) },
            body,
          })
          .then(async ({ statusCode, body: response }) => {
            await response.dump();
            if (statusCode !== 200) throw new Error(`HTTP ${statusCode}`);
            app.acks.push(performance.now() - sentAt);
          })
          .catch(() => void app.failures++),
      );
    }
  }
  await Promise.all(inFlight);
  // Wait for the last answers (or 5 s).
  const waiting = () => each.some((a) => a.server.answers && a.answers.length < a.acks.length);
  for (let i = 0; i < 100 && waiting(); i++) await new Promise((r) => setTimeout(r, 50));
  return Promise.all(
    each.map(async (app) => {
      const cpu = cpuSeconds(app.server.child.pid!) - app.cpuBefore;
      await app.pool.close();
      const acks = [...app.acks].sort((a, b) => a - b);
      const answered = [...app.answers].sort((a, b) => a - b);
      const done = app.server.answers ? answered.length : acks.length;
      return {
        ackP50: percentile(acks, 50),
        ackP99: percentile(acks, 99),
        answerP50: percentile(answered, 50),
        answerP99: percentile(answered, 99),
        cpuMsPerCommand: (cpu * 1000) / Math.max(1, done),
        sent: total,
        answered: done,
        failures: app.failures,
      };
    }),
  );
}

/** BENCH_PROF=1: a CPU profile of the floor, the answer floor and each build of Lookout, in /tmp/prof/<name>. */
const profile = (name: string) => (process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=/tmp/prof/${name}`] : []);

const lookoutFlags = (process.env.BENCH_LOOKOUT_FLAGS ?? '').split(' ').filter(Boolean);
// The embedded store is one process's: each build has its own data directory.
const builds = otherBuilds().map((b) => ({ ...b, data: mkdtempSync(join(tmpdir(), `lookout-ack-${b.name}-`)) }));
const servers = [
  await start('bare Bolt', ['bench/apps/bare-bolt.mjs'], false),
  await start('floor', [...profile('floor'), 'bench/apps/floor.mjs'], true),
  await start('answer floor', [...profile('answer-floor'), 'bench/apps/answer-floor.mjs'], true),
];
// A build's `main.js` may come after Node flags of its own: `gc=--single-threaded-gc dist/main.js`.
for (const b of builds)
  servers.push(await start(b.name, [...profile(b.name), ...lookoutFlags, ...b.args], true, b.data));
servers.push(await start('Lookout', [...profile('lookout'), ...lookoutFlags, 'dist/main.js'], true));
say(
  `servers up: ${servers.map((s) => s.name).join(', ')}; demo API at ${world.env.ANALYTICS_API_URL}; ${ROUNDS} rounds × rates ${RATES.join(', ')}/s × ${SECONDS} s`,
);

// Each phase loads one app, in turn; BENCH_TOGETHER=1 loads every app at once, so a busy machine's drift is the same for all.
const TOGETHER = process.env.BENCH_TOGETHER === '1';
const groups = TOGETHER ? [servers] : servers.map((s) => [s]);

// Warm-up: JIT, connections, caches.
for (const group of groups) await phases(group, 50);

// What each app costs with no load at all (its timers, background loops and GC), per second. CPU time is
// read in 10 ms ticks: over 5 s a figure moves in steps of 2 ms/s (BENCH_IDLE_SECONDS for finer ones).
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);
const idleMsPerSecond = new Map<string, number>();
for (const s of servers) {
  const before = cpuSeconds(s.child.pid!);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  idleMsPerSecond.set(s.name, ((cpuSeconds(s.child.pid!) - before) * 1000) / IDLE_SECONDS);
}
say(`idle CPU: ${servers.map((s) => `${s.name} ${idleMsPerSecond.get(s.name)!.toFixed(1)} ms/s`).join(' · ')}`);

const results = new Map<string, Phase[]>();
for (let round = 1; round <= ROUNDS; round++) {
  for (const rate of RATES) {
    for (const group of groups) {
      const measured = await phases(group, rate);
      group.forEach((s, i) => {
        const r = measured[i]!;
        const key = `${s.name}@${rate}`;
        results.set(key, [...(results.get(key) ?? []), r]);
        say(
          `round ${round} ${String(rate).padStart(3)}/s ${s.name.padEnd(Math.max(9, ...servers.map((x) => x.name.length)))} ack p50 ${r.ackP50.toFixed(2)} p99 ${r.ackP99.toFixed(2)} ms · answer p50 ${r.answerP50.toFixed(1)} p99 ${r.answerP99.toFixed(1)} ms · CPU ${r.cpuMsPerCommand.toFixed(3)} ms/command · ${r.answered}/${r.sent} answered, ${r.failures} failed`,
        );
      });
    }
  }
}

const m = (name: string, rate: number, f: (p: Phase) => number) => median(results.get(`${name}@${rate}`)!.map(f));
/** The median over rounds of an app's figure divided by another's in the same round: the machine's drift between rounds cancels. */
const ratios = (name: string, against: string, rate: number, f: (p: Phase) => number) => {
  const theirs = results.get(`${against}@${rate}`)!;
  return results.get(`${name}@${rate}`)!.map((p, i) => f(p) / f(theirs[i]!));
};
const ratio = (name: string, against: string, rate: number, f: (p: Phase) => number) =>
  median(ratios(name, against, rate, f));
/** The median ratio, and the lowest and highest of the rounds' own. */
const spread = (name: string, against: string, rate: number, f: (p: Phase) => number) => {
  const each = ratios(name, against, rate, f);
  const range = each.length > 1 ? ` (${Math.min(...each).toFixed(2)}–${Math.max(...each).toFixed(2)})` : '';
  return `${median(each).toFixed(2)}×${range}`;
};
console.log(
  `\nMedians of ${ROUNDS} interleaved rounds, ${SECONDS} s a phase${TOGETHER ? ', every app loaded at once' : ''}; ratios are medians of each round's ratio, with the lowest and highest round's (Node ${process.version}):`,
);
console.log(
  '| rate | app | CPU per command | ÷ floor | ÷ answer floor | ack p50 | ack p99 | ack p99 ÷ bare | answer p50 | answer p99 |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const rate of RATES) {
  for (const s of servers) {
    const cpu = m(s.name, rate, (p) => p.cpuMsPerCommand);
    const cpuRatio = s.name === 'bare Bolt' ? '—' : spread(s.name, 'floor', rate, (p) => p.cpuMsPerCommand);
    const answerRatio = s.answers ? spread(s.name, 'answer floor', rate, (p) => p.cpuMsPerCommand) : '—';
    const ackP99 = m(s.name, rate, (p) => p.ackP99);
    const answer = (f: (p: Phase) => number) => (s.answers ? `${m(s.name, rate, f).toFixed(1)} ms` : '—');
    console.log(
      `| ${rate}/s | ${s.name} | ${cpu.toFixed(3)} ms | ${cpuRatio} | ${answerRatio} | ${m(s.name, rate, (p) => p.ackP50).toFixed(2)} ms | ${ackP99.toFixed(2)} ms | ${ratio(s.name, 'bare Bolt', rate, (p) => p.ackP99).toFixed(2)}× | ${answer((p) => p.answerP50)} | ${answer((p) => p.answerP99)} |`,
    );
  }
}

// Each other build against Lookout, round by round (they ran one after the other): the change's own effect.
if (builds.length > 0) {
  console.log('\n| rate | ' + builds.map((b) => `Lookout ÷ ${b.name}`).join(' | ') + ' |');
  console.log('|---|' + builds.map(() => '---|').join(''));
  for (const rate of RATES)
    console.log(
      `| ${rate}/s | ${builds.map((b) => spread('Lookout', b.name, rate, (p) => p.cpuMsPerCommand)).join(' | ')} |`,
    );
}

for (const s of servers) s.child.kill('SIGTERM');
await world.close();
rmSync(dataDir, { recursive: true, force: true });
for (const b of builds) rmSync(b.data, { recursive: true, force: true });
