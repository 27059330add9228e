/**
 * How long `npm start` takes, with no Slack credentials and a fresh data directory,
 * until the offline workspace page answers in a browser's stead and the app has
 * answered a first `/traffic` command: first without the data directory template (as
 * after `npm ci --ignore-scripts`), then with it (as after `npm ci`, which makes it).
 * Run: npm run bench -- start
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
await once('a fresh clone after npm ci (the template made at install)');

async function once(label: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-start-'));
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', OPS_PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });

  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
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

  const sent = await fetch(`${url}/ui/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ channel: 'C_MARKETING', user: 'U_ALICE', text: '/traffic sources last7d' }),
  });
  if (!sent.ok) throw new Error(`the command answered ${sent.status}`);
  let answered = NaN;
  for (let i = 0; i < 200; i++) {
    const state = (await (await fetch(`${url}/ui/state?channel=C_MARKETING&user=U_ALICE`)).json()) as { messages?: { blocks?: { type: string }[] }[] };
    if (state.messages?.some((m) => m.blocks?.some((b) => b.type === 'table' || b.type === 'data_table'))) {
      answered = performance.now();
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  const s = (t: number) => `${((t - started) / 1000).toFixed(1)} s`;
  console.log(`npm start, ${label}: URL printed after ${s(printed)}, page served after ${s(pageAt)}, first /traffic answer after ${s(answered)}`);
  process.kill(-child.pid!, 'SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
