import type { Server } from 'node:http';
import { settingsWith } from './config.js';
import { contextOf, platformOptionsOf, type LookoutFeature, type LookoutOptions } from './context.js';
import { FEATURES } from './features/index.js';
import type { Tenants } from './platform/tenancy/tenants.js';
import type { DeliveryWorker } from './platform/deliveries/worker.js';
import { commandTable, plugAll, type CommandTable, type Provided } from './platform/feature.js';
import { installLinksOf } from './platform/settings.js';
import { migrationsOf, openPlatform, platformRepos, type Platform, type PlatformRepos } from './platform/open.js';
import { adoptRows, PLATFORM_UNOWNED } from './platform/tenancy/adopt.js';
import { startOps, type Ops } from './platform/ops.js';
import { createSlackApp, type SlackApp } from './platform/slack/app.js';
import { startHousekeeping } from './platform/store/housekeeping.js';
import { openStore, type Db, type OpenDbOptions } from './platform/store/index.js';

export type { LookoutOptions } from './context.js';

type Features = (typeof FEATURES)[number];
type ReposOf<F> = F extends { repos?(db: never): infer R } ? R : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every repository over one Db, the platform's and each feature's; tests and tools reach the store through it. */
export type Repos = PlatformRepos & Intersection<ReposOf<Features>> & { close(): Promise<void> };

/** Every migrations folder of Lookout's features (and the platform's). */
export const MIGRATIONS = migrationsOf(FEATURES);

export function createRepos(db: Db, features: readonly LookoutFeature[] = FEATURES): Repos {
  return Object.assign(platformRepos(db), ...features.map((f) => f.repos?.(db) ?? {}), {
    close: () => db.close(),
  }) as Repos;
}

/** Opens (and migrates) the store, with every repository. */
export async function openRepos(options: OpenDbOptions): Promise<Repos> {
  return createRepos((await openStore({ ...options, migrations: MIGRATIONS })).db);
}

export interface Lookout {
  /** Each workspace's Slack and analytics account. */
  tenants: Tenants;
  store: Repos;
  slack: SlackApp;
  /** What each feature gives, by its name. */
  features: Provided;
  /** What the features say of their commands (the help, the manifest and the sandbox's suggestions are made from it). */
  commands: CommandTable;
  deliveries: DeliveryWorker;
  /** The HTTP server (absent in Socket Mode). */
  server?: Server;
  /** Where Slack sends requests, e.g. http://127.0.0.1:3000/slack/events (HTTP mode). */
  requestUrl?: string;
  /** The operators' listener: /metrics and /readyz. */
  ops: Ops;
  stop(): Promise<void>;
}

/**
 * The one place that wires Lookout: the platform (store, API client, Slack Web API, outbox),
 * then each feature in FEATURES' order, then the Bolt app with every feature's listeners,
 * the operators' listener, and the background jobs.
 */
export async function startLookout(options: LookoutOptions): Promise<Lookout> {
  const features = options.features ?? FEATURES;
  const settings = settingsWith(features, options.settings);
  const platformOptions = platformOptionsOf(options, settings);
  const platform = await openPlatform(platformOptions, features);
  const ctx = contextOf(platform, platformOptions, options.demo);
  let ops: Ops | undefined;
  let slack: SlackApp | undefined;
  let listening = false;
  try {
    const own = new Map<unknown, object>(features.map((f) => [f, f.repos?.(platform.repos.db) ?? {}]));
    const store = Object.assign({}, platform.repos, ...own.values(), { close: () => platform.close() }) as Repos;
    const { plugged, given } = plugAll(features, ctx, (f) => own.get(f) ?? {}, settings);
    const commands = commandTable(features, plugged);
    const jobs = plugged.flatMap((p) => p.jobs ?? []);
    if (!platform.installer)
      await adoptRows(platform, [...PLATFORM_UNOWNED, ...features.flatMap((f) => f.unowned ?? [])]);
    await platform.worker.start();
    slack = await createSlackApp({
      ...options.slack,
      port: options.port,
      ...(options.host !== undefined ? { host: options.host } : {}),
      slackApiUrl: options.slack.apiUrl,
      timeoutMs: settings.SLACK_TIMEOUT,
      log: platform.log,
      preflight: platform.preflight,
      signed: platform.signed,
      judged: platform.judged,
      observe: (type, name, outcome) => platform.metrics.requests.inc({ type, name, outcome }),
      firstSeen: (key, ttlMs) => platform.repos.replays.firstSeen(key, ttlMs),
      listeners: plugged.map((p) => (routes) => p.register?.(routes, commands)),
      routes: plugged.flatMap((p) => p.http ?? []),
      tenantOf: (team) => platform.tenants.of(team),
      ...(platform.installer ? { installer: { provider: platform.installer, links: installLinksOf(settings) } } : {}),
      ...(platform.installer && platform.installations ? { orgs: platform.installations } : {}),
    });
    ops = await startOps({
      port: options.ops?.port ?? 0,
      host: options.ops?.host ?? '127.0.0.1',
      token: options.ops?.token,
      checks: Object.assign({}, platform.checks, ...plugged.map((p) => p.checks ?? {})) as Platform['checks'],
      metrics: () => platform.metrics.text(),
      log: platform.log.child({ component: 'ops' }),
    });
    const server = await slack.start(options.port);
    listening = true;
    let stopHousekeeping = () => {};
    if (options.scheduler !== false) {
      for (const job of jobs) await job.start();
      const prunes = [...platform.prunes, ...plugged.flatMap((p) => p.prunes ?? [])];
      stopHousekeeping = startHousekeeping(prunes, platform.log.child({ component: 'housekeeping' }), platform.now);
    }
    const address = server?.address();
    const [opened, app] = [ops, slack];
    return {
      tenants: platform.tenants,
      store,
      slack: app,
      features: given as Provided,
      commands,
      deliveries: platform.worker,
      server,
      requestUrl: address && typeof address === 'object' ? `http://127.0.0.1:${address.port}/slack/events` : undefined,
      ops: opened,
      async stop() {
        stopHousekeeping();
        for (const p of plugged) await p.stop?.();
        for (const job of jobs) await job.stop();
        await platform.worker.stop();
        await app.stop();
        await opened.close();
        await platform.close();
      },
    };
  } catch (error) {
    await platform.worker.stop(0);
    // A receiver that never started cannot be stopped: the start's own error is the one to tell.
    if (listening) await slack?.stop();
    await ops?.close();
    await platform.close();
    throw error;
  }
}
