/**
 * What Lookout is started with (LookoutOptions), those options with every default filled
 * in (Settings), and what each feature is handed when it is plugged (Context).
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Limits } from './config.js';
import type { Weekday } from './kernel/dates.js';
import type { ApiDays } from './kernel/trend.js';
import type { VerdictOptions } from './kernel/verdict.js';
import type { Answering } from './platform/answering.js';
import type { Feature } from './platform/feature.js';
import type { Logger } from './platform/log.js';
import type { Platform, PlatformOptions } from './platform/open.js';
import type { Keyring } from './platform/secrets.js';
import type { OpenDbOptions } from './platform/store/index.js';

/** The settings a Lookout runs with; anything left out takes its configuration default. */
export interface LookoutOptions {
  api: PlatformOptions['api'];
  slack: PlatformOptions['slack'];
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
  /** Start no background job (scheduler, threat scan, watch evaluations, housekeeping): tests drive them themselves. */
  scheduler?: boolean;
  alerts?: { scanIntervalMs: number; recheckMs: number; burst: number; deliveryDeadlineMs?: number };
  limits?: Partial<Limits>;
  deliveries?: {
    slackTimeoutMs: number;
    heartbeatMs: number;
    /** At most one post per channel this often (default 1 s, Slack's limit). */ paceMs?: number;
  };
  /** How often due watches are looked for, and over how much of each period their evaluations are spread (ms). */
  watches?: { tickMs?: number; spreadMs?: { hour: number; day: number }; staleMs?: number };
  /** Open Home tabs are published again this long after a change, at most `perMinute` a minute after a burst of `burst`. */
  home?: { debounceMs?: number; perMinute?: number; burst?: number };
  /** The keys of secrets at rest (LOOKOUT_ENCRYPTION_KEY, …_PREVIOUS); a start re-seals what a previous key sealed. */
  encryption?: Keyring;
  /** A distributed app's workspaces: other analytics URLs a connection may use, and how long a departed one's settings are kept. */
  workspaces?: { allowedUrls?: string[]; retentionMs?: number };
  /** The features, in order (default: FEATURES, src/features/index.ts). */
  features?: readonly LookoutFeature[];
}

/** The options with every default filled in. */
export interface Settings extends PlatformOptions {
  timeZone: string;
  weekStart: Weekday;
  apiDays: ApiDays;
  demo: boolean;
  security: { channels: string[]; users: string[]; scrapingScoreThreshold: number };
  verdict: VerdictOptions;
  alerts: { scanIntervalMs: number; recheckMs: number; burst: number; deliveryDeadlineMs: number };
  limits: Limits;
  deliveries: NonNullable<LookoutOptions['deliveries']>;
  digestReloadMs?: number;
  watches: NonNullable<LookoutOptions['watches']>;
  home: NonNullable<LookoutOptions['home']>;
  /** The origins a workspace's analytics connection may use (ANALYTICS_API_URL's first), and the retention after uninstall. */
  workspaces: { allowedOrigins: string[]; retentionMs: number };
}

const DEFAULTS = loadConfig({});

export function settingsOf(options: LookoutOptions): Settings {
  const security = options.security ?? DEFAULTS.security;
  return {
    api: options.api,
    slack: options.slack,
    store: options.store,
    log: options.log,
    now: options.now ?? (() => new Date()),
    owner: options.replica ?? `${hostname()}-${randomBytes(3).toString('hex')}`,
    access: { admins: options.admins ?? DEFAULTS.admins, security },
    timeZone: options.defaultTimezone ?? DEFAULTS.defaultTimezone,
    weekStart: options.weekStart ?? DEFAULTS.weekStart,
    apiDays: options.apiDays ?? DEFAULTS.apiDays,
    demo: options.demo,
    security,
    verdict: { scrapingScoreThreshold: security.scrapingScoreThreshold },
    alerts: { deliveryDeadlineMs: DEFAULTS.alerts.deliveryDeadlineMs, ...(options.alerts ?? DEFAULTS.alerts) },
    limits: { ...DEFAULTS.limits, ...options.limits },
    deliveries: options.deliveries ?? DEFAULTS.deliveries,
    ...(options.digestReloadMs !== undefined ? { digestReloadMs: options.digestReloadMs } : {}),
    watches: options.watches ?? {},
    home: options.home ?? {},
    workspaces: {
      allowedOrigins: [
        ...new Set([options.api.baseUrl, ...(options.workspaces?.allowedUrls ?? [])].map((u) => new URL(u).origin)),
      ],
      retentionMs: options.workspaces?.retentionMs ?? DEFAULTS.workspaces.retentionMs,
    },
    ...(options.encryption ? { encryption: options.encryption } : {}),
  };
}

/** What every feature is handed: the platform, and the settings. */
export interface Context {
  platform: Platform;
  settings: Settings;
}

/** A feature of Lookout (platform/feature.ts). */
export type LookoutFeature<
  Name extends string = string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  Needs extends string = any,
  Repos extends object = object,
> = Feature<Context, Name, Needs, Repos>;

/** What commands and their buttons need to answer someone (the workspace's API comes with each request): their time zone, their quota. */
export function answering({ platform, settings }: Context): Answering {
  return {
    timeZoneFor: async () => settings.timeZone,
    now: settings.now,
    apiDays: settings.apiDays,
    weekStart: settings.weekStart,
    demo: settings.demo,
    quota: platform.quota,
    log: platform.log,
  };
}

/** The child logger of a component. */
export function logOf({ platform }: Context, component: string): Logger {
  return platform.log.child({ component });
}
