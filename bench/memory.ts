/**
 * Memory and start time of Lookout in production mode (`node dist/main.js`) against a bare
 * Bolt app started the same way, each in its own process, interleaved over several rounds:
 *   - start: spawn → GET /healthz answers 200;
 *   - idle RSS: the process's resident memory BENCH_IDLE_SECONDS (30) after start;
 *   - peak: VmHWM, the most it was resident at any moment.
 * Lookout runs with its embedded store on a fresh DATA_DIR (first start), on the DATA_DIR
 * that start left (a later start), and on PostgreSQL (TEST_DATABASE_URL, when set). Child
 * processes the app starts are counted with it. Medians and ratios against bare Bolt.
 * Run: npm run bench -- memory   (BENCH_ROUNDS 3, BENCH_IDLE_SECONDS 30)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, productionWorld } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const say = (text: string) => console.log(`[memory] ${text}`);

say('building dist/, starting an offline Slack and the demo API (its own process)');
const world = await productionWorld();

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resident and peak memory of a process and all its descendants, in MB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]);
        if (ppid === pids[i] && !pids.includes(Number(entry))) pids.push(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
  }
  let rss = 0;
  let peak = 0;
  for (const p of pids) {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      peak += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      // gone meanwhile
    }
  }
  return { rss, peak };
}

interface Sample {
  startMs: number;
  rss: number;
  peak: number;
}

async function measure(name: string, args: string[], env: Record<string, string>): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...world.env, PORT: String(port), OPS_PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let peak = 0;
  try {
    let startMs = NaN;
    while (Number.isNaN(startMs)) {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
      if (performance.now() - started > 60_000) throw new Error(`${name} did not answer /healthz within 60 s`);
      peak = Math.max(peak, memoryOf(child.pid!).peak);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) startMs = performance.now() - started;
      else await new Promise((r) => setTimeout(r, 20));
    }
    const until = performance.now() + IDLE_SECONDS * 1000;
    while (performance.now() < until) {
      peak = Math.max(peak, memoryOf(child.pid!).peak);
      await new Promise((r) => setTimeout(r, 250));
    }
    const last = memoryOf(child.pid!);
    return { startMs, rss: last.rss, peak: Math.max(peak, last.peak) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const kept = mkdtempSync(join(tmpdir(), 'lookout-memory-kept-'));
const variants: { name: string; run: (round: number) => Promise<Sample> }[] = [
  { name: 'bare Bolt', run: () => measure('bare Bolt', ['bench/apps/bare-bolt.mjs'], {}) },
  {
    name: 'embedded, fresh DATA_DIR',
    run: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lookout-memory-fresh-'));
      try {
        return await measure('fresh', ['dist/main.js'], { DATA_DIR: dir });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  { name: 'embedded, existing DATA_DIR', run: () => measure('existing', ['dist/main.js'], { DATA_DIR: kept }) },
  {
    // No template in node_modules/.cache yet: initdb runs once, in a child process.
    name: 'embedded, first start ever',
    run: async () => {
      const cache = join('node_modules', '.cache', 'lookout');
      const aside = `${cache}.aside`;
      rmSync(aside, { recursive: true, force: true });
      if (existsSync(cache)) renameSync(cache, aside);
      const dir = mkdtempSync(join(tmpdir(), 'lookout-memory-first-'));
      try {
        return await measure('first', ['dist/main.js'], { DATA_DIR: dir });
      } finally {
        rmSync(dir, { recursive: true, force: true });
        if (existsSync(aside)) {
          rmSync(cache, { recursive: true, force: true });
          renameSync(aside, cache);
        }
      }
    },
  },
  {
    // `npm start` without Slack credentials: demo API, offline Slack and the app in one process (tsx).
    name: 'sandbox (npm start)',
    run: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lookout-memory-sandbox-'));
      try {
        return await measure('sandbox', ['--import', 'tsx', 'src/main.ts'], {
          DATA_DIR: dir,
          NODE_ENV: 'development',
          SLACK_SIGNING_SECRET: '',
          SLACK_BOT_TOKEN: '',
          SLACK_API_URL: '',
          ANALYTICS_API_URL: '',
          ANALYTICS_API_KEY: '',
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
if (process.env.TEST_DATABASE_URL)
  variants.push({
    name: 'DATABASE_URL (PostgreSQL)',
    run: () => measure('postgres', ['dist/main.js'], { DATABASE_URL: process.env.TEST_DATABASE_URL! }),
  });
else say('PostgreSQL variant skipped: TEST_DATABASE_URL is not set');

say('preparing the kept DATA_DIR (one start, not counted)');
await measure('prepare', ['dist/main.js'], { DATA_DIR: kept }).catch((error: unknown) =>
  say(`prepare failed: ${String(error)}`),
);

const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const v of variants) {
    const s = await v.run(round);
    samples.get(v.name)!.push(s);
    say(
      `round ${round}: ${v.name.padEnd(28)} start ${s.startMs.toFixed(0).padStart(5)} ms · idle RSS ${s.rss.toFixed(0).padStart(4)} MB · peak ${s.peak.toFixed(0).padStart(4)} MB`,
    );
  }
}

const floor = samples.get('bare Bolt')!;
const floorRss = median(floor.map((s) => s.rss));
const floorPeak = median(floor.map((s) => s.peak));
console.log(`\nMedians of ${ROUNDS} interleaved rounds, idle after ${IDLE_SECONDS} s (Node ${process.version}):`);
console.log('| process | start | idle RSS | peak | idle ÷ bare | peak ÷ bare |');
console.log('|---|---|---|---|---|---|');
for (const [name, s] of samples) {
  const rss = median(s.map((x) => x.rss));
  const peak = median(s.map((x) => x.peak));
  console.log(
    `| ${name} | ${median(s.map((x) => x.startMs)).toFixed(0)} ms | ${rss.toFixed(0)} MB | ${peak.toFixed(0)} MB | ${(rss / floorRss).toFixed(2)}× | ${(peak / floorPeak).toFixed(2)}× |`,
  );
}

rmSync(kept, { recursive: true, force: true });
await world.close();
