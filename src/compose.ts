import { seal } from './platform/slack/kit/seal.js';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import { loadConfig, type Limits } from './config.js';
import { AlertService } from './features/alerts/service.js';
import { registerAlerts, alertsCommand } from './features/alerts/listeners.js';
import { ALERTS_HELP } from './features/alerts/parse.js';
import { AlertMuteRepo, AlertRepo, AlertSubscriptionRepo, VisitorCheckRepo, WatchStateRepo } from './features/alerts/repo.js';
import { ALERT_SUBJECT, LEASE_KEY as WATCHER_LEASE, ThreatWatcher, WATCH_STATE_KEY, type AlertRepos } from './features/alerts/watcher.js';
import { alertDeliveryHooks } from './features/alerts/deliveries.js';
import { digestDeliveryHooks } from './features/digests/deliveries.js';
import { DigestContent } from './features/digests/content.js';
import { SharedFetcher } from './platform/api/shared-fetcher.js';
import { digestCommand, registerDigests } from './features/digests/listeners.js';
import { DIGEST_HELP } from './features/digests/parse.js';
import { DIGEST_SUBJECT, digestPublisher } from './features/digests/publish.js';
import { DigestRepo } from './features/digests/repo.js';
import { DigestRunRepo } from './features/digests/runs.js';
import { DigestScheduler } from './features/digests/scheduler.js';
import { DigestService } from './features/digests/service.js';
import { registerReports } from './features/reports/listeners/index.js';
import { ReportService } from './features/reports/service.js';
import { registerTrends, trendCommand } from './features/trends/listeners.js';
import { TREND_HELP } from './features/trends/parse.js';
import { TrendRepo } from './features/trends/repo.js';
import { TrendService } from './features/trends/service.js';
import { registerVisitor } from './features/visitor/listeners.js';
import { registerHome } from './features/home/listeners.js';
import { HomeService } from './features/home/service.js';
import { HomeRefresh } from './features/home/refresh.js';
import { HomeViewRepo } from './features/home/repo.js';
import { HOME_PUBLISH_DEADLINE_MS, HOME_SUBJECT, homeDeliveryHooks } from './features/home/deliveries.js';
import type { SlackMessage } from './platform/slack/kit/messages.js';
import type { ChangeScope } from './platform/changes.js';
import { watchDeliveryHooks } from './features/watches/deliveries.js';
import { WATCH_SUBJECT, WatchEvaluator } from './features/watches/evaluator.js';
import { registerWatches, watchCommand } from './features/watches/listeners.js';
import { WatchObserver } from './features/watches/observe.js';
import { WATCH_HELP } from './features/watches/parse.js';
import { WatchRepo } from './features/watches/repo.js';
import { WatchService } from './features/watches/service.js';
import { VISITOR_HELP } from './features/visitor/parse.js';
import { VisitorService } from './features/visitor/service.js';
import { REPORTS } from './kernel/catalog.js';
import type { Weekday } from './kernel/dates.js';
import type { ApiDays } from './kernel/trend.js';
import { AnalyticsApi } from './platform/api/analytics.js';
import { ApiError } from './platform/api/errors.js';
import type { Logger } from './platform/log.js';
import { Metrics } from './platform/metrics.js';
import { startOps, type Ops } from './platform/ops.js';
import { ClockSkew } from './platform/slack/clock.js';
import { memoryQuota, pruneQuota, userQuota } from './platform/quota.js';
import { ApiBudget } from './platform/api/budget.js';
import { Access } from './platform/slack/access.js';
import { createSlackApp, type SlackApp } from './platform/slack/app.js';
import { boltLogger } from './platform/slack/bolt-logger.js';
import { WINDOW_MS } from './platform/slack/guard.js';
import { webDirectory } from './platform/slack/directory.js';
import { webPoster } from './platform/slack/poster.js';
import { onPreflight, preflightFetch } from './platform/slack/preflight.js';
import { DeliveryRepo, SECURITY_KINDS } from './platform/deliveries/repo.js';
import { DeliveryWorker } from './platform/deliveries/worker.js';
import { startHousekeeping, type Prune } from './platform/store/housekeeping.js';
import { LeaseRepo, openStore, QueryStashRepo, ReplayRepo, type Db, type OpenDbOptions } from './platform/store/index.js';
import { registerTraffic } from './traffic.js';

/** The settings a Lookout runs with; anything left out takes its configuration default. */
export interface LookoutOptions {
  api: { baseUrl: string; apiKey: string; timeoutMs?: number; maxConcurrency?: number };
  slack: { signingSecret: string; botToken: string; appToken?: string; apiUrl?: string };
  store: OpenDbOptions;
  log: Logger;
  defaultTimezone?: string;
  /** The first day of a trend's weeks (LOCALE). */
  weekStart?: Weekday;
  /** The zone of the API's dates and the settling margin: when a period is final at the API. */
  apiDays?: ApiDays;
  /** The demo API is behind the answers (they say so). */
  demo: boolean;
  now?: () => Date;
  port: number;
  /** The address `port` listens on (default every interface: Slack must reach it; the sandbox gives loopback). */
  host?: string;
  /** The clock Slack's request timestamps are judged by (default: the system's; a simulated `now` leaves it alone). */
  requestClock?: () => number;
  /** Where /metrics and /readyz are served (default: a free port on loopback, no token). */
  ops?: { port?: number; host?: string; token?: string };
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
  alerts?: { scanIntervalMs: number; recheckMs: number; burst: number; deliveryDeadlineMs?: number };
  limits?: Partial<Limits>;
  deliveries?: { slackTimeoutMs: number; heartbeatMs: number; /** At most one post per channel this often (default 1 s, Slack's limit). */ paceMs?: number };
  /** How often due watches are looked for, and over how much of each period their evaluations are spread (ms). */
  watches?: { tickMs?: number; spreadMs?: { hour: number; day: number }; staleMs?: number };
  /** Open Home tabs are published again this long after a change, at most `perMinute` a minute after a burst of `burst`. */
  home?: { debounceMs?: number; perMinute?: number; burst?: number };
}

/** Every repository over one Db, by feature; tests and tools reach the store through it. */
export interface Repos extends AlertRepos {
  db: Db;
  leases: LeaseRepo;
  replays: ReplayRepo;
  stash: QueryStashRepo;
  digests: DigestRepo;
  runs: DigestRunRepo;
  deliveries: DeliveryRepo;
  trends: TrendRepo;
  watches: WatchRepo;
  homeViews: HomeViewRepo;
  close(): Promise<void>;
}

export function createRepos(db: Db): Repos {
  return {
    db,
    leases: new LeaseRepo(db),
    replays: new ReplayRepo(db),
    stash: new QueryStashRepo(db),
    digests: new DigestRepo(db),
    runs: new DigestRunRepo(db),
    subscriptions: new AlertSubscriptionRepo(db),
    mutes: new AlertMuteRepo(db),
    alerts: new AlertRepo(db),
    visitorChecks: new VisitorCheckRepo(db),
    watchState: new WatchStateRepo(db),
    deliveries: new DeliveryRepo(db),
    trends: new TrendRepo(db),
    watches: new WatchRepo(db),
    homeViews: new HomeViewRepo(db),
    close: () => db.close(),
  };
}

/** Opens (and migrates) the store, with every repository. */
export async function openRepos(options: OpenDbOptions): Promise<Repos> {
  return createRepos((await openStore(options)).db);
}

export interface Lookout {
  api: AnalyticsApi;
  store: Repos;
  slack: SlackApp;
  digests: DigestService;
  scheduler: DigestScheduler;
  watcher: ThreatWatcher;
  watches: WatchEvaluator;
  deliveries: DeliveryWorker;
  home: HomeRefresh;
  /** The HTTP server (absent in Socket Mode). */
  server?: Server;
  /** Where Slack sends requests, e.g. http://127.0.0.1:3000/slack/events (HTTP mode). */
  requestUrl?: string;
  /** The operators' listener: /metrics and /readyz. */
  ops: Ops;
  stop(): Promise<void>;
}

const DEFAULTS = loadConfig({});

/**
 * The one place that wires Lookout: platform (store, API client, Slack Web API) →
 * services → the Bolt app with every feature's listeners → background jobs.
 */
export async function startLookout(options: LookoutOptions): Promise<Lookout> {
  const { log } = options;
  const now = options.now ?? (() => new Date());
  const timeZone = options.defaultTimezone ?? DEFAULTS.defaultTimezone;
  const apiDays = options.apiDays ?? DEFAULTS.apiDays;
  const security = options.security ?? DEFAULTS.security;
  const alertSettings = options.alerts ?? DEFAULTS.alerts;
  const delivery: NonNullable<LookoutOptions['deliveries']> = options.deliveries ?? DEFAULTS.deliveries;
  const limits: Limits = { ...DEFAULTS.limits, ...options.limits };
  const verdict = { scrapingScoreThreshold: security.scrapingScoreThreshold };
  const owner = options.replica ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
  const timeZoneFor = async () => timeZone;

  const repos = await openRepos({ ...options.store, onError: (error) => log.error({ err: error.message }, 'database connection error') });
  const budget = new ApiBudget(limits.apiBudget);
  const metrics = new Metrics(
    {
      deliveries: () => repos.deliveries.counts(),
      scanAgeSeconds: async () => {
        const at = (await repos.watchState.get(WATCH_STATE_KEY))?.lastScanAt;
        return at ? Math.max(0, (now().getTime() - at.getTime()) / 1000) : undefined;
      },
      leases: () => repos.leases.holders([WATCHER_LEASE]),
      apiBudget: () => ({ waiting: budget.waiting, waited: budget.waited }),
    },
    log.child({ component: 'metrics' }),
  );
  const stopPreflightMetrics = onPreflight((r) => metrics.preflight.inc({ method: r.method, outcome: r.reasons.length > 0 ? 'refused' : 'fitted' }));
  const api = new AnalyticsApi({
    ...options.api,
    budget,
    logger: log.child({ component: 'api' }),
    observe: ({ operation, outcome, seconds }) => metrics.api.observe({ operation, outcome }, seconds),
  });
  const webOptions = {
    ...(options.slack.apiUrl ? { slackApiUrl: options.slack.apiUrl } : {}),
    fetch: preflightFetch(log.child({ component: 'preflight' })),
    logger: boltLogger(log.child({ component: 'slack' }), [options.slack.botToken, options.slack.signingSecret]),
    timeout: delivery.slackTimeoutMs,
  };
  // Lookouts's own lookups retry twice; deliveries retry through the outbox, so their client never waits.
  const web = new WebClient(options.slack.botToken, { ...webOptions, retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000 } });
  const deliveryClient = new WebClient(options.slack.botToken, { ...webOptions, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
  const worker = new DeliveryWorker({
    db: repos.db,
    poster: webPoster(deliveryClient),
    owner,
    log: log.child({ component: 'deliveries' }),
    hooks: { [ALERT_SUBJECT]: alertDeliveryHooks, [DIGEST_SUBJECT]: digestDeliveryHooks, [WATCH_SUBJECT]: watchDeliveryHooks, [HOME_SUBJECT]: homeDeliveryHooks },
    events: {
      posted: (d, latencyMs) => {
        metrics.deliveries.inc({ kind: d.kind, outcome: 'posted' });
        metrics.deliveryLatency.observe({ kind: d.kind }, latencyMs / 1000);
        deliveryChanged(d);
      },
      retried: (d) => {
        metrics.deliveries.inc({ kind: d.kind, outcome: 'retried' });
        deliveryChanged(d);
      },
      failed: (d) => {
        metrics.deliveries.inc({ kind: d.kind, outcome: 'failed' });
        deliveryChanged(d);
      },
    },
    heartbeatMs: delivery.heartbeatMs,
    // One process on the embedded store: every row is queued here and wakes the worker, so the queue is polled only as a safety net.
    pollMs: repos.db.kind === 'postgres' ? 1_000 : 15_000,
    paceMs: delivery.paceMs,
    timeoutMs: delivery.slackTimeoutMs + 5_000,
  });
  const queued = () => worker.wake();
  // Open Home tabs are published again after a change; the Home service it renders with is made below, before any change can come.
  const refresh = new HomeRefresh({
    repo: repos.homeViews,
    render: (user) => home.render(user),
    ownersIn: (channels) => home.ownersIn(channels),
    enqueue: async (user, view) => {
      await repos.deliveries.enqueueLatest({ kind: 'home', channelId: user, message: { text: 'Lookout Home', blocks: view.blocks as SlackMessage['blocks'] }, subject: { type: HOME_SUBJECT, user }, expiresInMs: HOME_PUBLISH_DEADLINE_MS });
      queued();
    },
    log: log.child({ component: 'home' }),
    observe: (outcome) => metrics.homeRefreshes.inc({ outcome }),
    ...options.home,
  });
  const changed = (scope: ChangeScope) => refresh.changed(scope);
  const deliveryChanged = (d: { kind: string; channelId: string }) => {
    if (d.kind === 'home') return;
    changed(SECURITY_KINDS.has(d.kind) ? 'everyone' : { channels: [d.channelId] });
  };
  const directory = webDirectory(web, log.child({ component: 'slack' }));
  const access = new Access({ admins: options.admins ?? DEFAULTS.admins, security }, (user, channel) => directory.isMember(user, channel));

  // Replicas share PostgreSQL; the embedded store is one process, so what replicas share is kept in memory there (no write per request).
  const replicated = repos.db.kind === 'postgres';
  const quotaSettings = { points: limits.userRequests, windowMs: limits.userWindowMs };
  const quota = replicated ? userQuota(repos.db, quotaSettings, log.child({ component: 'quota' })) : memoryQuota(quotaSettings);
  const answering = { api, timeZoneFor, now, weekStart: options.weekStart ?? DEFAULTS.weekStart, demo: options.demo, quota, log };
  const reports = new ReportService({ ...answering, stash: repos.stash, catalog: REPORTS, seal: seal(options.slack.signingSecret, 'modal-context') });
  const visitors = new VisitorService({ ...answering, access, verdict });
  const alerts = new AlertService({ repos, access, directory, now, timeZone, verdict, changed, log: log.child({ component: 'alerts' }) });
  const fetcher = new SharedFetcher(api, { now });
  const trends = new TrendService({
    ...answering,
    fetcher,
    repo: repos.trends,
    refs: reports.refs,
    apiDays,
    maxFetch: limits.trendMaxFetch,
    log: log.child({ component: 'trends' }),
    observe: (source, n) => n > 0 && metrics.trendPeriods.inc({ source }, n),
    observeRecheck: (changed, n) => metrics.trendRechecks.inc({ changed: String(changed) }, n),
  });
  const content = new DigestContent({ fetcher, trends, flagged: alerts, demo: options.demo, log: log.child({ component: 'digests' }) });
  const scheduler = new DigestScheduler({
    runs: repos.runs,
    loadActive: () => repos.digests.listActive(),
    loadOne: (id) => repos.digests.get(id),
    post: digestPublisher({ content, db: repos.db, log: log.child({ component: 'digests' }), owner, now, queued }),
    log: log.child({ component: 'scheduler' }),
    owner,
    now,
    reloadMs: options.digestReloadMs,
    heartbeatMs: delivery.heartbeatMs,
  });
  const digests = new DigestService({ repo: repos.digests, runs: repos.runs, deliveries: repos.deliveries, content, schedule: scheduler, access, directory, now, defaultTimezone: timeZone, limits: { minIntervalMs: limits.digestMinIntervalMs, perChannel: limits.digestsPerChannel, perUser: limits.digestsPerUser }, quota, changed, log: log.child({ component: 'digests' }) });
  const watchService = new WatchService({ repo: repos.watches, access, directory, now, defaultTimezone: timeZone, limits: { perChannel: limits.digestsPerChannel, perUser: limits.digestsPerUser }, demo: options.demo, changed, log: log.child({ component: 'watches' }) });
  const home = new HomeService({
    digests,
    watches: watchService,
    alerts,
    deliveries: repos.deliveries,
    views: repos.homeViews,
    queued,
    access,
    settings: { scrapingScoreThreshold: security.scrapingScoreThreshold, ...limits },
    now,
    timeZone,
    demo: options.demo,
    log: log.child({ component: 'home' }),
  });
  const watchEvaluator = new WatchEvaluator({
    db: repos.db,
    observer: new WatchObserver({ trends, fetcher, flagged: alerts, apiDays, log: log.child({ component: 'watches' }) }),
    trends,
    apiDays,
    owner,
    now,
    log: log.child({ component: 'watches' }),
    queued,
    changed,
    demo: options.demo,
    ...(options.watches?.tickMs ? { tickMs: options.watches.tickMs } : {}),
    ...(options.watches?.spreadMs ? { spreadMs: options.watches.spreadMs } : {}),
    ...(options.watches?.staleMs ? { staleMs: options.watches.staleMs } : {}),
    observe: (outcome) => metrics.watchEvaluations.inc({ outcome }),
  });
  const watcher = new ThreatWatcher({
    api,
    repos,
    leases: repos.leases,
    db: repos.db,
    queued,
    deliveryDeadlineMs: alertSettings.deliveryDeadlineMs ?? DEFAULTS.alerts.deliveryDeadlineMs,
    log: log.child({ component: 'threat-watch' }),
    now,
    owner,
    verdict,
    timeZone,
    intervalMs: alertSettings.scanIntervalMs,
    recheckMs: alertSettings.recheckMs,
    burst: alertSettings.burst,
  });

  const clock = new ClockSkew(log.child({ component: 'guard' }));
  let slack: SlackApp;
  try {
    slack = await createSlackApp({
      ...options.slack,
      port: options.port,
      ...(options.host !== undefined ? { host: options.host } : {}),
      slackApiUrl: options.slack.apiUrl,
      timeoutMs: delivery.slackTimeoutMs,
      log,
      ...(options.requestClock ? { now: options.requestClock } : {}),
      judged: (outcome, skewSeconds) => {
        if (outcome === 'accepted') return clock.accepted();
        metrics.refused.inc({ reason: outcome });
        if (skewSeconds !== undefined) clock.refused(skewSeconds);
      },
      observe: (type, name, outcome) => metrics.requests.inc({ type, name, outcome }),
      firstSeen: (key, ttlMs) => repos.replays.firstSeen(key, ttlMs),
      replicated,
      listeners: [
        (app) =>
          registerTraffic(
            app,
            reports,
            [
              { words: ['digest', 'digests'], run: digestCommand(digests), help: DIGEST_HELP },
              { words: ['alerts', 'alert'], run: alertsCommand(alerts), help: ALERTS_HELP },
              { words: ['trend', 'trends'], run: trendCommand(trends, reports), help: TREND_HELP },
              { words: ['watch', 'watches'], run: watchCommand(watchService), help: WATCH_HELP },
            ],
            { visitor: VISITOR_HELP },
          ),
        (app) => registerReports(app, reports, visitors),
        (app) => registerVisitor(app, visitors),
        (app) => registerTrends(app, trends, reports),
        (app) => registerWatches(app, watchService, reports),
        (app) => registerHome(app, home),
        (app) => registerDigests(app, digests),
        (app) => registerAlerts(app, alerts, visitors),
      ],
    });
  } catch (error) {
    await api.close();
    await repos.close();
    throw error;
  }

  let ops: Ops | undefined;
  let server: Server | undefined;
  try {
    ops = await startOps({
      port: options.ops?.port ?? 0,
      host: options.ops?.host ?? '127.0.0.1',
      token: options.ops?.token,
      checks: {
        store: () => repos.db.query('select 1'),
        api: () =>
          api.report('countries', { startDate: '1970-01-01', endDate: '1970-01-01', limit: 1 }).catch((error: unknown) => {
            throw error instanceof ApiError && error.info.detail ? new Error(`${error.message} (${error.info.detail})`) : error;
          }),
        clock: clock.check,
      },
      metrics: () => metrics.text(),
      log: log.child({ component: 'ops' }),
    });
    server = await slack.start(options.port);
  } catch (error) {
    await ops?.close();
    await api.close();
    await repos.close();
    throw error;
  }
  let stopHousekeeping = () => {};
  worker.start();
  if (options.scheduler !== false) {
    await scheduler.start();
    watcher.start();
    watchEvaluator.start();
    stopHousekeeping = startHousekeeping(prunes(repos, alertSettings.recheckMs), log.child({ component: 'housekeeping' }), now);
  }
  const address = server?.address();
  const requestUrl = address && typeof address === 'object' ? `http://127.0.0.1:${address.port}/slack/events` : undefined;
  return {
    api,
    store: repos,
    slack,
    digests,
    scheduler,
    watcher,
    watches: watchEvaluator,
    deliveries: worker,
    home: refresh,
    server,
    requestUrl,
    ops,
    async stop() {
      stopHousekeeping();
      stopPreflightMetrics();
      await refresh.stop();
      await scheduler.stop();
      await watcher.stop();
      await watchEvaluator.stop();
      await worker.stop();
      await slack.stop();
      await ops.close();
      await api.close();
      await repos.close();
    },
  };
}

const HOUR = 3_600_000;

/**
 * What housekeeping trims: long queries of messages a month old, security answers past
 * reuse (ALERT_RECHECK_AFTER, at least an hour), leases expired a day ago, and replay keys
 * once their window has passed (every 5 minutes, the request signature's window).
 */
export function prunes(repos: Repos, recheckMs: number): Prune[] {
  return [
    { name: 'stash', olderThanMs: 30 * 24 * HOUR, prune: (t) => repos.stash.prune(t) },
    { name: 'checks', olderThanMs: Math.max(recheckMs, HOUR), prune: (t) => repos.visitorChecks.prune(t) },
    { name: 'leases', olderThanMs: 24 * HOUR, prune: (t) => repos.leases.pruneExpired(t) },
    { name: 'replay_keys', olderThanMs: 0, everyMs: WINDOW_MS, prune: (t) => repos.replays.prune(t) },
    { name: 'deliveries', olderThanMs: 30 * 24 * HOUR, prune: (t) => repos.deliveries.prune(t) },
    { name: 'rate_limits', olderThanMs: HOUR, prune: (t) => pruneQuota(repos.db, t) },
  ];
}
