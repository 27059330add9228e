/**
 * `npm start` without Slack credentials listens on loopback only: every listening TCP socket
 * of its processes (npm, tsx, node: the demo API, the offline Slack, the app and its ops
 * listener) is bound to 127.0.0.1 or ::1, read from /proc as `ss -ltnp` reads it. What it
 * prints names each workspace's demo account, for a person to connect it from the Home.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** The process and its descendants. */
function tree(pid: number): number[] {
  const children = (p: number) =>
    readdirSync(`/proc/${p}/task`, { withFileTypes: true }).flatMap((task) => {
      try {
        return readFileSync(`/proc/${p}/task/${task.name}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]!));
  return all;
}

/** The socket inodes a process holds open. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** An address of /proc/net/tcp{,6}: IPv4 as one little-endian word, IPv6 as four. */
function address(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(''));
  if (words.length === 1)
    return words[0]!
      .match(/../g)!
      .map((b) => parseInt(b, 16))
      .join('.');
  const bytes = words.join('');
  if (bytes.startsWith('00000000000000000000ffff')) return `::ffff:${address(hex.slice(24))}`;
  return bytes
    .match(/.{4}/g)!
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':');
}

/** Every listening TCP socket of these processes, as address and port. */
function listening(pids: number[]): { host: string; port: number }[] {
  const inodes = new Set(pids.flatMap((pid) => [...socketInodes(pid)]));
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols[3] === '0A' && inodes.has(cols[9]!))
      .map((cols) => {
        const [host, port] = cols[1]!.split(':');
        return { host: address(host!), port: parseInt(port!, 16) };
      }),
  );
}

const loopback = (host: string) => /^127\./.test(host) || host === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(host);

describe.skipIf(!existsSync('/proc/net/tcp'))('npm start, without Slack credentials', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-loopback-'));
  let child: ChildProcess | undefined;
  let out = '';
  afterAll(async () => {
    if (child?.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('binds every listener to loopback: the demo API, the offline Slack, the app and its ops listener', async () => {
    child = spawn('npm', ['start'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATA_DIR: dataDir,
        PORT: '0',
        OPS_PORT: '0',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout!.on('data', (d: Buffer) => (out += String(d)));
    child.stderr!.on('data', (d: Buffer) => (out += String(d)));
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        // The log line naming the app's URL is written by the logger, which may flush after the printed lines.
        if (out.includes('Metrics and readiness: http://') && /"app":"http:\/\/[^"]+\/slack\/events"/.test(out))
          resolve();
        else if (child!.exitCode !== null) reject(new Error(out));
        else return;
        clearInterval(check);
      }, 100);
    });

    const sockets = listening(tree(child.pid!));
    const workspace = Number(/open http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1]);
    const app = Number(/"app":"http:\/\/[^"]+:(\d+)\/slack\/events"/.exec(out)?.[1]);
    const ops = Number(/Metrics and readiness: http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1]);
    const ports = sockets.map((s) => s.port);
    for (const port of [workspace, app, ops]) expect(ports, out).toContain(port);
    // The three above and the demo API.
    expect(sockets.length).toBeGreaterThanOrEqual(4);
    expect(sockets.filter((s) => !loopback(s.host))).toEqual([]);
  }, 90_000);

  it("prints each workspace's demo account, its own key working at the printed base URL", async () => {
    await expect.poll(() => out).toMatch(/Other Co: .*\n/);
    const printed = [
      ...out.matchAll(
        /^ {4}(Lookout Sandbox \(connected once Lookout has started\)|Other Co): (http:\/\/\S+), key (\S+)$/gm,
      ),
    ];
    expect(printed.map((m) => m[1])).toEqual(['Lookout Sandbox (connected once Lookout has started)', 'Other Co']);
    const keys = printed.map((m) => m[3]!);
    expect(new Set(keys).size).toBe(2);
    for (const [, , baseUrl, key] of printed) {
      const res = await fetch(`${baseUrl}/traffic/sources`, { method: 'POST', headers: { 'x-api-key': key! } });
      expect(res.status).toBe(200);
    }
  });
});
