/**
 * The digest scheduler and the watch evaluator of a distributed app: each digest slot and
 * each watch runs in its own workspace's analytics account (the connection the workspace
 * made); a workspace with none connected has that run, or that watch's period, recorded
 * with why, and the other workspace's go on. Built from the real parts (store, tenants,
 * connections, scheduler, evaluator, the demo API): a whole distributed app cannot start
 * while other features still take the one workspace's account.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { openRepos, type Repos } from '../../../src/compose.js';
import { DigestContent } from '../../../src/features/digests/content.js';
import { digestPublisher } from '../../../src/features/digests/publish.js';
import { DigestScheduler } from '../../../src/features/digests/scheduler.js';
import { WatchEvaluator } from '../../../src/features/watches/evaluator.js';
import { WatchObserver } from '../../../src/features/watches/observe.js';
import type { WatchRule } from '../../../src/features/watches/plan.js';
import { silentLogger } from '../../../src/platform/log.js';
import { keyring } from '../../../src/platform/secrets.js';
import { ConnectionRepo } from '../../../src/platform/tenancy/connections.js';
import { Tenants } from '../../../src/platform/tenancy/tenants.js';

const NOT_CONNECTED = /not connected to an analytics account in this workspace yet/;
const at = new Date();
const now = () => at;
let demo: DemoApi;
let store: Repos;
let tenants: Tenants;

beforeAll(async () => {
  demo = await startDemoApi({ apiKey: 'k', now });
  store = await openRepos({ memory: true });
  const connections = new ConnectionRepo(store.db, keyring(randomBytes(32).toString('hex')));
  await connections.save({ team: 'T_LOOKOUT', baseUrl: demo.url, apiKey: 'k', connectedBy: 'U_ALICE' });
  tenants = new Tenants({
    log: silentLogger,
    now,
    api: { timeoutMs: 5_000 },
    apiBudget: 1_000,
    web: {},
    token: async () => ({ token: 'xoxb-unused' }),
    access: { admins: [], security: { channels: [], users: [] } },
    connections,
  });
});
afterAll(async () => {
  await tenants?.close();
  await store?.close();
  await demo?.close();
});

describe('the digest scheduler', () => {
  it("fails the slot of a workspace with no analytics connected, with why, and queues the other's in its own workspace", async () => {
    const scheduler = new DigestScheduler({
      runs: store.runs,
      loadActive: () => store.digests.listActive(),
      loadOne: (id) => store.digests.get(id),
      post: digestPublisher({
        // The threat scan is off: the security line is left out.
        content: new DigestContent({
          flagged: { seen: async () => undefined, judged: async () => undefined },
          apiZone: 'UTC',
          demo: true,
        }),
        tenants,
        db: store.db,
        log: silentLogger,
        owner: 'solo',
        now,
      }),
      log: silentLogger,
      owner: 'solo',
      now,
    });
    const digest = (teamId: string) =>
      store.digests.create({
        teamId,
        channelId: 'C_GENERAL',
        ownerId: 'U_ALICE',
        reports: ['sources'],
        topN: 3,
        period: 'day',
        schedule: { kind: 'daily', time: '06:00' },
        cron: '0 6 * * *',
        timeZone: 'UTC',
      });
    const unconnected = await digest('T_NOWHERE');
    const connected = await digest('T_LOOKOUT');
    const slot = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
    expect(await scheduler.runSlot(unconnected, slot)).toBe(true);
    expect(await scheduler.runSlot(connected, slot)).toBe(true);

    expect(await store.runs.get(unconnected.id, slot)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(NOT_CONNECTED),
    });
    const queued = await store.runs.get(connected.id, slot);
    expect(queued).toMatchObject({ status: 'queued', deliveryId: expect.any(Number) });
    expect(await store.deliveries.get(queued!.deliveryId!)).toMatchObject({ team: 'T_LOOKOUT', kind: 'digest' });
    const { rows } = await store.db.query('SELECT team_id FROM digest_runs WHERE slot = $1 ORDER BY digest_id', [slot]);
    expect(rows.map((r) => r.team_id)).toEqual(['T_NOWHERE', 'T_LOOKOUT']);
    await scheduler.stop();
  });
});

describe('the watch evaluator', () => {
  it("records a workspace with no analytics connected as the watch's unknown period, with why, and evaluates the other's", async () => {
    const evaluator = new WatchEvaluator({
      db: store.db,
      tenants,
      observer: new WatchObserver({
        trends: {
          values: () => Promise.reject(new Error('a watch of new entries asks no trend')),
        },
        flagged: { judged: async () => undefined },
        apiDays: { timeZone: 'UTC', settleMs: 60_000 },
        log: silentLogger,
      }),
      apiDays: { timeZone: 'UTC', settleMs: 60_000 },
      owner: 'solo',
      now,
      log: silentLogger,
      queued: () => undefined,
      demo: true,
      spreadMs: { hour: 0, day: 0 },
    });
    const rule: WatchRule = {
      metric: 'visits',
      report: 'sources',
      filters: [],
      condition: { kind: 'new', top: 5 },
      every: 'day',
    };
    const watch = (teamId: string) =>
      store.watches.create({ teamId, channelId: 'C_GENERAL', ownerId: 'U_ALICE', rule, timeZone: 'UTC' });
    const unconnected = await watch('T_NOWHERE');
    const connected = await watch('T_LOOKOUT');
    expect(await evaluator.tick()).toBe(2);
    const failed = await store.watches.get(unconnected.id);
    expect(failed).toMatchObject({ lastOutcome: 'unknown', lastError: expect.stringMatching(NOT_CONNECTED) });
    const evaluated = await store.watches.get(connected.id);
    expect(evaluated?.lastPeriod).toBe(failed?.lastPeriod);
    expect(evaluated?.lastOutcome).not.toBe('unknown');
    await evaluator.stop();
  });
});
