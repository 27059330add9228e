import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepos, type Repos } from '../../../src/compose.js';
import { AlertReader } from '../../../src/features/alerts/index.js';
import { ThreatScan } from '../../../src/features/threats/scan.js';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { DEMO_VISITORS, startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { captureLogs } from '../../support/log-capture.js';
import { until } from '../../support/until.js';

/** A scan longer than the lease: the lease is renewed while it runs, so a second replica stands by. */
describe("the threat scan's lease during a long scan", () => {
  let demo: DemoApi;
  let slack: OfflineSlack;
  let repos: Repos;
  let api: AnalyticsApi;
  const scans: ThreatScan[] = [];
  const botToken = `xoxb-${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    demo = await startDemoApi({ apiKey: 'k' });
    slack = await startOfflineSlack({ signingSecret: randomBytes(16).toString('hex'), botToken, rateLimit: false });
    repos = await openRepos({ memory: true });
    api = new AnalyticsApi({ baseUrl: demo.url, apiKey: 'k', timeoutMs: 5_000 });
    for (const owner of ['replica-a', 'replica-b']) {
      const scan = new ThreatScan({
        tenants: { all: async () => [{ account: { account: api.account, api } }] },
        repos,
        leases: repos.leases,
        db: repos.db,
        log: captureLogs('silent').logger,
        now: () => new Date(),
        owner,
        intervalMs: 200, // a 600 ms lease
        recheckMs: 0,
      });
      scan.readBy(
        new AlertReader({
          repos,
          verdict: { scrapingScoreThreshold: 0.8 },
          deliveryDeadlineMs: 3_600_000,
          timeZone: 'UTC',
          burst: 5,
        }),
      );
      scans.push(scan);
    }
    await repos.subscriptions.upsert({
      channelId: 'C_SECURITY',
      teamId: 'T',
      minSeverity: 'high',
      checks: ['bot'],
      createdBy: 'U',
    });
    await repos.scanState.saveProgress('visits', {
      watermark: new Date(Date.now() - 1000),
      seenIds: [],
      counts: {},
      at: new Date(),
    });
  });

  afterAll(async () => {
    for (const w of scans) await w.stop();
    await api?.close();
    await repos?.close();
    await slack?.close();
    await demo?.close();
  });

  it('the other replica is not the leader while the scan runs past the lease, and scans once it is over', async () => {
    demo.dataset.addVisit({
      visitor_id: DEMO_VISITORS.attacker,
      date: new Date().toISOString(),
      url: 'https://www.example-shop.com/login',
    });
    demo.setFaults({ latencyMs: 700 }); // each API answer: the scan takes well over the 600 ms lease
    const [a, b] = scans as [ThreatScan, ThreatScan];
    const first = a.tick();
    // Once A holds the lease, past its 600 ms: only a renewal keeps B out.
    await until(
      async () => (await repos.leases.holders(['threat-scan']))[0]?.owner === 'replica-a',
      'A to hold the lease',
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await b.tick()).toMatchObject({ status: 'not-leader' });
    expect(await first).toMatchObject({ status: 'scanned', visits: 1, alerts: 1 });
    demo.setFaults({});
    await a.stop(); // gives the lease up
    expect(await b.tick()).toMatchObject({ status: 'scanned', visits: 0 });
  });
});
