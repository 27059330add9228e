import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { openRepos as openStore } from '../../src/compose.js';
import { textsOf } from '../support/sandbox.js';

/**
 * Lookout as it runs in production (`src/main.ts` with Slack credentials), in its
 * own process, against the demo API and the offline Slack: SIGTERM in the middle
 * of a digest run hands the slot back, and the restart posts it exactly once.
 */
const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
const apiKey = `key-${randomBytes(8).toString('hex')}`;
const dataDir = mkdtempSync(join(tmpdir(), 'lookout-shutdown-'));
let demo: DemoApi;
let slack: OfflineSlack;
const output: string[] = [];

function start(): { child: ChildProcess; lines: { msg?: string }[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      PATH: process.env.PATH,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_BOT_TOKEN: botToken,
      SLACK_API_URL: slack.apiUrl,
      ANALYTICS_API_URL: demo.url,
      ANALYTICS_API_KEY: apiKey,
      DATA_DIR: dataDir,
      PORT: '0',
      OPS_PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: { msg?: string }[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      output.push(line);
      try {
        lines.push(JSON.parse(line) as { msg?: string });
      } catch {
        lines.push({ msg: line });
      }
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

async function until(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out; output:\n${output.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  demo = await startDemoApi({ apiKey });
  slack = await startOfflineSlack({ signingSecret, botToken });
});
afterAll(async () => {
  await slack?.close();
  await demo?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('graceful shutdown', () => {
  it('SIGTERM during a digest run hands the slot back; the restart posts it once', async () => {
    // A digest whose slot was ten minutes ago and never ran: the app posts it as it starts.
    const slot = new Date(Math.floor((Date.now() - 10 * 60_000) / 60_000) * 60_000);
    const store = await openStore({ dataDir });
    const digest = await store.digests.create({
      teamId: 'T_LOOKOUT',
      channelId: 'C_GENERAL',
      ownerId: 'U_ALICE',
      reports: ['sources'],
      topN: 3,
      period: 'day',
      schedule: { kind: 'cron', cron: `${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *` },
      cron: `${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`,
      timeZone: 'UTC',
    });
    await store.db.query(`update digests set created_at = now() - interval '1 day'`);
    await store.close();

    // A slow API keeps the run busy long enough to be interrupted.
    demo.setFaults({ latencyMs: 1500 });
    const first = start();
    await until(() => first.lines.some((l) => l.msg?.startsWith('posting a digest slot missed')), 20_000);
    const stoppedAt = Date.now();
    first.child.kill('SIGTERM');
    const code = await first.exited;
    if (code !== 0) console.log(output.join('\n'));
    expect(code).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(first.lines.some((l) => l.msg === 'shutting down: digest slot handed back, not posted')).toBe(true);
    const posts = () =>
      slack.messages('C_GENERAL').filter((m) => textsOf(m).join(' ').includes(`digest #${digest.id}`));
    expect(posts()).toHaveLength(0);

    demo.setFaults({});
    const second = start();
    await until(() => posts().length > 0, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(posts()).toHaveLength(1);

    const after = await openStore({ dataDir });
    const run = await after.runs.get(digest.id, slot);
    await after.close();
    expect(run).toMatchObject({ status: 'posted', messageTs: posts()[0]!.ts });
    // Nothing secret in anything the process printed.
    for (const line of output)
      for (const secret of [signingSecret, botToken, apiKey]) expect(line).not.toContain(secret);
  }, 60_000);
});
