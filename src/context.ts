/**
 * What Lookout is started with (LookoutOptions: the run's wiring, and settings by variable
 * name), and what each feature is handed when it is plugged (Context).
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Settings } from './config.js';
import type { Weekday } from './kernel/dates.js';
import type { ApiDays } from './kernel/trend.js';
import type { VerdictOptions } from './kernel/verdict.js';
import type { Answering } from './platform/answering.js';
import type { Feature, NoSettings, SettingsSlice } from './platform/feature.js';
import type { Logger } from './platform/log.js';
import type { Platform, PlatformOptions } from './platform/open.js';
import type { Keyring } from './platform/secrets.js';
import { apiDaysOf, verdictOf, weekStartFrom, type PlatformSettings } from './platform/settings.js';
import type { OpenDbOptions } from './platform/store/index.js';

/** What a Lookout is started with: the wiring that is not a setting, and the settings. */
export interface LookoutOptions {
  api: PlatformOptions['api'];
  slack: PlatformOptions['slack'];
  store: OpenDbOptions;
  log: Logger;
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
  /** This replica's name in the runs table (default: host name and a random suffix). */
  replica?: string;
  /** Start no background job (scheduler, threat scan, watch evaluations, housekeeping): tests drive them themselves. */
  scheduler?: boolean;
  /** The keys of secrets at rest (LOOKOUT_ENCRYPTION_KEY, …_PREVIOUS); a start re-seals what a previous key sealed. */
  encryption?: Keyring;
  /** The features, in order (default: FEATURES, src/features/index.ts). */
  features?: readonly LookoutFeature[];
  /** Settings by variable name, as typed values (durations in ms); anything left out takes its default. */
  settings?: Partial<Settings>;
}

/** What every feature is handed: the platform, its settings, and what is derived from them once. */
export interface Context {
  platform: Platform;
  settings: PlatformSettings;
  now: () => Date;
  /** This replica's name on leases, claims and outbox rows. */
  owner: string;
  demo: boolean;
  /** The analytics API Lookout was started with (a distributed app's default for connections). */
  apiBaseUrl: string;
  apiDays: ApiDays;
  weekStart: Weekday;
  verdict: VerdictOptions;
}

/** The platform's options: the wiring, with the clock and the replica's name defaulted. */
export function platformOptionsOf(options: LookoutOptions, settings: PlatformSettings): PlatformOptions {
  return {
    api: options.api,
    slack: options.slack,
    store: options.store,
    log: options.log,
    now: options.now ?? (() => new Date()),
    owner: options.replica ?? `${hostname()}-${randomBytes(3).toString('hex')}`,
    settings,
    ...(options.encryption ? { encryption: options.encryption } : {}),
    ...(options.requestClock ? { requestClock: options.requestClock } : {}),
  };
}

export function contextOf(platform: Platform, options: PlatformOptions, demo: boolean): Context {
  const { settings } = options;
  return {
    platform,
    settings,
    now: options.now,
    owner: options.owner,
    demo,
    apiBaseUrl: options.api.baseUrl,
    apiDays: apiDaysOf(settings),
    weekStart: weekStartFrom(settings),
    verdict: verdictOf(settings),
  };
}

/** A feature of Lookout (platform/feature.ts). */
export type LookoutFeature<
  Name extends string = string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  Needs extends string = any,
  Repos extends object = object,
  Slice extends SettingsSlice = NoSettings,
> = Feature<Context, Name, Needs, Repos, Slice>;

/** What commands and their buttons need to answer someone (the workspace's API comes with each request): their time zone, their quota. */
export function answering(ctx: Context): Answering {
  return {
    timeZoneFor: async () => ctx.settings.DEFAULT_TIMEZONE,
    now: ctx.now,
    apiDays: ctx.apiDays,
    weekStart: ctx.weekStart,
    demo: ctx.demo,
    quota: ctx.platform.quota,
    log: ctx.platform.log,
  };
}

/** The child logger of a component. */
export function logOf({ platform }: Context, component: string): Logger {
  return platform.log.child({ component });
}
