/**
 * The platform every feature is plugged into: the store and its shared repositories, the
 * analytics API client, the Slack Web API (lookups, and the outbox's worker), who may do
 * what, the per-person quota, metrics, and the change bus App Home listens to.
 */
import { InstallProvider } from '@slack/oauth';
import type { WebClientOptions } from '@slack/web-api';
import { growingLru } from './lru.js';
import { ChangeBus } from './changes.js';
import { DeliveryRepo } from './deliveries/repo.js';
import { Subjects, type AnySubject } from './deliveries/subject.js';
import { DeliveryWorker } from './deliveries/worker.js';
import type { Logger } from './log.js';
import { Metrics } from './metrics.js';
import { readinessChecks } from './readiness.js';
import { memoryQuota, pruneQuota, userQuota, type Quota } from './quota.js';
import { boltLogger } from './slack/bolt-logger.js';
import { ClockSkew } from './slack/clock.js';
import { SignedRequests, WINDOW_MS, type GuardObserve } from './slack/guard.js';
import { seal, type Seal } from './slack/kit/seal.js';
import { webPoster } from './slack/poster.js';
import { InstallationRepo } from './slack/installations.js';
import { PreflightGate } from './slack/preflight-gate.js';
import type { Keyring } from './secrets.js';
import { accessOf, installLinksOf, type PlatformSettings } from './settings.js';
import { ConnectionRepo } from './tenancy/connections.js';
import { TenantError, Tenants, type TokenSource } from './tenancy/tenants.js';
import { BOT_SCOPES } from './slack/scopes.js';
import { installPage, type InstallPageLinks } from './slack/install-page.js';
import { ANSWER_FRESH_MS, ANSWER_KEPT_MS } from './api/shared-fetcher.js';
import { ApiAnswerRepo, pruneAnswers } from './store/api-answers.js';
import type { Prune } from './store/housekeeping.js';
import {
  LeaseRepo,
  openStore,
  PLATFORM_MIGRATIONS,
  QueryStashRepo,
  ReplayRepo,
  type Db,
  type OpenDbOptions,
} from './store/index.js';

/** A distributed app's OAuth settings (Basic Information), and where Slack's authorise page is. */
export interface OAuthSettings {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** Slack's authorise page (the offline Slack's in the sandbox). */
  authorizationUrl?: string;
}

export interface PlatformOptions {
  /** One workspace's analytics account (with its key); a distributed app's default base URL for connections. */
  api: { baseUrl: string; apiKey?: string };
  /** `botToken`: one workspace; `oauth`: a distributed app, installed by any workspace. */
  slack: { signingSecret: string; botToken?: string; oauth?: OAuthSettings; appToken?: string; apiUrl?: string };
  store: OpenDbOptions;
  log: Logger;
  now: () => Date;
  /** This replica's name on leases, claims and outbox rows. */
  owner: string;
  settings: PlatformSettings;
  /** The keys of secrets at rest (LOOKOUT_ENCRYPTION_KEY and the previous ones); without them no secret is stored. */
  encryption?: Keyring;
  /** The clock Slack's request timestamps are judged by (ms; default Date.now). */
  requestClock?: () => number;
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
  /** A distributed app: each workspace's analytics connection, and Bolt's OAuth (install, callback, authorize). */
  connections?: ConnectionRepo;
  installer?: InstallProvider;
  /** Replicas share PostgreSQL; the embedded store is one process. */
  replicated: boolean;
  /** Each workspace's Slack and analytics account. */
  tenants: Tenants;
  /** Replicas: the analytics answers they share (absent on the embedded store, one process). */
  answers?: ApiAnswerRepo;
  quota: Quota;
  metrics: Metrics;
  /** Signs what a modal carries to its submission. */
  seal: Seal;
  clock: ClockSkew;
  /** Told how the request guard judged each request: counted, and the clock's skew watched. */
  judged: GuardObserve;
  /** The one rule every request Slack signs passes (signature, 5-minute window, once only): /slack/events' guard and /mcp. */
  signed: SignedRequests;
  worker: DeliveryWorker;
  subjects: Subjects;
  /** Wakes the delivery worker (something was queued). */
  queued: () => void;
  changes: ChangeBus;
  prunes: Prune[];
  checks: Record<string, () => Promise<unknown>>;
  /** What every payload to Slack passes; the Slack app's listeners use it too. */
  preflight: PreflightGate;
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
async function resealAtStart(
  repo: InstallationRepo,
  connections: ConnectionRepo,
  keys: Keyring,
  log: Logger,
  close: () => Promise<void>,
) {
  try {
    const resealed = (await repo.resealAll()) + (await connections.resealAll());
    if (resealed > 0) log.info({ resealed, key: keys.current.id }, 're-sealed stored secrets under the current key');
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * What the OAuth redirect refuses of a request that is not a live install (no state, another browser's or a
 * forged one, no code, Cancel pressed): expected, and logged at warn by the install page (slack/app.ts).
 */
const REFUSED_INSTALLS = new Set([
  'slack_oauth_missing_state',
  'slack_oauth_invalid_state',
  'slack_oauth_missing_code',
  'slack_oauth_installer_authorization_error',
]);

/** Bolt's OAuth for a distributed app: the install path, the callback, and `authorize` over the installations. */
function installerOf(
  oauth: OAuthSettings,
  installations: InstallationRepo | undefined,
  clientOptions: WebClientOptions,
  log: Logger,
  links: InstallPageLinks,
): InstallProvider {
  if (!installations) throw new Error('a distributed app needs LOOKOUT_ENCRYPTION_KEY to seal its workspaces’ tokens');
  return new InstallProvider({
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    stateSecret: oauth.stateSecret,
    installationStore: installations,
    installUrlOptions: { scopes: [...BOT_SCOPES] },
    directInstall: false,
    clientOptions,
    logger: boltLogger(log.child({ component: 'oauth' }), [oauth.clientSecret, oauth.stateSecret], {
      expected: (error) => REFUSED_INSTALLS.has((error as { code?: unknown } | undefined)?.code as string),
    }),
    ...(oauth.authorizationUrl ? { authorizationUrl: oauth.authorizationUrl } : {}),
    renderHtmlForInstallPath: (url) => installPage.install(url, links),
  });
}

/**
 * Each workspace's bot token: the environment's for one workspace; for a distributed app, Bolt's
 * `authorize` (the same as a request's), which refreshes a token about to expire. A token is kept a
 * minute, far inside the two hours before expiry that `authorize` refreshes at; refreshes of one
 * workspace are made once at a time here, and a refresh another replica won is read back from the store.
 */
function tokenSource(
  botToken: string | undefined,
  installer: InstallProvider | undefined,
  installations: InstallationRepo | undefined,
): TokenSource {
  if (!installer || !installations) return async () => ({ token: botToken ?? '' });
  const cache = growingLru<string, { token: string; orgWide: boolean }>(10_000, {
    ttl: 60_000,
    fetchMethod: async (team) => {
      const query = await installations.queryFor(team);
      if (!query) throw new TenantError('not_installed', `Lookout is not installed in workspace ${team}`);
      const orgWide = query.isEnterpriseInstall;
      try {
        return { token: (await installer.authorize(query)).botToken ?? '', orgWide };
      } catch {
        return { token: (await installer.authorize(query)).botToken ?? '', orgWide };
      }
    },
  });
  const fetched = async (team: string) => (await cache.fetch(team)) ?? { token: '' };
  // forget() while a fetch is under way aborts it ("deleted"): ask again, as of now (not installed, say).
  const source: TokenSource = (team) =>
    fetched(team).catch((error: unknown) => {
      if (error instanceof TenantError) throw error;
      return fetched(team);
    });
  source.forget = (team: string) => void cache.delete(team);
  return source;
}

/** Every migrations folder: the platform's, then each feature's in their order. */
export function migrationsOf(features: readonly { migrations?: URL }[]): URL[] {
  return [PLATFORM_MIGRATIONS, ...features.flatMap((f) => (f.migrations ? [f.migrations] : []))];
}

/**
 * Opens (and migrates) the store and builds the platform for these features: their delivery
 * subjects (a duplicate throws here) and their migrations.
 */
export async function openPlatform(
  o: PlatformOptions,
  features: readonly { subjects?: readonly AnySubject[]; migrations?: URL }[],
): Promise<Platform> {
  const { log, now, settings } = o;
  const subjects = new Subjects(features.flatMap((f) => f.subjects ?? []));
  const store = await openStore({
    ...o.store,
    migrations: migrationsOf(features),
    onError: (error) => log.error({ err: error.message }, 'database connection error'),
  });
  const repos = platformRepos(store.db);
  const installations = o.encryption && new InstallationRepo(store.db, o.encryption);
  const connections = o.encryption && new ConnectionRepo(store.db, o.encryption);
  if (installations) await resealAtStart(installations, connections!, o.encryption!, log, () => store.close());
  const secrets = [o.slack.botToken ?? '', o.slack.signingSecret, o.slack.oauth?.clientSecret ?? ''];
  // Every payload to Slack, the app's and the jobs', passes one gate, counted in metrics.
  const preflight = new PreflightGate(log.child({ component: 'preflight' }), (r) =>
    metrics.preflight.inc({ method: r.method, outcome: r.reasons.length > 0 ? 'refused' : 'fitted' }),
  );
  const webOptions = {
    ...(o.slack.apiUrl ? { slackApiUrl: o.slack.apiUrl } : {}),
    fetch: preflight.fetch(),
    logger: boltLogger(log.child({ component: 'slack' }), secrets),
    timeout: settings.SLACK_TIMEOUT,
  };
  const installer =
    o.slack.oauth && installerOf(o.slack.oauth, installations, webOptions, log, installLinksOf(settings));
  const metrics = new Metrics(
    {
      deliveries: () => repos.deliveries.counts(),
      leases: (keys) => repos.leases.holders(keys),
      apiBudget: () => tenants.waitingForBudgets(),
    },
    log.child({ component: 'metrics' }),
  );
  const { apiKey } = o.api;
  // Replicas share PostgreSQL; the embedded store is one process, so what replicas share is kept in memory there (no write per request).
  const replicated = store.db.kind === 'postgres';
  const answers = replicated
    ? new ApiAnswerRepo(store.db, { owner: o.owner, now, freshMs: ANSWER_FRESH_MS })
    : undefined;
  const tenants = new Tenants({
    log,
    now,
    api: {
      timeoutMs: settings.ANALYTICS_TIMEOUT_MS,
      maxConcurrency: settings.ANALYTICS_MAX_CONCURRENCY,
      logger: log.child({ component: 'api' }),
      observe: ({ operation, outcome, seconds }) => metrics.api.observe({ operation, outcome }, seconds),
    },
    apiBudget: settings.API_BUDGET,
    web: webOptions,
    token: tokenSource(o.slack.botToken, installer, installations),
    access: installer ? { admins: [], security: { channels: [], users: [] } } : accessOf(settings),
    ...(installer ? { connections: connections! } : { single: { baseUrl: o.api.baseUrl, apiKey: apiKey ?? '' } }),
    answers,
  });
  const deliveryOptions = { retryConfig: { retries: 0 }, rejectRateLimitedCalls: true };
  const worker = new DeliveryWorker({
    db: store.db,
    poster: async (team) => webPoster(await tenants.web(team, deliveryOptions)),
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
    heartbeatMs: settings.HEARTBEAT,
    // One process on the embedded store: every row is queued here and wakes the worker, so the queue is polled only as a safety net.
    pollMs: store.db.kind === 'postgres' ? 1_000 : 15_000,
    paceMs: settings.DELIVERY_PACE,
    timeoutMs: settings.SLACK_TIMEOUT + 5_000,
  });
  const quotaSettings = { points: settings.USER_RATE_LIMIT, windowMs: settings.USER_RATE_WINDOW };
  const clock = new ClockSkew(log.child({ component: 'guard' }));
  const judged: GuardObserve = (outcome, skewSeconds) => {
    if (outcome === 'accepted') return clock.accepted();
    metrics.refused.inc({ reason: outcome });
    if (skewSeconds !== undefined) clock.refused(skewSeconds);
  };
  return {
    log,
    now,
    owner: o.owner,
    repos,
    ...(installations ? { installations } : {}),
    ...(installer ? { installer, connections: connections! } : {}),
    replicated,
    tenants,
    answers,
    quota: replicated
      ? userQuota(store.db, quotaSettings, log.child({ component: 'quota' }))
      : memoryQuota(quotaSettings),
    metrics,
    preflight,
    seal: seal(o.slack.signingSecret, 'modal-context'),
    clock,
    judged,
    signed: new SignedRequests({
      signingSecret: o.slack.signingSecret,
      // The embedded store is one process: this replica's memory is every replica's.
      ...(replicated ? { firstSeen: (key, ttlMs) => repos.replays.firstSeen(key, ttlMs) } : {}),
      log: log.child({ component: 'guard' }),
      ...(o.requestClock ? { now: o.requestClock } : {}),
      observe: judged,
    }),
    worker,
    subjects,
    queued: () => worker.wake(),
    changes: new ChangeBus(),
    prunes: [
      ...platformPrunes(repos),
      // An answer serves a minute after it was asked, a digest slot's several (ANSWER_KEPT_MS), and a claim is taken over sooner.
      ...(answers
        ? [
            {
              name: 'api_answers',
              olderThanMs: ANSWER_KEPT_MS,
              everyMs: 60_000,
              prune: (t: Date) => pruneAnswers(store.db, t),
            },
          ]
        : []),
    ],
    checks: readinessChecks({
      db: store.db,
      tenants,
      clock: clock.check,
      ...(installer ? { slack: { url: o.slack.apiUrl ?? 'https://slack.com/api/', options: webOptions } } : {}),
    }),
    async close() {
      await tenants.close();
      await store.db.close();
    },
  };
}
