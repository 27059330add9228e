/**
 * Lookout as it runs in production (`src/main.ts` with Slack credentials), each replica
 * its own process, against the demo API and the offline Slack in this process. Faults
 * are injected for real: SIGKILL, a TCP proxy in front of PostgreSQL, Slack calls that
 * hang, are refused or are answered late.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { openDb } from '../../src/platform/store/db.js';
import { textsOf } from './sandbox.js';

export interface World {
  demo: DemoApi;
  slack: OfflineSlack;
  signingSecret: string;
  botToken: string;
  apiKey: string;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
  const apiKey = `key-${randomBytes(8).toString('hex')}`;
  const demo = await startDemoApi({ apiKey });
  const slack = await startOfflineSlack({ signingSecret, botToken });
  return {
    demo,
    slack,
    signingSecret,
    botToken,
    apiKey,
    async close() {
      await slack.close();
      await demo.close();
    },
  };
}

export interface Replica {
  name: string;
  child: ChildProcess;
  port: number;
  url: string;
  /** The ops listener: /metrics and /readyz (OPS_PORT, on loopback). */
  opsUrl: string;
  /** Every line it printed, parsed where it was JSON. */
  lines: { msg?: string; [key: string]: unknown }[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Whether it is still running (a crash is an exit nobody asked for). */
  alive(): boolean;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Fast settings so a scenario takes seconds: 1 s scans, 300 ms heartbeats, 1.5 s Slack timeout. */
export const FAST = {
  ALERT_SCAN_INTERVAL: '1s',
  ALERT_RECHECK_AFTER: '0',
  HEARTBEAT: '0.3s',
  SLACK_TIMEOUT: '1.5s',
};

export async function startReplica(
  world: World,
  name: string,
  store: Record<string, string>,
  env: Record<string, string> = {},
): Promise<Replica> {
  const port = await freePort();
  const opsPort = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      PATH: process.env.PATH,
      SLACK_SIGNING_SECRET: world.signingSecret,
      SLACK_BOT_TOKEN: world.botToken,
      SLACK_API_URL: world.slack.apiUrl,
      ANALYTICS_API_URL: world.demo.url,
      ANALYTICS_API_KEY: world.apiKey,
      ANALYTICS_TIMEOUT_MS: '3000',
      PORT: String(port),
      OPS_PORT: String(opsPort),
      LOG_LEVEL: 'info',
      ...FAST,
      ...store,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Replica['lines'] = [];
  const collect = (chunk: Buffer) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      try {
        lines.push(JSON.parse(line) as Replica['lines'][number]);
      } catch {
        lines.push({ msg: line });
      }
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running = false;
      resolve({ code, signal });
    }),
  );
  const replica: Replica = {
    name,
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    opsUrl: `http://127.0.0.1:${opsPort}`,
    lines,
    exited,
    async kill(signal = 'SIGKILL') {
      if (!running) return;
      child.kill(signal);
      await exited;
    },
    alive: () => running,
  };
  await untilLogged(
    () => lines.some((l) => l.msg === 'Lookout is running against Slack') || !running,
    30_000,
    () => lines,
  );
  if (!running) throw new Error(`${name} exited while starting:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`);
  return replica;
}

/** Waits for `predicate` (polled every 25 ms); the error shows the last lines of `logs`. */
export async function untilLogged(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  logs?: () => unknown[],
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      const tail = logs
        ? `; last lines:\n${logs()
            .slice(-25)
            .map((l) => JSON.stringify(l))
            .join('\n')}`
        : '';
      throw new Error(`timed out after ${timeoutMs} ms${tail}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A fresh PostgreSQL database for replicas to share, dropped by the returned function. */
export async function freshDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `lookout_chaos_${randomBytes(4).toString('hex')}`;
  const admin = await openDb({ databaseUrl: adminUrl });
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.close();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const db = await openDb({ databaseUrl: adminUrl });
      await db.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await db.close();
    },
  };
}

/** A message's text and every text in its blocks, as one string. */
export const wholeText = (m: { text: string; blocks?: unknown[] }) => `${m.text} ${textsOf(m).join(' ')}`;

/** The alerts about visitor `id` in a channel (top level, or a reply in a group's thread), with blocks or (after Slack refused the blocks) as plain text. */
export const alertsFor = (slack: OfflineSlack, channel: string, id: string) =>
  slack
    .messages(channel)
    .flatMap((m) => slack.thread(channel, m.ts))
    .filter((m) => m.text.includes(`severity: visitor ${id}`));
