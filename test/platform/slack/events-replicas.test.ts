/**
 * Slack retries an event it got no timely 200 for, signed afresh, and behind a load
 * balancer the retry can reach another replica, or the same one after a restart. Each
 * event is handled once: its event_id is kept in the store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLookout, type Lookout } from '../../../src/compose.js';
import type { OpenDbOptions } from '../../../src/platform/store/index.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { startBalancer, type Balancer } from '../../support/balancer.js';
import { TEST_DATABASE_URL } from '../../support/db.js';
import { captureLogs } from '../../support/log-capture.js';
import { until } from '../../support/until.js';

if (!TEST_DATABASE_URL)
  console.warn('an event retried on another replica, on PostgreSQL: skipped: TEST_DATABASE_URL is not set');

const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface World {
  slack: OfflineSlack;
  demo: DemoApi;
  start(name: string, store: OpenDbOptions): Promise<{ lookout: Lookout; origin: string; logs: string[] }>;
  publishes(): number;
}

async function world(): Promise<World> {
  const demo = await startDemoApi({ apiKey: 'k' });
  cleanup.push(() => demo.close());
  // Every answer counts as late, so Slack retries the event once, a second later: signed afresh, with X-Slack-Retry-Num: 1.
  const slack = await startOfflineSlack({ signingSecret, botToken, ackTimeoutMs: 0, eventRetryDelaysMs: [1_100] });
  cleanup.push(() => slack.close());
  return {
    slack,
    demo,
    async start(name, store) {
      const { logger, lines } = captureLogs('info');
      const lookout = await startLookout({
        api: { baseUrl: demo.url, apiKey: 'k' },
        slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
        store,
        log: logger,
        demo: true,
        port: 0,
        replica: name,
        scheduler: false,
      });
      let stopped = false;
      cleanup.push(() => (stopped ? undefined : lookout.stop()));
      const stop = lookout.stop.bind(lookout);
      lookout.stop = async () => {
        stopped = true;
        await stop();
      };
      return { lookout, origin: new URL(lookout.requestUrl!).origin, logs: lines };
    },
    publishes: () => (slack.workspace.home('U_ALICE') as unknown as { publishes: number } | undefined)?.publishes ?? 0,
  };
}

async function behind(slack: OfflineSlack, route: (n: number) => string | Promise<string>): Promise<Balancer> {
  const balancer = await startBalancer(route);
  cleanup.push(() => balancer.close());
  slack.setAppUrl(`${balancer.url}/slack/events`);
  return balancer;
}

/** Waits until the replica that got the retry has dealt with it: dropped it (and said so), or published the Home again. */
async function retryDealtWith(w: World, logs: string[]): Promise<void> {
  await until(
    () => w.publishes() >= 2 || logs.some((l) => l.includes('was handled already')),
    'the retry to be handled or dropped',
    30_000,
  );
}

describe.skipIf(!TEST_DATABASE_URL)('an event retried on another replica [postgres]', () => {
  it('is handled once: the Home is published once', async () => {
    const schema = `t_events_${randomBytes(4).toString('hex')}`;
    const w = await world();
    const store = { databaseUrl: TEST_DATABASE_URL, schema };
    const a = await w.start('replica-a', store);
    const b = await w.start('replica-b', store);
    cleanup.unshift(async () => {
      const { openDb } = await import('../../../src/platform/store/index.js');
      const admin = await openDb({ databaseUrl: TEST_DATABASE_URL, schema });
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.close();
    });
    // Round robin: the event goes to A, its retry to B.
    await behind(w.slack, (n) => (n % 2 === 0 ? a.origin : b.origin));

    const attempts = await w.slack.event('app_home_opened', 'U_ALICE', { tab: 'home' });
    expect(attempts.map((d) => [d.retryNum ?? 0, d.status])).toEqual([
      [0, 200],
      [1, 200],
    ]);
    await until(() => w.publishes() >= 1, "A's Home publish");
    await retryDealtWith(w, b.logs);
    expect(w.publishes()).toBe(1);
  }, 60_000);
});

describe('an event retried after a restart, on one data directory [pglite]', () => {
  it('is handled once: the Home is published once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lookout-events-'));
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const w = await world();
    const a = await w.start('replica-a', { dataDir });
    // The event goes to A; its retry waits at the balancer until B runs on the same data directory.
    let bOrigin!: (origin: string) => void;
    const bStarted = new Promise<string>((resolve) => (bOrigin = resolve));
    await behind(w.slack, (n) => (n === 0 ? a.origin : bStarted));

    const attempts = w.slack.event('app_home_opened', 'U_ALICE', { tab: 'home' });
    await until(() => w.publishes() >= 1, "A's Home publish");
    await a.lookout.stop();
    const b = await w.start('replica-b', { dataDir });
    bOrigin(b.origin);

    expect((await attempts).map((d) => [d.retryNum ?? 0, d.status])).toEqual([
      [0, 200],
      [1, 200],
    ]);
    await retryDealtWith(w, b.logs);
    expect(w.publishes()).toBe(1);
  }, 60_000);
});
