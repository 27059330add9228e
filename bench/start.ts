/**
 * How long `npm start` takes, with no Slack credentials and a fresh data directory,
 * until it prints the workspace's URL, the page answers in a browser's stead, the page's
 * own first request is answered (it waits for the app) and the app has answered a first
 * `/traffic` command: once without the data directory template (as
 * after `npm ci --ignore-scripts`; START_WITHOUT_TEMPLATE=0 skips it), then START_RUNS
 * times (default 5) as after `npm ci`, whose postinstall (src/prepare-template.ts) makes the template
 * and the spare copy of it a first start takes: each run is a fresh clone's first start, so that step is
 * run again before each (not timed). Medians of those runs. The machine's cores and load average
 * are printed before and after: start time on a shared machine depends on them.
 * Run: npm run bench -- start   (or START_RUNS=9 npm run bench -- start)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './stats.js';

const runs = Number(process.env.START_RUNS ?? 5);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`START_RUNS must be a whole number of runs, got ${process.env.START_RUNS}`);

const machine = () =>
  `${availableParallelism()} cores, load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ')} (1, 5, 15 min)`;
console.log(`before: ${machine()}`);

// The run without the template moves node_modules' template aside for a while: START_WITHOUT_TEMPLATE=0 leaves it
// alone (where node_modules is shared with other work).
if (process.env.START_WITHOUT_TEMPLATE !== '0') {
  const cache = join('node_modules', '.cache', 'lookout');
  const aside = `${cache}.aside`;
  rmSync(aside, { recursive: true, force: true });
  if (existsSync(cache)) renameSync(cache, aside);
  try {
    await once('without the data directory template (npm ci --ignore-scripts)');
  } finally {
    if (existsSync(aside)) {
      rmSync(cache, { recursive: true, force: true });
      renameSync(aside, cache);
    }
  }
}
const timings: Timing[] = [];
for (let i = 1; i <= runs; i++) {
  afterInstall();
  timings.push(await once(`a fresh clone after npm ci (the template made at install), run ${i} of ${runs}`));
}
console.log(
  `npm start after npm ci, median of ${runs}: URL printed after ${seconds(median(timings.map((t) => t.printed)))} ` +
    `(${timings.map((t) => seconds(t.printed)).join(', ')}), page served after ${seconds(median(timings.map((t) => t.page)))}, ` +
    `its workspace after ${seconds(median(timings.map((t) => t.ready)))}, ` +
    `first /traffic answer after ${seconds(median(timings.map((t) => t.answered)))}`,
);
console.log(`after: ${machine()}`);

/** What `npm ci`'s postinstall leaves: the template and its spare (the previous run's first start took the spare). */
function afterInstall(): void {
  const made = spawnSync(process.execPath, ['--import', 'tsx', 'src/prepare-template.ts'], { stdio: 'ignore' });
  if (made.status !== 0) throw new Error(`src/prepare-template.ts ended with ${made.status}`);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Milliseconds after the spawn of `npm start`. */
interface Timing {
  printed: number;
  page: number;
  /** The page's own first request answered: Lookout has started and is installed. */
  ready: number;
  answered: number;
}

async function once(label: string): Promise<Timing> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-start-'));
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });

  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += String(chunk);
      const match = /open (http:\/\/\S+?)\/? in a browser/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}`)));
  });
  const printed = performance.now();
  const page = await fetch(`${url}/`);
  if (!page.ok) throw new Error(`GET / answered ${page.status}`);
  const pageAt = performance.now();
  // The page's first request of its own: held until the app has started and been installed.
  const workspace = await fetch(`${url}/ui/workspace`);
  if (!workspace.ok) throw new Error(`GET /ui/workspace answered ${workspace.status}`);
  const readyAt = performance.now();

  const sent = await fetch(`${url}/ui/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ channel: 'C_MARKETING', user: 'U_ALICE', text: '/traffic sources last7d' }),
  });
  if (!sent.ok) throw new Error(`the command answered ${sent.status}`);
  let answered = NaN;
  for (let i = 0; i < 200; i++) {
    const state = (await (await fetch(`${url}/ui/state?channel=C_MARKETING&user=U_ALICE`)).json()) as {
      messages?: { blocks?: { type: string }[] }[];
    };
    if (state.messages?.some((m) => m.blocks?.some((b) => b.type === 'table' || b.type === 'data_table'))) {
      answered = performance.now();
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  const timing = {
    printed: printed - started,
    page: pageAt - started,
    ready: readyAt - started,
    answered: answered - started,
  };
  console.log(
    `npm start, ${label}: URL printed after ${seconds(timing.printed)}, page served after ${seconds(timing.page)}, ` +
      `its workspace after ${seconds(timing.ready)}, first /traffic answer after ${seconds(timing.answered)}`,
  );
  process.kill(-child.pid!, 'SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  return timing;
}
