/**
 * The platform every feature is plugged into: the store and its shared repositories, the
 * analytics API client, the Slack Web API (lookups, and the outbox's worker), who may do
 * what, the per-person quota, metrics, and the change bus App Home listens to.
 */
import { WebClient } from '@slack/web-api';
import { AnalyticsApi } from './api/analytics.js';
import { ApiBudget } from './api/budget.js';
import { ApiError } from './api/errors.js';
import { SharedFetcher } from './api/shared-fetcher.js';
import { ChangeBus } from './changes.js';
import { DeliveryRepo } from './deliveries/repo.js';
import { Subjects, type AnySubject } from './deliveries/subject.js';
import { DeliveryWorker } from './deliveries/worker.js';
import type { Logger } from './log.js';
import { Metrics } from './metrics.js';
import { memoryQuota, pruneQuota, userQuota, type Quota } from './quota.js';
import { Access, type AccessRules } from './slack/access.js';
import { boltLogger } from './slack/bolt-logger.js';
import { ClockSkew } from './slack/clock.js';
import { webDirectory, type SlackDirectory } from './slack/directory.js';
import { WINDOW_MS } from './slack/guard.js';
import { seal, type Seal } from './slack/kit/seal.js';
import { webPoster } from './slack/poster.js';
import { InstallationRepo } from './slack/installations.js';
import { onPreflight, preflightFetch } from './slack/preflight.js';
import type { Keyring } from './secrets.js';
import type { Prune } from './store/housekeeping.js';
import { LeaseRepo, openStore, QueryStashRepo, ReplayRepo, type Db, type OpenDbOptions } from './store/index.js';

export interface PlatformOptions {
  api: { baseUrl: string; apiKey: string; timeoutMs?: number; maxConcurrency?: number };
  slack: { signingSecret: string; botToken: string; appToken?: string; apiUrl?: string };
  store: OpenDbOptions;
  log: Logger;
  now: () => Date;
  /** This replica's name on leases, claims and outbox rows. */
  owner: string;
  access: AccessRules;
  limits: { apiBudget: number; userRequests: number; userWindowMs: number };
  deliveries: { slackTimeoutMs: number; heartbeatMs: number; paceMs?: number };
  /** The keys of secrets at rest (LOOKOUT_ENCRYPTION_KEY and the previous ones); without them no secret is stored. */
  encryption?: Keyring;
}

/** The repositories of the platform's own tables. */
export interface PlatformRepos {
  db: Db;
  leases: LeaseRepo;
  replays: ReplayRepo;
  stash: QueryStashRepo;
  deliveries: DeliveryRepo;
}

export function platformRepos(db: Db): PlatformRepos {
  return {
    db,
    leases: new LeaseRepo(db),
    replays: new ReplayRepo(db),
    stash: new QueryStashRepo(db),
    deliveries: new DeliveryRepo(db),
  };
}

export interface Platform {
  log: Logger;
  now: () => Date;
  owner: string;
  repos: PlatformRepos;
  /** Bolt's InstallationStore, when there are keys to seal its tokens. */
  installations?: InstallationRepo;
  /** Replicas share PostgreSQL; the embedded store is one process. */
  replicated: boolean;
  api: AnalyticsApi;
  /** Analytics answers shared by background work (digests, watches) asking the same thing at once. */
  fetcher: SharedFetcher;
  directory: SlackDirectory;
  access: Access;
  quota: Quota;
  metrics: Metrics;
  /** Signs what a modal carries to its submission. */
  seal: Seal;
  clock: ClockSkew;
  worker: DeliveryWorker;
  subjects: Subjects;
  /** Wakes the delivery worker (something was queued). */
  queued: () => void;
  changes: ChangeBus;
  prunes: Prune[];
  checks: Record<string, () => Promise<unknown>>;
  close(): Promise<void>;
}

const HOUR = 3_600_000;

/**
 * What housekeeping trims of the platform's tables: long queries of messages a month old,
 * leases expired a day ago, replay keys once their window has passed (every 5 minutes, the
 * request signature's window), finished deliveries a month old, and spent request quotas.
 */
export function platformPrunes(repos: PlatformRepos): Prune[] {
  return [
    { name: 'stash', olderThanMs: 30 * 24 * HOUR, prune: (t) => repos.stash.prune(t) },
    { name: 'leases', olderThanMs: 24 * HOUR, prune: (t) => repos.leases.pruneExpired(t) },
    { name: 'replay_keys', olderThanMs: 0, everyMs: WINDOW_MS, prune: (t) => repos.replays.prune(t) },
    { name: 'deliveries', olderThanMs: 30 * 24 * HOUR, prune: (t) => repos.deliveries.prune(t) },
    { name: 'rate_limits', olderThanMs: HOUR, prune: (t) => pruneQuota(repos.db, t) },
  ];
}

/**
 * A key rotation completes here: every stored secret sealed under a previous key is sealed again under
 * the current one. A secret no key opens stops the start (closing the store), naming the key it needs.
 */
async function resealAtStart(repo: InstallationRepo, keys: Keyring, log: Logger, close: () => Promise<void>) {
  try {
    const resealed = await repo.resealAll();
    if (resealed > 0) log.info({ resealed, key: keys.current.id }, 're-sealed stored secrets under the current key');
  } catch (error) {
    await close();
    throw error;
  }
}

/** Opens (and migrates) the store and builds the platform; `subjects` are every feature's (a duplicate throws here). */
export async function openPlatform(o: PlatformOptions, subjectList: readonly AnySubject[]): Promise<Platform> {
  const { log, now } = o;
  const subjects = new Subjects(subjectList);
  const store = await openStore({
    ...o.store,
    onError: (error) => log.error({ err: error.message }, 'database connection error'),
  });
  const repos = platformRepos(store.db);
  const installations = o.encryption && new InstallationRepo(store.db, o.encryption);
  if (installations) await resealAtStart(installations, o.encryption!, log, () => store.close());
  const budget = new ApiBudget(o.limits.apiBudget);
  const metrics = new Metrics(
    {
      deliveries: () => repos.deliveries.counts(),
      apiBudget: () => ({ waiting: budget.waiting, waited: budget.waited }),
    },
    log.child({ component: 'metrics' }),
  );
  const stopPreflightMetrics = onPreflight((r) =>
    metrics.preflight.inc({ method: r.method, outcome: r.reasons.length > 0 ? 'refused' : 'fitted' }),
  );
  const api = new AnalyticsApi({
    ...o.api,
    budget,
    logger: log.child({ component: 'api' }),
    observe: ({ operation, outcome, seconds }) => metrics.api.observe({ operation, outcome }, seconds),
  });
  const webOptions = {
    ...(o.slack.apiUrl ? { slackApiUrl: o.slack.apiUrl } : {}),
    fetch: preflightFetch(log.child({ component: 'preflight' })),
    logger: boltLogger(log.child({ component: 'slack' }), [o.slack.botToken, o.slack.signingSecret]),
    timeout: o.deliveries.slackTimeoutMs,
  };
  // Lookouts's own lookups retry twice; deliveries retry through the outbox, so their client never waits.
  const web = new WebClient(o.slack.botToken, {
    ...webOptions,
    retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 2_000 },
  });
  const deliveryClient = new WebClient(o.slack.botToken, {
    ...webOptions,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const worker = new DeliveryWorker({
    db: store.db,
    poster: webPoster(deliveryClient),
    owner: o.owner,
    log: log.child({ component: 'deliveries' }),
    subjects,
    events: {
      posted: (d, latencyMs) => {
        metrics.deliveries.inc({ kind: d.kind, outcome: 'posted' });
        metrics.deliveryLatency.observe({ kind: d.kind }, latencyMs / 1000);
      },
      retried: (d) => metrics.deliveries.inc({ kind: d.kind, outcome: 'retried' }),
      failed: (d) => metrics.deliveries.inc({ kind: d.kind, outcome: 'failed' }),
    },
    heartbeatMs: o.deliveries.heartbeatMs,
    // One process on the embedded store: every row is queued here and wakes the worker, so the queue is polled only as a safety net.
    pollMs: store.db.kind === 'postgres' ? 1_000 : 15_000,
    paceMs: o.deliveries.paceMs,
    timeoutMs: o.deliveries.slackTimeoutMs + 5_000,
  });
  const directory = webDirectory(web, log.child({ component: 'slack' }));
  // Replicas share PostgreSQL; the embedded store is one process, so what replicas share is kept in memory there (no write per request).
  const replicated = store.db.kind === 'postgres';
  const quotaSettings = { points: o.limits.userRequests, windowMs: o.limits.userWindowMs };
  const clock = new ClockSkew(log.child({ component: 'guard' }));
  return {
    log,
    now,
    owner: o.owner,
    repos,
    ...(installations ? { installations } : {}),
    replicated,
    api,
    fetcher: new SharedFetcher(api, { now }),
    directory,
    access: new Access(o.access, (user, channel) => directory.isMember(user, channel)),
    quota: replicated
      ? userQuota(store.db, quotaSettings, log.child({ component: 'quota' }))
      : memoryQuota(quotaSettings),
    metrics,
    seal: seal(o.slack.signingSecret, 'modal-context'),
    clock,
    worker,
    subjects,
    queued: () => worker.wake(),
    changes: new ChangeBus(),
    prunes: platformPrunes(repos),
    checks: {
      store: () => store.db.query('select 1'),
      api: () =>
        api
          .report('countries', { startDate: '1970-01-01', endDate: '1970-01-01', limit: 1 })
          .catch((error: unknown) => {
            throw error instanceof ApiError && error.info.detail
              ? new Error(`${error.message} (${error.info.detail})`)
              : error;
          }),
      clock: clock.check,
    },
    async close() {
      stopPreflightMetrics();
      await api.close();
      await store.db.close();
    },
  };
}
