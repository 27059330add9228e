/**
 * Memory and start time of Lookout in production mode (`node dist/main.js`) against its two
 * floors, each in its own process, interleaved over several rounds:
 *   - bare Bolt (bench/apps/bare-bolt.mjs), the floor on PostgreSQL;
 *   - bare Bolt that opens PGlite as Lookout opens it, on the DATA_DIR Lookout left
 *     (bench/apps/bare-bolt-pglite.mjs), the floor of the embedded store.
 * For each: start (spawn → GET /healthz answers 200); idle RSS, the process's resident memory
 * BENCH_IDLE_SECONDS (60) after start, and 30 s after it; peak, VmHWM. V8's memory reducer, which
 * gives back what the start allocated, waits until the allocation rate looks idle: on this shared
 * 2-core machine 8–45 s after the start, in a floor as in Lookout, so at 30 s a process is measured
 * before or after it by chance. Lookout runs with its embedded store on a
 * fresh DATA_DIR (first start), on the DATA_DIR that start left (a later start), and on
 * PostgreSQL (TEST_DATABASE_URL, when set). Child processes the app starts are counted with it.
 * Medians with their spread (least–most), and each round's ratio to its floor in that round.
 * Run: npm run bench -- memory   (BENCH_ROUNDS 3, BENCH_IDLE_SECONDS 60; BENCH_ONLY=existing,postgres
 * measures only those beside the floors; BENCH_BUILDS=before=node_modules/.cache/before/dist/main.js
 * measures other builds of Lookout in the same run, as `name=main.js` pairs separated by commas,
 * each on the existing DATA_DIR and on PostgreSQL, like dist/main.js: docs/benchmarks.md says how
 * to build one; Node flags of its own may come before its main.js, e.g. `nr=--no-memory-reducer dist/main.js`)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, otherBuilds, productionWorld } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
/** The idle RSS earlier measurements quote. */
const EARLY_SECONDS = Math.min(30, IDLE_SECONDS);
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
  /** Idle RSS at EARLY_SECONDS and at IDLE_SECONDS. */
  early: number;
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
    const idleFrom = performance.now();
    let early = NaN;
    while (performance.now() < idleFrom + IDLE_SECONDS * 1000) {
      const now = memoryOf(child.pid!);
      peak = Math.max(peak, now.peak);
      if (Number.isNaN(early) && performance.now() >= idleFrom + EARLY_SECONDS * 1000) early = now.rss;
      await new Promise((r) => setTimeout(r, 250));
    }
    const last = memoryOf(child.pid!);
    return { startMs, early: Number.isNaN(early) ? last.rss : early, rss: last.rss, peak: Math.max(peak, last.peak) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
}

/** Which floor a variant is judged against: bare Bolt, or bare Bolt with PGlite opened as Lookout opens it. */
type Floor = 'bare Bolt' | 'bare Bolt + PGlite';
interface Variant {
  /** BENCH_ONLY's word for it. */
  key: string;
  name: string;
  floor?: Floor;
  run: () => Promise<Sample>;
}

const kept = mkdtempSync(join(tmpdir(), 'lookout-memory-kept-'));
const inFreshDir = async (prefix: string, run: (dir: string) => Promise<Sample>) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
const floors: Variant[] = [
  { key: 'bare', name: 'bare Bolt', run: () => measure('bare Bolt', ['bench/apps/bare-bolt.mjs'], {}) },
  {
    key: 'bare-pglite',
    name: 'bare Bolt + PGlite',
    run: () => measure('bare Bolt + PGlite', ['bench/apps/bare-bolt-pglite.mjs'], { DATA_DIR: kept }),
  },
];
const lookouts: Variant[] = [
  {
    key: 'fresh',
    name: 'embedded, fresh DATA_DIR',
    floor: 'bare Bolt + PGlite',
    run: () => inFreshDir('lookout-memory-fresh-', (dir) => measure('fresh', ['dist/main.js'], { DATA_DIR: dir })),
  },
  {
    key: 'existing',
    name: 'embedded, existing DATA_DIR',
    floor: 'bare Bolt + PGlite',
    run: () => measure('existing', ['dist/main.js'], { DATA_DIR: kept }),
  },
  {
    // No template in node_modules/.cache yet: initdb runs once, in a child process.
    key: 'first',
    name: 'embedded, first start ever',
    floor: 'bare Bolt + PGlite',
    run: async () => {
      const cache = join('node_modules', '.cache', 'lookout');
      const aside = `${cache}.aside`;
      rmSync(aside, { recursive: true, force: true });
      if (existsSync(cache)) renameSync(cache, aside);
      try {
        return await inFreshDir('lookout-memory-first-', (dir) =>
          measure('first', ['dist/main.js'], { DATA_DIR: dir }),
        );
      } finally {
        if (existsSync(aside)) {
          rmSync(cache, { recursive: true, force: true });
          renameSync(aside, cache);
        }
      }
    },
  },
  {
    // `npm start` without Slack credentials: demo API, offline Slack and the app in one process (tsx).
    key: 'sandbox',
    name: 'sandbox (npm start)',
    run: () =>
      inFreshDir('lookout-memory-sandbox-', (dir) =>
        measure('sandbox', ['--import', 'tsx', 'src/main.ts'], {
          DATA_DIR: dir,
          NODE_ENV: 'development',
          SLACK_SIGNING_SECRET: '',
          SLACK_BOT_TOKEN: '',
          SLACK_API_URL: '',
          ANALYTICS_API_URL: '',
          ANALYTICS_API_KEY: '',
        }),
      ),
  },
];
const databaseUrl = process.env.TEST_DATABASE_URL;
const builds = otherBuilds();
for (const { name, args } of [{ name: '', args: ['dist/main.js'] }, ...builds]) {
  const of = name ? ` (${name})` : '';
  if (name)
    lookouts.push({
      key: 'existing',
      name: `embedded, existing DATA_DIR${of}`,
      floor: 'bare Bolt + PGlite',
      run: () => measure(`existing${of}`, args, { DATA_DIR: kept }),
    });
  if (databaseUrl)
    lookouts.push({
      key: 'postgres',
      name: `DATABASE_URL (PostgreSQL)${of}`,
      floor: 'bare Bolt',
      run: () => measure(`postgres${of}`, args, { DATABASE_URL: databaseUrl }),
    });
}
if (!databaseUrl) say('PostgreSQL variant skipped: TEST_DATABASE_URL is not set');
const only = process.env.BENCH_ONLY?.split(',').map((k) => k.trim());
const variants = [...floors, ...lookouts.filter((v) => !only || only.includes(v.key))];

say('preparing the kept DATA_DIR (and the PostgreSQL schema): one start each, not counted');
const preparing: Record<string, string>[] = [
  { DATA_DIR: kept },
  ...(databaseUrl ? [{ DATABASE_URL: databaseUrl }] : []),
];
for (const env of preparing)
  await measure('prepare', ['dist/main.js'], env).catch((error: unknown) => say(`prepare failed: ${String(error)}`));

const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const v of variants) {
    const s = await v.run();
    samples.get(v.name)!.push(s);
    say(
      `round ${round}: ${v.name.padEnd(28)} start ${s.startMs.toFixed(0).padStart(5)} ms · idle RSS ${s.rss.toFixed(1).padStart(6)} MB (${s.early.toFixed(1)} MB at ${EARLY_SECONDS} s) · peak ${s.peak.toFixed(0).padStart(4)} MB`,
    );
  }
}

const mb = (n: number) => `${n.toFixed(1)} MB`;
const spread = (xs: number[]) => `${mb(median(xs))} (${mb(Math.min(...xs))}–${mb(Math.max(...xs))})`;
const rssOf = (name: string) => samples.get(name)!.map((s) => s.rss);
/** The ratio of the medians, and the least and most of each round's ratio to the floor measured in that round. */
function ratio(name: string, floor: Floor): string {
  const own = rssOf(name);
  const under = rssOf(floor);
  const rounds = own.map((rss, i) => rss / under[i]!);
  const x = (n: number) => `${n.toFixed(2)}×`;
  return `${x(median(own) / median(under))} (rounds ${x(Math.min(...rounds))}–${x(Math.max(...rounds))})`;
}
console.log(
  `\nIdle RSS ${IDLE_SECONDS} s after start: medians of ${ROUNDS} interleaved rounds, with the least and the most (Node ${process.version}):`,
);
console.log(`| process | start | idle RSS | at ${EARLY_SECONDS} s | peak | ÷ its floor | ÷ bare Bolt |`);
console.log('|---|---|---|---|---|---|---|');
for (const v of variants) {
  const s = samples.get(v.name)!;
  console.log(
    `| ${v.name} | ${median(s.map((x) => x.startMs)).toFixed(0)} ms | ${spread(rssOf(v.name))} | ${mb(
      median(s.map((x) => x.early)),
    )} | ${mb(median(s.map((x) => x.peak)))} | ${v.floor ? `${ratio(v.name, v.floor)} ${v.floor}` : '—'} | ${ratio(
      v.name,
      'bare Bolt',
    )} |`,
  );
}

rmSync(kept, { recursive: true, force: true });
await world.close();
