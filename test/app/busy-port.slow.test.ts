/**
 * A port already taken is not a crash. `npm start` without Slack credentials takes a free
 * port and still prints its URL (the app's and the ops listener's); with credentials, a
 * taken PORT or OPS_PORT, or an OPS_HOST that is not this machine's, stops the process
 * with one line naming the variable, and no stack trace.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWorld, type World } from '../support/harness.js';

let holder: Server | undefined;
let opsHolder: Server | undefined;
let world: World;
const dataDir = mkdtempSync(join(tmpdir(), 'lookout-busy-port-'));

/** Holds `port` (if something else holds it already, it is taken all the same). */
function hold(port: number, host?: string): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => resolve(server));
  });
}

beforeAll(async () => {
  holder = await hold(3000);
  opsHolder = await hold(3001, '127.0.0.1');
  world = await startWorld();
});
afterAll(async () => {
  await new Promise((r) => (holder ? holder.close(r) : r(undefined)));
  await new Promise((r) => (opsHolder ? opsHolder.close(r) : r(undefined)));
  await world?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs src/main.ts until `done` says so of its output (or it exits); returns its output and exit code. */
function run(
  env: Record<string, string>,
  done: (out: string) => boolean,
): Promise<{ out: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const collect = (chunk: Buffer) => {
      out += String(chunk);
      if (done(out)) child.kill('SIGTERM');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => resolve({ out, code }));
  });
}

it('without Slack credentials: the sandbox takes free ports, says which, and prints its URLs', async () => {
  const { out } = await run({ DATA_DIR: dataDir }, (o) => o.includes('Metrics and readiness: http://'));
  expect(out).toContain("port 3000 is taken: the sandbox's app listens on a free port instead");
  expect(out).toContain("OPS_PORT 3001 is taken: the sandbox's ops listener listens on a free port instead");
  expect(out).toMatch(/Lookout sandbox: open http:\/\/127\.0\.0\.1:\d+\//);
  const app = /"app":"http:\/\/[^:]+:(\d+)\/slack\/events"/.exec(out);
  expect(Number(app?.[1])).not.toBe(3000);
  const ops = /Metrics and readiness: http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(out);
  expect(Number(ops?.[1])).not.toBe(3001);
  expect(out).not.toMatch(/EADDRINUSE|\n\s+at /);
}, 90_000);

it('with Slack credentials: a taken PORT stops it with one line naming PORT, no stack trace', async () => {
  const { out, code } = await run(
    {
      SLACK_SIGNING_SECRET: world.signingSecret,
      SLACK_BOT_TOKEN: world.botToken,
      SLACK_API_URL: world.slack.apiUrl,
      ANALYTICS_API_URL: world.demo.url,
      ANALYTICS_API_KEY: world.apiKey,
      DATA_DIR: dataDir,
      PORT: '3000',
      OPS_PORT: '0',
    },
    () => false,
  );
  expect(code).toBe(1);
  expect(out).toContain('PORT 3000 is already in use by another process: stop it, or set PORT to a free port.');
  expect(out).not.toMatch(/\n\s+at |Error:/);
}, 90_000);

const credentials = () => ({
  SLACK_SIGNING_SECRET: world.signingSecret,
  SLACK_BOT_TOKEN: world.botToken,
  SLACK_API_URL: world.slack.apiUrl,
  ANALYTICS_API_URL: world.demo.url,
  ANALYTICS_API_KEY: world.apiKey,
  DATA_DIR: dataDir,
  PORT: '0',
});

it('with Slack credentials: a taken OPS_PORT stops it with one line naming OPS_PORT, no stack trace', async () => {
  const taken = await hold(0, '127.0.0.1');
  const port = (taken!.address() as { port: number }).port;
  try {
    const { out, code } = await run({ ...credentials(), OPS_PORT: String(port) }, () => false);
    expect(code).toBe(1);
    expect(out).toContain(
      `OPS_PORT ${port} is already in use by another process: stop it, or set OPS_PORT to a free port.`,
    );
    expect(out).not.toMatch(/\n\s+at |Error:/);
  } finally {
    await new Promise((r) => taken!.close(r));
  }
}, 90_000);

it('with Slack credentials: an OPS_HOST that is not an address of this machine stops it with one line, no stack trace', async () => {
  // 192.0.2.1 is set aside for documentation (RFC 5737): no machine has it.
  const { out, code } = await run({ ...credentials(), OPS_PORT: '0', OPS_HOST: '192.0.2.1' }, () => false);
  expect(code).toBe(1);
  expect(out).toContain('OPS_HOST 192.0.2.1 is not an address of this machine');
  expect(out).not.toMatch(/\n\s+at |Error:/);
}, 90_000);
