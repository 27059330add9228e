/**
 * /readyz checks what the deployment needs in its mode, on each store: one workspace, and a
 * distributed app with workspaces installed and connected. Each is ready, then not ready once
 * its store is cut: PostgreSQL refused through a TCP proxy; PGlite, one process's own store,
 * closed under it (the embedded store's only way to stop answering).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type OpenDbOptions } from '../../../src/platform/store/db.js';
import { dropSchemas, TEST_DATABASE_URL } from '../../support/db.js';
import { connect, distributedSandbox, install } from '../../support/distributed.js';
import { sandbox } from '../../support/sandbox.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';
import { until } from '../../support/until.js';

interface Readyz {
  status: number;
  body: { ok: boolean; checks: Record<string, string> };
}

async function readyz(opsUrl: string): Promise<Readyz> {
  const res = await fetch(`${opsUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Readyz['body'] };
}

/** Readiness is cached for a few seconds: waits for an answer past the window that says `status`. */
const readyzUntil = (opsUrl: string, status: number) =>
  until(async () => {
    const r = await readyz(opsUrl);
    return r.status === status ? r : undefined;
  }, `/readyz to answer ${status}`);

if (!TEST_DATABASE_URL) console.warn('readiness on PostgreSQL: skipped: TEST_DATABASE_URL is not set');

for (const kind of ['pglite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !TEST_DATABASE_URL)(`/readyz [${kind}]`, () => {
    const schemas: string[] = [];
    const stops: (() => Promise<void>)[] = [];
    let proxy: TcpProxy | undefined;

    /** The store to start on, and how to cut it once started (`close`: the app's own store, for PGlite). */
    async function storeToCut(): Promise<{ store: OpenDbOptions; cut: (close: () => Promise<void>) => Promise<void> }> {
      if (kind === 'pglite') return { store: { memory: true }, cut: (close) => close() };
      const real = new URL(TEST_DATABASE_URL!);
      const opened = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
      proxy = opened;
      const via = new URL(TEST_DATABASE_URL!);
      via.hostname = '127.0.0.1';
      via.port = String(opened.port);
      const schema = `t_readyz_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      return {
        store: { databaseUrl: via.toString(), schema, timeouts: { connectMs: 1_000, queryMs: 1_000 } },
        cut: async () => opened.refuse(),
      };
    }

    afterEach(async () => {
      for (const stop of stops.splice(0)) await stop();
      await proxy?.close();
      proxy = undefined;
    });

    afterAll(async () => {
      if (kind === 'postgres') await dropSchemas(...schemas);
    });

    it('one workspace: ready with its store, API and clock; 503 naming the store once the store is cut', async () => {
      const { store, cut } = await storeToCut();
      const box = await sandbox({ store, scheduler: false });
      stops.push(() => box.stop());

      const ready = await readyz(box.lookout.ops.url);
      expect(ready).toEqual({ status: 200, body: { ok: true, checks: { store: 'ok', api: 'ok', clock: 'ok' } } });

      await cut(() => box.lookout.store.db.close());
      const down = await readyzUntil(box.lookout.ops.url, 503);
      expect(down.body).toEqual({ ok: false, checks: { store: 'down', api: 'ok', clock: 'ok' } });
      expect(box.logs.some((l) => l.includes('not ready') && l.includes('the store did not answer a query'))).toBe(
        true,
      );
    }, 60_000);

    it('a distributed app with connected workspaces: ready with its store, Slack, accounts and clock; 503 naming the store once it is cut', async () => {
      const { store, cut } = await storeToCut();
      const box = await distributedSandbox({ store, scheduler: false });
      stops.push(() => box.stop());
      for (const [team, user] of [
        ['T_LOOKOUT', 'U_ALICE'],
        ['T_OTHER', 'U_DANA'],
      ] as const) {
        expect((await install(box, team, user)).status).toBe(200);
        const account = box.lookout.accounts.find((a) => a.teamId === team)!;
        const { outcome } = await connect(box.slack.team(team), user, account.baseUrl, account.apiKey);
        expect(outcome).toBe('connected');
      }

      box.demo!.resetRequests();
      const ready = await readyz(box.lookout.ops.url);
      expect(ready).toEqual({
        status: 200,
        body: { ok: true, checks: { store: 'ok', slack: 'ok', api: 'ok', clock: 'ok' } },
      });
      // The accounts were asked: both workspaces' accounts are within the sample of three.
      const probes = box.demo!.requests.filter((r) => r.query.start_date === '1970-01-01');
      expect(probes).toHaveLength(2);

      await cut(() => box.lookout.store.db.close());
      const down = await readyzUntil(box.lookout.ops.url, 503);
      expect(down.body).toEqual({ ok: false, checks: { store: 'down', slack: 'ok', api: 'ok', clock: 'ok' } });
    }, 90_000);
  });
}

describe('/readyz of a distributed app, told in an operator’s words', () => {
  let box: Awaited<ReturnType<typeof distributedSandbox>>;
  afterEach(async () => {
    await box?.stop();
  });

  it('is ready before any workspace installs or connects: there is no account to reach yet', async () => {
    box = await distributedSandbox({ scheduler: false });
    expect(await readyz(box.lookout.ops.url)).toEqual({
      status: 200,
      body: { ok: true, checks: { store: 'ok', slack: 'ok', api: 'ok', clock: 'ok' } },
    });
    expect(box.logs.join('\n')).not.toContain('not ready');
  }, 60_000);

  it('is not ready when no connected account answers, and the log names each workspace’s API, not the Slack user’s sentence', async () => {
    box = await distributedSandbox({ scheduler: false });
    const account = box.lookout.accounts.find((a) => a.teamId === 'T_LOOKOUT')!;
    expect((await install(box, 'T_LOOKOUT', 'U_ALICE')).status).toBe(200);
    expect((await connect(box.slack.team('T_LOOKOUT'), 'U_ALICE', account.baseUrl, account.apiKey)).outcome).toBe(
      'connected',
    );
    box.demo!.setFaults({ status500Until: 1_000_000 });
    const down = await readyzUntil(box.lookout.ops.url, 503);
    expect(down.body).toEqual({ ok: false, checks: { store: 'ok', slack: 'ok', api: 'down', clock: 'ok' } });
    const why = box.logs.filter((l) => l.includes('not ready')).join('\n');
    expect(why).toContain(`workspace T_LOOKOUT's, at ${new URL(account.baseUrl).origin}: unavailable (HTTP 500)`);
    expect(why).not.toContain('Connect your analytics');
    expect(why).not.toContain(account.apiKey);
  }, 60_000);

  it('stays ready when a connected account’s API answers, if only to refuse (here 429): reached is ready', async () => {
    box = await distributedSandbox({ scheduler: false });
    const account = box.lookout.accounts.find((a) => a.teamId === 'T_LOOKOUT')!;
    expect((await install(box, 'T_LOOKOUT', 'U_ALICE')).status).toBe(200);
    expect((await connect(box.slack.team('T_LOOKOUT'), 'U_ALICE', account.baseUrl, account.apiKey)).outcome).toBe(
      'connected',
    );
    box.demo!.resetRequests();
    box.demo!.setFaults({ rateLimit: { count: 1_000_000, retryAfterSeconds: 60 } });
    // Once refused, a probe is 200 only if the refusal counted as reached (a timeout would be 503 too).
    const ready = await readyzUntil(box.lookout.ops.url, 200);
    expect(ready.body).toEqual({ ok: true, checks: { store: 'ok', slack: 'ok', api: 'ok', clock: 'ok' } });
    // The account was asked, and refused.
    expect(box.demo!.requests.some((r) => r.status === 429)).toBe(true);
  }, 60_000);

  it('is not ready when Slack’s Web API does not answer', async () => {
    box = await distributedSandbox({ scheduler: false });
    box.slack.failNext('api.test', { status: 503 }, Infinity);
    const down = await readyzUntil(box.lookout.ops.url, 503);
    expect(down.body.checks).toEqual({ store: 'ok', slack: 'down', api: 'ok', clock: 'ok' });
    expect(box.logs.some((l) => l.includes('not ready') && l.includes("Slack's Web API at"))).toBe(true);
  }, 60_000);
});
