/**
 * Ack latency of /traffic under load: 50 concurrent senders fire signed slash
 * commands for 20 s at the Lookout app, then the same at a bare Bolt app that
 * only acks. Also command-to-answer: from sending the command to the answer
 * arriving at its response_url. The apps run in one process, the demo API in
 * another, the senders in this one.
 *
 * Two loads: paced (each sender sends a command every BENCH_INTERVAL_MS, 100 ms:
 * 500 commands a second in all, far above what a workspace sends) and flat out
 * (each sender sends again as soon as it has its ack), which measures saturation.
 * Run: npm run bench -- ack   (BENCH_SECONDS, BENCH_SENDERS, BENCH_INTERVAL_MS override 20, 50, 100)
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { signRequest } from '../src/sandbox/slack/signing.js';
import { REPORT_IDS } from '../src/kernel/catalog.js';
import { ms, percentile, spawnDemoApi } from './stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 50);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 100);
const RANGES = ['last7d', 'last30d', 'today', 'yesterday', 'mtd'];

const demo = await spawnDemoApi({ DEMO_API_KEY: 'bench' });

const child = spawn(process.execPath, [...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), '--import', 'tsx', 'bench/ack-server.ts'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, BENCH_API_URL: demo.url, BENCH_API_KEY: 'bench' },
});
const targets = await new Promise<{ lookout: string; bare: string; signingSecret: string }>((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += String(chunk);
    const line = out.split('\n').find((l) => l.startsWith('{'));
    if (line) resolve(JSON.parse(line));
  });
  child.once('exit', (code) => reject(new Error(`ack-server exited with ${code}`)));
});

// The response_url sink: answers arrive here; the time from command to answer is recorded.
const sent = new Map<string, number>();
const answers: number[] = [];
const sink = createServer((req, res) => {
  const id = req.url!.slice(1);
  req.resume();
  req.on('end', () => {
    const at = sent.get(id);
    if (at !== undefined) answers.push(performance.now() - at);
    sent.delete(id);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

let seq = 0;
async function phase(name: string, url: string, intervalMs: number): Promise<void> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: SENDERS });
  const latencies: number[] = [];
  let failures = 0;
  const firstFailures = new Map<string, number>();
  const deadline = performance.now() + SECONDS * 1000;
  answers.length = 0;
  sent.clear();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, sender) => {
      // Paced senders start spread over one interval, then keep to their own schedule.
      let next = performance.now() + (intervalMs * sender) / SENDERS;
      while (performance.now() < deadline) {
        if (intervalMs > 0) {
          const wait = next - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          next += intervalMs;
        }
        const id = String(++seq);
        const text = `${REPORT_IDS[seq % REPORT_IDS.length]} ${RANGES[seq % RANGES.length]}`;
        const body = new URLSearchParams({
          token: 'x', team_id: 'T_LOOKOUT', team_domain: 'bench', channel_id: 'C_MARKETING', channel_name: 'marketing',
          user_id: 'U_ALICE', user_name: 'alice', command: '/traffic', text, api_app_id: 'A_LOOKOUT',
          response_url: `${sinkUrl}/${id}`, trigger_id: `t.${id}`,
        }).toString();
        const t0 = performance.now();
        sent.set(id, t0);
        try {
          const { statusCode, body: response } = await pool.request({
            method: 'POST',
            path: target.pathname,
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...signRequest(targets.signingSecret, body) },
            body,
          });
          await response.dump();
          if (statusCode !== 200) throw new Error(`HTTP ${statusCode}`);
          latencies.push(performance.now() - t0);
        } catch (error) {
          failures++;
          const key = error instanceof Error ? error.message : String(error);
          firstFailures.set(key, (firstFailures.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  await pool.close();
  latencies.sort((a, b) => a - b);
  results.set(name, { p50: percentile(latencies, 50), p99: percentile(latencies, 99) });
  if (name.startsWith('lookout')) {
    await new Promise((r) => setTimeout(r, 3000)); // the last answers
    const answered = [...answers].sort((a, b) => a - b);
    answerLines.push(
      `${name}: command → answer p50 ${ms(percentile(answered, 50))}, p99 ${ms(percentile(answered, 99))}, ${answered.length} answered, ${sent.size} unanswered`,
    );
  }
  console.log(
    `${name.padEnd(16)} ${latencies.length} acks in ${SECONDS} s (${(latencies.length / SECONDS).toFixed(0)}/s)   ` +
      `ack p50 ${ms(percentile(latencies, 50))}   p99 ${ms(percentile(latencies, 99))}   max ${ms(latencies.at(-1) ?? NaN)}   failures ${failures}` +
      (failures ? ` ${JSON.stringify(Object.fromEntries(firstFailures))}` : ''),
  );
}

const results = new Map<string, { p50: number; p99: number }>();
const answerLines: string[] = [];
console.log(`ack: ${SENDERS} concurrent senders, ${SECONDS} s per run, signed /traffic commands over 13 reports × 5 ranges`);
for (const [label, interval] of [[`paced ${INTERVAL_MS} ms`, INTERVAL_MS], ['flat out', 0]] as const) {
  console.log(`\n${label}:`);
  await phase(`bare`, targets.bare, interval);
  await phase(`lookout`, targets.lookout, interval);
  const bare = results.get('bare')!;
  const lookout = results.get('lookout')!;
  console.log(`ratio lookout/bare: ack p50 ${(lookout.p50 / bare.p50).toFixed(2)}×, p99 ${(lookout.p99 / bare.p99).toFixed(2)}×`);
  console.log(answerLines.pop());
}

child.kill('SIGTERM');
demo.stop();
sink.close();
