import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepos, startLookout, type Lookout, type Repos } from '../../../src/compose.js';
import { ThreatScan } from '../../../src/features/threats/scan.js';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { openDb } from '../../../src/platform/store/db.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { TEST_DATABASE_URL } from '../../support/db.js';
import { captureLogs } from '../../support/log-capture.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';
import { until } from '../../support/until.js';

/** PostgreSQL cut off through a real TCP proxy: calls fail within their timeouts, and everything resumes without a restart. */
describe.skipIf(!TEST_DATABASE_URL)('a database that stops answering', () => {
  const schema = `t_outage_${randomBytes(4).toString('hex')}`;
  let proxy: TcpProxy;
  let url: string;
  let repos: Repos;

  beforeAll(async () => {
    const real = new URL(TEST_DATABASE_URL!);
    proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
    const via = new URL(TEST_DATABASE_URL!);
    via.hostname = '127.0.0.1';
    via.port = String(proxy.port);
    url = via.toString();
    repos = await openRepos({ databaseUrl: url, schema, poolSize: 2, timeouts: { connectMs: 1_000, queryMs: 1_000 } });
  });

  afterAll(async () => {
    await repos?.close();
    await proxy?.close();
    const admin = await openDb({ databaseUrl: TEST_DATABASE_URL! });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.close();
  });

  // A partition never answers: without the query and connect timeouts, these calls would hang past the test's timeout.
  it('a query during a partition fails at the query timeout instead of hanging', async () => {
    expect((await repos.db.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    proxy.hang();
    await expect(repos.digests.listAll('T_LOOKOUT')).rejects.toThrow(/timeout|terminated|Connection/i);
    proxy.restore();
  });

  it('a refused connection fails at once; when the database is back, queries work again', async () => {
    proxy.refuse();
    await expect(repos.db.query('SELECT 1')).rejects.toThrow();
    proxy.restore();
    const rows = await until(
      () =>
        repos.db.query('SELECT 1 AS n').then(
          (r) => r.rows,
          () => undefined,
        ),
      'a query to work again',
      30_000,
    );
    expect(rows).toEqual([{ n: 1 }]);
  });

  it("the threat scan's timer survives the outage, logs each failed tick, and scans again once the database is back", async () => {
    const { logger, lines } = captureLogs('warn');
    const api = new AnalyticsApi({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' });
    const scan = new ThreatScan({
      tenants: { all: async () => [{ account: { account: api.account, api } }] },
      repos,
      leases: repos.leases,
      db: repos.db,
      log: logger,
      now: () => new Date(),
      owner: 'outage-test',
      intervalMs: 200,
      recheckMs: 0,
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      proxy.hang();
      scan.start();
      await until(() => lines.some((l) => l.includes('threat scan tick failed')), 'a failed tick in the log', 30_000);
      proxy.restore();
      const held = await until(
        () =>
          repos.db.query("SELECT 1 FROM job_claims WHERE key = 'threat-scan' AND owner = 'outage-test'").then(
            (r) => r.rows.length === 1,
            () => false,
          ),
        'the threat scan to hold its lease again',
        30_000,
      );
      expect(held).toBe(true);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      proxy.restore();
      await scan.stop();
    }
  }, 60_000);

  describe('the app on that database', () => {
    let demo: DemoApi;
    let slack: OfflineSlack;
    let app: Lookout;
    const readyz = async () => {
      const response = await fetch(`${app.ops.url}/readyz`);
      return { status: response.status, body: (await response.json()) as { checks: Record<string, string> } };
    };

    beforeAll(async () => {
      demo = await startDemoApi({ apiKey: 'k' });
      const signingSecret = randomBytes(16).toString('hex');
      slack = await startOfflineSlack({ signingSecret, botToken: 'xoxb-outage' });
      app = await startLookout({
        api: { baseUrl: demo.url, apiKey: 'k' },
        slack: { signingSecret, botToken: 'xoxb-outage', apiUrl: slack.apiUrl },
        store: { databaseUrl: url, schema, timeouts: { connectMs: 1_000, queryMs: 1_000 } },
        log: captureLogs('silent').logger,
        demo: true,
        port: 0,
        scheduler: false,
      });
    });
    afterAll(async () => {
      await app?.stop();
      await slack?.close();
      await demo?.close();
    });

    it('/readyz says the store is down once its cached answer is stale, and ready again once it is back', async () => {
      expect(await readyz()).toMatchObject({ status: 200, body: { checks: { store: 'ok', api: 'ok' } } });
      proxy.hang();
      // Each check gives up after 3 s, and an answer is reused for 5 s.
      const down = await until(
        async () => {
          const r = await readyz();
          return r.status === 503 ? r : undefined;
        },
        '/readyz to answer 503',
        30_000,
      );
      expect(down.body.checks).toEqual({ store: 'down', api: 'ok', clock: 'ok' });
      proxy.restore();
      await until(async () => (await readyz()).status === 200, '/readyz to answer 200 again', 30_000);
    }, 90_000);
  });
});
