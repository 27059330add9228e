/**
 * The README's promise, in real time: `npm start`'s sandbox, `/traffic alerts on` in
 * #security right away, and a threat alert arrives within two minutes (on its own, or in
 * the thread of a group's message when several come within minutes), with nothing faked
 * (the demo's live traffic, whose first five minutes bring a flagged visitor each, the
 * 20 s scan, the outbox, the offline Slack).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

describe('the living sandbox, in real time', () => {
  let child: ChildProcess | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-live-'));
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('`/traffic alerts on` in #security right after the start shows a real threat alert within two minutes', async () => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
    };
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const started = Date.now();
    let base: string | undefined;
    while (!base && Date.now() - started < 60_000) {
      base = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1];
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(base, output).toBeDefined();

    const on = await fetch(`${base}/ui/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C_SECURITY', user: 'U_ALICE', text: '/traffic alerts on' }),
    });
    expect(on.status).toBe(200);
    const subscribedAt = Date.now();

    type Shown = { ts: string; blocks?: { type: string; text?: { text: string } }[] };
    const headers = (messages: Shown[]) =>
      messages
        .flatMap((m) => m.blocks ?? [])
        .filter((b) => b.type === 'header')
        .map((b) => b.text?.text ?? '');
    let header: string | undefined;
    while (!header && Date.now() - subscribedAt < 120_000) {
      const state = (await (await fetch(`${base}/ui/state?channel=C_SECURITY&user=U_ALICE`)).json()) as {
        messages: Shown[];
      };
      header = headers(state.messages).find((h) => /visitor v_live_/.test(h));
      // Several flagged visitors within minutes share a group's message: their alerts are in its thread.
      for (const group of state.messages.filter((m) => headers([m]).some((h) => /flagged visitors? since/.test(h)))) {
        const thread = (await (
          await fetch(`${base}/ui/thread?channel=C_SECURITY&ts=${group.ts}&user=U_ALICE`)
        ).json()) as { messages: Shown[] };
        header ??= headers(thread.messages).find((h) => /visitor v_live_/.test(h));
      }
      if (!header) await new Promise((r) => setTimeout(r, 2000));
    }
    expect(header, output.slice(-2000)).toMatch(/^(Threat|Suspicious) · \w+ severity: visitor v_live_/);
    console.log(
      `[live-alert] first alert ${((Date.now() - subscribedAt) / 1000).toFixed(0)} s after /traffic alerts on: ${header}`,
    );
  }, 260_000);
});
