import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLookout, type Lookout, type LookoutOptions } from '../../../src/compose.js';
import { GROUP_WINDOW_MS } from '../../../src/features/alerts/plan.js';
import { DEMO_VISITORS, type DemoApi } from '@lookout/sandbox/demo-api';
import type { OfflineSlack } from '@lookout/sandbox/slack';
import { TEST_DATABASE_URL } from '../../support/db.js';
import { demoAttackers, startThreatWorld, type ThreatWorld } from '../../support/threat-scan.js';
import { headerOf, hasAction, mrkdwnOf, tableOf, textsOf } from '../../support/sandbox.js';

const SECURITY = 'C_SECURITY';
/** A controlled clock: the app and the demo API's new visits both read it. */
let clock = Date.now();
const now = () => new Date(clock);

let world: ThreatWorld;
let demo: DemoApi;
let slack: OfflineSlack;
const options = (store: LookoutOptions['store'], replica: string) => world.options(store, replica);

/** Visitors the demo data flags as attackers (high severity), other than the fixed ones. */
function attackers(count: number): string[] {
  return demoAttackers(demo).slice(0, count);
}

/** A visit by `visitorId`, a second after the last one. */
function visit(visitorId: string, url = 'https://www.example-shop.com/checkout'): void {
  clock += 1000;
  demo.dataset.addVisit({ visitor_id: visitorId, date: new Date(clock).toISOString(), url });
}

/** Past the channel's group window: the next flagged visitor has a message of its own (alerts-groups.test.ts tests the groups). */
function nextWindow(): void {
  clock += GROUP_WINDOW_MS;
}

const alertsIn = (channel = SECURITY) => slack.messages(channel).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
/** Every message of the channel as it stands: top level, each followed by its thread's replies. */
const shownIn = (channel: string) => alertsIn(channel).flatMap((m) => [m, ...slack.thread(channel, m.ts).slice(1)]);
const alertFor = (id: string, channel = SECURITY) =>
  alertsIn(channel).find((m) => (headerOf(m) ?? '').endsWith(`visitor ${id}`));

beforeAll(async () => {
  world = await startThreatWorld(now);
  ({ demo, slack } = world);
});
afterAll(() => world?.close());

describe('threat alerts in one app', () => {
  let app: Lookout;

  beforeAll(async () => {
    app = await startLookout(options({ memory: true }, 'solo'));
    slack.setAppUrl(app.requestUrl!);
    const delivery = await slack.slash(SECURITY, 'U_ALICE', 'alerts on min medium');
    expect(delivery.status).toBe(200);
    await slack.waitFor(() =>
      slack.messages(SECURITY, { user: 'U_ALICE' }).some((m) => textsOf(m).join(' ').includes('Threat alerts are on')),
    );
    // Start watching from now.
    await app.store.scanState.saveProgress((await app.features.threats.scan.stateKeys())[0]!, {
      watermark: now(),
      seenIds: [],
      counts: {},
      at: now(),
    });
  });
  afterAll(async () => {
    await app?.stop();
  });
  beforeEach(() => demo.setFaults({}));

  it('a new flagged visitor raises one alert; a clean one none', async () => {
    visit(DEMO_VISITORS.attacker);
    visit(DEMO_VISITORS.human);
    const result = await app.features.threats.scan.scan();
    await app.deliveries.drained();
    expect(result).toMatchObject({ status: 'scanned', visits: 2, visitors: 2, alerts: 1 });
    const alert = await slack.waitFor(() => alertFor(DEMO_VISITORS.attacker));
    expect(headerOf(alert)).toBe(`Threat · high severity: visitor ${DEMO_VISITORS.attacker}`);
    const text = mrkdwnOf(alert).join('\n');
    expect(text).toContain('flagged as attacker');
    expect(text).toContain('/checkout');
    expect(text).toMatch(/185\.220\.101\.x|2a02:418:6a04:…/); // masked
    expect(JSON.stringify(alert)).not.toContain('185.220.101.47');
    for (const action of ['alert.ack', 'alert.mute.24h', 'alert.mute.7d', 'alert.details'])
      expect(hasAction(alert, action)).toBe(true);
    expect(alertFor(DEMO_VISITORS.human)).toBeUndefined();
  });

  it('the same visitor seen again only threads, and the parent counts it', async () => {
    visit(DEMO_VISITORS.attacker, 'https://www.example-shop.com/login');
    visit(DEMO_VISITORS.attacker, 'https://www.example-shop.com/login');
    visit(DEMO_VISITORS.attacker, 'https://www.example-shop.com/account');
    const before = alertsIn().length;
    const result = await app.features.threats.scan.scan();
    await app.deliveries.drained();
    expect(result).toMatchObject({ alerts: 0, sightings: 1 });
    expect(alertsIn()).toHaveLength(before);
    const parent = alertFor(DEMO_VISITORS.attacker)!;
    const replies = slack.thread(SECURITY, parent.ts).slice(1);
    expect(replies.map((r) => r.text).join('\n')).toContain(
      `Seen again: visitor ${DEMO_VISITORS.attacker}, 3 more visits, last on /account`,
    );
    expect(mrkdwnOf(parent).join(' ')).toMatch(/\*Seen\*\n4 visits/);
  });

  it('nothing new: nothing posted, and the scan repeats nothing', async () => {
    const count = slack.messages(SECURITY).length;
    expect(await app.features.threats.scan.scan()).toMatchObject({ visits: 0, alerts: 0 });
    await app.deliveries.drained();
    expect(slack.messages(SECURITY)).toHaveLength(count);
  });

  it('a wave of 20 in one scan becomes one group message, with an alert each in its thread', async () => {
    const ids = attackers(20);
    expect(ids).toHaveLength(20);
    nextWindow();
    for (const id of ids) visit(id);
    const before = alertsIn().length;
    const result = await app.features.threats.scan.scan();
    await app.deliveries.drained();
    expect(result.alerts).toBe(20);
    const top = alertsIn().slice(before);
    expect(top).toHaveLength(1);
    expect(headerOf(top[0]!)).toMatch(/^:rotating_light: 20 flagged visitors since /);
    expect(
      tableOf(top[0]!)
        .slice(1)
        .map((row) => row[0])
        .sort(),
    ).toEqual([...ids].sort());
    const thread = slack.thread(SECURITY, top[0]!.ts).slice(1);
    expect(thread.filter((m) => (headerOf(m) ?? '').startsWith('Threat'))).toHaveLength(20);
  });

  it('Acknowledge updates the alert for everyone; later visits only thread', async () => {
    const alert = alertFor(DEMO_VISITORS.attacker)!;
    await slack.click(alert, 'alert.ack', undefined, { user: 'U_CAROL' });
    const acked = await slack.waitFor(() => {
      const m = alertFor(DEMO_VISITORS.attacker);
      return m && mrkdwnOf(m).join(' ').includes('Acknowledged by <@U_CAROL>') ? m : undefined;
    });
    expect(hasAction(acked, 'alert.ack')).toBe(false);
    visit(DEMO_VISITORS.attacker);
    expect(await app.features.threats.scan.scan()).toMatchObject({ alerts: 0, sightings: 1 });
    await app.deliveries.drained();
  });

  it('Mute 24h silences a visitor until the mute ends, and says until when', async () => {
    const [id] = attackers(21).slice(20);
    nextWindow();
    visit(id!);
    await app.features.threats.scan.scan();
    await app.deliveries.drained();
    const alert = await slack.waitFor(() =>
      slack.messages(SECURITY).find((m) => (headerOf(m) ?? '').endsWith(`visitor ${id}`)),
    );
    await slack.click(alert, 'alert.mute.24h');
    await slack.waitFor(() => {
      const m = slack.messages(SECURITY).find((x) => x.ts === alert.ts);
      return m && mrkdwnOf(m).join(' ').includes('Muted until') ? m : undefined;
    });
    const threadBefore = slack.thread(SECURITY, alert.ts).length;
    visit(id!);
    expect(await app.features.threats.scan.scan()).toMatchObject({ alerts: 0, sightings: 0 });
    await app.deliveries.drained();
    clock += 25 * 3_600_000; // the mute is over
    visit(id!);
    expect(await app.features.threats.scan.scan()).toMatchObject({ sightings: 1 });
    await app.deliveries.drained();
    expect(slack.thread(SECURITY, alert.ts).length).toBeGreaterThan(threadBefore);
  });

  it('an API outage during a scan loses no visitor once the API is back', async () => {
    const [id] = attackers(22).slice(21);
    nextWindow();
    visit(id!);
    demo.setFaults({ status500Until: 1000, paths: ['/security/'] });
    const failed = await app.features.threats.scan.scan();
    await app.deliveries.drained();
    expect(failed.status).toBe('failed');
    expect((await app.store.scanState.get((await app.features.threats.scan.stateKeys())[0]!))?.lastError).toMatch(
      /unavailable/,
    );
    expect(alertFor(id!)).toBeUndefined();
    demo.setFaults({});
    expect(await app.features.threats.scan.scan()).toMatchObject({ status: 'scanned', alerts: 1 });
    await app.deliveries.drained();
    expect(alertFor(id!)).toBeDefined();
  });

  it('a Slack 429 on posting delays the alert, and does not drop it', async () => {
    const [id] = attackers(23).slice(22);
    nextWindow();
    visit(id!);
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const started = Date.now();
    expect(await app.features.threats.scan.scan()).toMatchObject({ alerts: 1 });
    await app.deliveries.drained();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(alertFor(id!)).toBeDefined();
  });

  it('Details opens the visitor card for the clicker alone', async () => {
    const alert = alertFor(DEMO_VISITORS.attacker)!;
    await slack.click(alert, 'alert.details', undefined, { user: 'U_BOB' });
    const card = await slack.waitForMessage(
      SECURITY,
      (m) => m.ephemeralTo === 'U_BOB' && (headerOf(m) ?? '').startsWith('Threat'),
    );
    expect(tableOf(card)[0]).toContain('IP');
  });

  it('/traffic alerts status says what is watched, the last scan and who is muted', async () => {
    await slack.slash(SECURITY, 'U_ALICE', 'alerts mute v_status_check for 7d');
    await slack.waitForMessage(
      SECURITY,
      (m) => m.ephemeralTo === 'U_ALICE' && textsOf(m).join(' ').includes('v_status_check is muted'),
    );
    await slack.slash(SECURITY, 'U_ALICE', 'alerts status');
    const status = await slack.waitForMessage(
      SECURITY,
      (m) => m.ephemeralTo === 'U_ALICE' && textsOf(m).join(' ').includes('Last scan'),
    );
    const text = mrkdwnOf(status).join('\n');
    expect(text).toMatch(/medium severity or more/);
    expect(text).toMatch(/Muted here:\* .*`v_status_check` \(until /);
  });

  it('/metrics shows deliveries, API calls, requests, the outbox, the scan lag and the lease holder', async () => {
    const [id] = attackers(24).slice(23);
    nextWindow();
    visit(id!);
    expect(await app.features.threats.scan.tick()).toMatchObject({ status: 'scanned', alerts: 1 });
    await app.deliveries.drained();
    const res = await fetch(`${app.ops.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await res.text();
    const value = (line: string) =>
      Number(
        body
          .split('\n')
          .find((l) => l.startsWith(`${line} `))
          ?.slice(line.length + 1),
      );
    expect(value('lookout_deliveries_total{kind="alert",outcome="posted"}')).toBeGreaterThanOrEqual(1);
    expect(value('lookout_deliveries_total{kind="alert",outcome="retried"}')).toBeGreaterThanOrEqual(1); // the 429 above
    expect(value('lookout_delivery_latency_seconds_count{kind="alert"}')).toBeGreaterThanOrEqual(1);
    expect(value('lookout_deliveries{kind="alert",status="posted"}')).toBeGreaterThanOrEqual(1);
    expect(
      value('lookout_api_request_duration_seconds_count{operation="/visits",outcome="ok"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(value('lookout_requests_total{type="command",name="/traffic",outcome="ok"}')).toBeGreaterThanOrEqual(2);
    expect(value('lookout_store_up')).toBe(1);
    expect(value('lookout_lease_holder{lease="threat-scan",owner="solo"}')).toBe(1);
    // The earlier version's key, held too while replicas of it may run (migration 020).
    expect(value('lookout_lease_holder{lease="threat-watch",owner="solo"}')).toBe(1);
    expect(value('lookout_scan_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(body).not.toContain(world.botToken);
    expect(body).not.toContain('request:'); // the replay guard's keys are not leases to report
    expect(body.match(/^lookout_lease_holder\{/gm)).toHaveLength(2);
  });
});

describe('restarts', () => {
  it('a restart mid-stream repeats nothing and misses nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lookout-alerts-'));
    const channel = 'C_GENERAL';
    try {
      let app = await startLookout(options({ dataDir: dir }, 'first'));
      slack.setAppUrl(app.requestUrl!);
      await app.store.subscriptions.upsert({
        channelId: channel,
        teamId: 'T_LOOKOUT',
        minSeverity: 'high',
        checks: ['bot'],
        createdBy: 'U_ALICE',
      });
      clock += 1000; // earlier tests' visits are behind the watermark
      await app.store.scanState.saveProgress((await app.features.threats.scan.stateKeys())[0]!, {
        watermark: now(),
        seenIds: [],
        counts: {},
        at: now(),
      });
      const [a, b, c] = attackers(26).slice(23);
      visit(a!);
      expect(await app.features.threats.scan.scan()).toMatchObject({ status: 'scanned', alerts: 1 });
      await app.deliveries.drained();
      visit(b!); // arrives while the app is down
      await app.stop();

      app = await startLookout(options({ dataDir: dir }, 'second'));
      slack.setAppUrl(app.requestUrl!);
      visit(c!);
      expect(await app.features.threats.scan.scan()).toMatchObject({ status: 'scanned', alerts: 2 });
      await app.deliveries.drained();
      await app.stop();
      // b and c came within a's window: a's message became their group's, with the three alerts in its thread.
      expect(alertsIn(channel).map((m) => headerOf(m))).toEqual([
        expect.stringMatching(/^:rotating_light: 3 flagged visitors since /),
      ]);
      const headers = shownIn(channel).map((m) => headerOf(m) ?? '');
      for (const id of [a, b, c]) expect(headers.filter((h) => h.endsWith(`visitor ${id}`))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  describe.skipIf(!TEST_DATABASE_URL)('two app instances on one PostgreSQL', () => {
    it('produce each alert once', async () => {
      const schema = `t_alerts_${randomBytes(4).toString('hex')}`;
      const store = { databaseUrl: TEST_DATABASE_URL, schema };
      const apps = [await startLookout(options(store, 'one')), await startLookout(options(store, 'two'))];
      try {
        slack.setAppUrl(apps[0]!.requestUrl!);
        await apps[0]!.store.subscriptions.upsert({
          channelId: 'C_MARKETING',
          teamId: 'T_LOOKOUT',
          minSeverity: 'high',
          checks: ['bot'],
          createdBy: 'U_ALICE',
        });
        clock += 1000;
        await apps[0]!.store.scanState.saveProgress((await apps[0]!.features.threats.scan.stateKeys())[0]!, {
          watermark: now(),
          seenIds: [],
          counts: {},
          at: now(),
        });
        const ids = attackers(32).slice(26);
        for (const id of ids.slice(0, 3)) visit(id);
        // Both tick at once: one holds the lease and scans, the other stands by.
        const results = await Promise.all(apps.map((a) => a.features.threats.scan.tick()));
        expect(results.map((r) => r.status).sort()).toEqual(['not-leader', 'scanned']);
        // Both scan in turn (as after a lease hand-over): still once each.
        for (const id of ids.slice(3)) visit(id);
        await apps[0]!.features.threats.scan.scan();
        await apps[0]!.deliveries.drained();
        await apps[1]!.features.threats.scan.scan();
        await apps[1]!.deliveries.drained();
        // All six within one window: one group message, an alert each in its thread.
        expect(alertsIn('C_MARKETING').map((m) => headerOf(m))).toEqual([
          expect.stringMatching(/^:rotating_light: 6 flagged visitors since /),
        ]);
        const headers = shownIn('C_MARKETING').map((m) => headerOf(m) ?? '');
        for (const id of ids) expect(headers.filter((h) => h.endsWith(`visitor ${id}`))).toHaveLength(1);
      } finally {
        for (const a of apps) await a.stop();
        const { openDb } = await import('../../../src/platform/store/db.js');
        const admin = await openDb({ databaseUrl: TEST_DATABASE_URL });
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.close();
      }
    }, 60_000);
  });
});
