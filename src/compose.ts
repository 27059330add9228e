import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { AnalyticsApi } from './platform/api/analytics.js';
import { REPORTS } from './kernel/catalog.js';
import { DigestFetcher } from './features/digests/content.js';
import { DigestService } from './features/digests/service.js';
import { DigestScheduler } from './features/digests/scheduler.js';
import { ThreatWatcher } from './features/alerts/watcher.js';
import { startHousekeeping } from './platform/store/housekeeping.js';
import type { Logger } from './platform/log.js';
import { createSlackApp, type SlackApp } from './platform/slack/app.js';
import type { SlackDeps } from './platform/slack/deps.js';
import { QueryRefs } from './features/reports/refs.js';
import { openStore, type OpenDbOptions, type Store } from './platform/store/index.js';

export interface LookoutOptions {
  api: { baseUrl: string; apiKey: string; timeoutMs?: number; maxConcurrency?: number };
  slack: { signingSecret: string; botToken: string; appToken?: string; apiUrl?: string };
  store: OpenDbOptions;
  log: Logger;
  defaultTimezone: string;
  /** The demo API is behind the answers (they say so). */
  demo: boolean;
  now?: () => Date;
  port: number;
  /** Who may see security details, and the scraping score that counts as a reason. */
  security?: { channels: string[]; users: string[]; scrapingScoreThreshold: number };
  /** Who may manage any digest or alert subscription; empty means everyone. */
  admins?: string[];
  /** This replica's name in the runs table (default: host name and a random suffix). */
  replica?: string;
  /** How often replicas re-read the digests (ms). */
  digestReloadMs?: number;
  /** Start no scheduler and no watcher (tests drive them themselves). */
  scheduler?: boolean;
  alerts?: { scanIntervalMs: number; recheckMs: number; burst: number };
}

export interface Lookout {
  api: AnalyticsApi;
  store: Store;
  slack: SlackApp;
  digests: DigestService;
  scheduler: DigestScheduler;
  watcher: ThreatWatcher;
  /** The HTTP server (absent in Socket Mode). */
  server?: Server;
  /** Where Slack sends requests, e.g. http://127.0.0.1:3000/slack/events (HTTP mode). */
  requestUrl?: string;
  stop(): Promise<void>;
}

/** The app itself: store, API client, Slack listeners, digest scheduler, and the HTTP server Slack talks to. */
export async function startLookout(options: LookoutOptions): Promise<Lookout> {
  const log = options.log;
  const now = options.now ?? (() => new Date());
  const store = await openStore({ ...options.store, onError: (error) => log.error({ err: error.message }, 'database connection error') });
  const api = new AnalyticsApi({ ...options.api, logger: log.child({ component: 'api' }) });
  const replica = options.replica ?? `${hostname()}-${randomBytes(3).toString('hex')}`;

  let slack: SlackApp | undefined;
  const service = new DigestService({
    store,
    fetcher: new DigestFetcher(api),
    slack: () => slack!.app.client,
    log: log.child({ component: 'digests' }),
    now,
    demo: options.demo,
    owner: replica,
  });
  const watcher = new ThreatWatcher({
    api,
    store,
    slack: () => slack!.app.client,
    log: log.child({ component: 'threat-watch' }),
    now,
    owner: replica,
    verdict: { scrapingScoreThreshold: options.security?.scrapingScoreThreshold ?? 0.8 },
    timeZone: options.defaultTimezone,
    intervalMs: options.alerts?.scanIntervalMs ?? 60_000,
    recheckMs: options.alerts?.recheckMs ?? 6 * 3_600_000,
    burst: options.alerts?.burst ?? 5,
  });
  try {
    const deps: SlackDeps = {
      api,
      catalog: REPORTS,
      refs: new QueryRefs(store.stash, REPORTS),
      log,
      now,
      timeZoneFor: async () => options.defaultTimezone,
      demo: options.demo,
      security: { channels: options.security?.channels ?? [], users: options.security?.users ?? [] },
      verdict: { scrapingScoreThreshold: options.security?.scrapingScoreThreshold ?? 0.8 },
      defaultTimezone: options.defaultTimezone,
      admins: options.admins ?? [],
      digests: { repo: store.digests, service },
      alerts: {
        subscriptions: store.alertSubscriptions,
        mutes: store.alertMutes,
        alerts: store.alerts,
        watcher: { state: () => store.watchState.get('visits') },
      },
    };
    slack = await createSlackApp(deps, {
      ...options.slack,
      slackApiUrl: options.slack.apiUrl,
      ready: async () => {
        const checks: Record<string, string> = {};
        await Promise.all([
          store.db.query('select 1').then(
            () => (checks.store = 'ok'),
            (error: unknown) => (checks.store = error instanceof Error ? error.message : String(error)),
          ),
          api.report('countries', { startDate: '1970-01-01', endDate: '1970-01-01', limit: 1 }).then(
            () => (checks.api = 'ok'),
            (error: unknown) => (checks.api = error instanceof Error ? error.message : String(error)),
          ),
        ]);
        return { ok: Object.values(checks).every((c) => c === 'ok'), checks };
      },
    });
  } catch (error) {
    await api.close();
    await store.close();
    throw error;
  }

  const scheduler = new DigestScheduler({
    runs: store.runs,
    loadActive: () => store.digests.listActive(),
    loadOne: (id) => store.digests.get(id),
    post: service.post,
    log: log.child({ component: 'scheduler' }),
    owner: replica,
    now,
    reloadMs: options.digestReloadMs,
  });
  service.scheduler = scheduler;

  const server = await slack.start(options.port);
  let stopHousekeeping = () => {};
  if (options.scheduler !== false) {
    await scheduler.start();
    watcher.start();
    stopHousekeeping = startHousekeeping(store, log.child({ component: 'housekeeping' }), { now, recheckMs: options.alerts?.recheckMs ?? 6 * 3_600_000 });
  }
  const address = server?.address();
  const requestUrl = address && typeof address === 'object' ? `http://127.0.0.1:${address.port}/slack/events` : undefined;
  const app = slack;
  return {
    api,
    store,
    slack: app,
    digests: service,
    scheduler,
    watcher,
    server,
    requestUrl,
    async stop() {
      stopHousekeeping();
      await scheduler.stop();
      await watcher.stop();
      await app.stop();
      await api.close();
      await store.close();
    },
  };
}
