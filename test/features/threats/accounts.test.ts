import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRepos, type Repos } from '../../../src/compose.js';
import { AlertReader } from '../../../src/features/alerts/index.js';
import { scanStateKey } from '../../../src/features/threats/repos/scan-state.js';
import { ThreatScan, type ScannedAccount } from '../../../src/features/threats/scan.js';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { DEMO_VISITORS, startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { captureLogs } from '../../support/log-capture.js';

/** The threat scan of several analytics accounts: each its own visits, for its own workspaces' channels. */
describe('the threat scan, one analytics account after another', () => {
  const demos: DemoApi[] = [];
  const apis: AnalyticsApi[] = [];
  let repos: Repos;
  let scan: ThreatScan;
  let accounts: { account: ScannedAccount; teams: string[] }[];
  const CHANNEL = 'C_SECURITY'; // one id in every workspace, as a Slack Connect channel has

  beforeAll(async () => {
    demos.push(await startDemoApi({ apiKey: 'k' }), await startDemoApi({ apiKey: 'k' }));
    const api = (url: string, key: string) => {
      const made = new AnalyticsApi({ baseUrl: url, apiKey: key, timeoutMs: 5_000, retry: { retries: 0 } });
      apis.push(made);
      return { account: made.account, api: made };
    };
    accounts = [
      { account: api(demos[0]!.url, 'k'), teams: ['T_A'] },
      // A key the API refuses: this account's scan fails.
      { account: api(demos[0]!.url, 'revoked'), teams: ['T_REFUSED'] },
      { account: api(demos[1]!.url, 'k'), teams: ['T_B', 'T_B2'] },
    ];
    repos = await openRepos({ memory: true });
    scan = new ThreatScan({
      tenants: { all: async () => accounts },
      repos,
      leases: repos.leases,
      db: repos.db,
      log: captureLogs('silent').logger,
      now: () => new Date(),
      owner: 'solo',
      intervalMs: 60_000,
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
    for (const team of ['T_A', 'T_REFUSED', 'T_B'])
      await repos.subscriptions.upsert({
        channelId: CHANNEL,
        teamId: team,
        minSeverity: 'high',
        checks: ['bot'],
        createdBy: 'U',
        grouping: 'each',
      });
    for (const key of await scan.stateKeys())
      await repos.scanState.saveProgress(key, {
        watermark: new Date(Date.now() - 1000),
        seenIds: [],
        counts: {},
        at: new Date(),
      });
  });

  afterAll(async () => {
    for (const api of apis) await api.close();
    await repos?.close();
    for (const demo of demos) await demo.close();
  });

  it("alerts only its own workspaces' channels of its own visitors; an account that fails stops none of the others", async () => {
    expect(new Set(await scan.stateKeys()).size).toBe(3);
    demos[0]!.dataset.addVisit({
      visitor_id: DEMO_VISITORS.attacker,
      date: new Date().toISOString(),
      url: 'https://www.example-shop.com/login',
    });
    const result = await scan.scan();
    expect(result).toMatchObject({ status: 'failed', visits: 1, alerts: 1 });
    const [a, refused, b] = accounts.map((x) => result.accounts.find((r) => r.account === x.account.account));
    expect(a).toMatchObject({ status: 'scanned', visits: 1, alerts: 1 });
    expect(refused).toMatchObject({ status: 'failed' });
    expect(b).toMatchObject({ status: 'scanned', visits: 0, alerts: 0 });

    expect(await repos.alerts.get('T_A', CHANNEL, DEMO_VISITORS.attacker)).toBeDefined();
    for (const team of ['T_REFUSED', 'T_B'])
      expect(await repos.alerts.get(team, CHANNEL, DEMO_VISITORS.attacker)).toBeUndefined();
    const queued = (team: string) => repos.deliveries.unfinished({ team, failedWithinMs: 0, limit: 10 });
    expect((await queued('T_A')).map((d) => [d.team, d.kind])).toEqual([['T_A', 'alert']]);
    expect(await queued('T_B')).toEqual([]);
    expect(await queued('T_REFUSED')).toEqual([]);

    const state = (i: number) => repos.scanState.get(scanStateKey(accounts[i]!.account.account));
    expect((await state(0))?.lastError).toBeUndefined();
    expect((await state(1))?.lastError).toEqual(expect.any(String));
    expect((await state(2))?.lastCounts).toMatchObject({ visits: 0 });
  });
});
