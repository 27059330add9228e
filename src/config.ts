import { z } from 'zod';
import { parseDuration } from './kernel/text.js';
import { isLocale, isValidTimeZone, weekStartOf, type Weekday } from './kernel/dates.js';
import type { ApiDays } from './kernel/trend.js';
import { DEFAULT_VERDICT_OPTIONS } from './kernel/verdict.js';
import { KEY_HINT, KEY_SHAPE, keyring, parseKey, type Keyring } from './platform/secrets.js';

/**
 * Every setting, from the environment, through one schema. A bad or missing
 * value is reported together with every other one, by variable name and what
 * it expects; the values themselves are never echoed (some are secrets).
 */

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());
const withDefault = <T extends z.ZodType>(schema: T, value: z.input<T>) =>
  z.preprocess(blankToUndefined, schema.prefault(value as never));

const intBetween = (min: number, max: number) =>
  z.coerce
    .number({ error: `expected a whole number from ${min} to ${max}` })
    .int(`expected a whole number from ${min} to ${max}`)
    .min(min, `expected a whole number from ${min} to ${max}`)
    .max(max, `expected a whole number from ${min} to ${max}`);

const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL, like https://api.example.com' });

const slackIds = (kind: string, pattern: RegExp) =>
  z
    .string()
    .transform((v) => v.split(/[\s,]+/).filter(Boolean))
    .refine(
      (ids) => ids.every((id) => pattern.test(id)),
      `expected a comma-separated list of Slack ${kind} ids, like ${kind === 'user' ? 'U012AB3CD' : 'C012AB3CD'}`,
    );

/** `60s`, `5m`, `6h`, `1d`, or a number of seconds → milliseconds. */
const duration = (min: number, max: number, example: string) =>
  z.string().transform((v, ctx) => {
    const ms = parseDuration(v, 's')?.ms ?? NaN;
    if (!(ms >= min && ms <= max)) {
      ctx.addIssue({ code: 'custom', message: `expected a duration like ${example} (s, m, h or d)` });
      return z.NEVER;
    }
    return ms;
  });

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const envSchema = z.object({
  ANALYTICS_API_URL: optional(httpUrl),
  ANALYTICS_API_KEY: optional(z.string()),
  ANALYTICS_TIMEOUT_MS: withDefault(intBetween(100, 120_000), 10_000),
  ANALYTICS_MAX_CONCURRENCY: withDefault(intBetween(1, 100), 8),
  ANALYTICS_API_TIMEZONE: withDefault(
    z
      .string()
      .refine(isValidTimeZone, 'expected the IANA time zone the API counts its dates in, like UTC or America/New_York'),
    'UTC',
  ),
  ANALYTICS_SETTLE_MARGIN: withDefault(duration(60_000, 86_400_000, '10m, from 1m to 1d'), '10m'),
  DEFAULT_TIMEZONE: withDefault(
    z.string().refine(isValidTimeZone, 'expected an IANA time zone, like Europe/Berlin or UTC'),
    'UTC',
  ),
  LOCALE: optional(z.string().refine(isLocale, 'expected a BCP 47 locale, like en-GB, de-DE or en-US')),
  LOG_LEVEL: withDefault(z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` }), 'info'),
  PORT: withDefault(intBetween(0, 65_535), 3000),
  OPS_PORT: withDefault(intBetween(0, 65_535), 3001),
  OPS_HOST: withDefault(
    z.union([z.ipv4(), z.ipv6(), z.hostname()], {
      error: 'expected an address to listen on, like 127.0.0.1, 0.0.0.0 or ::',
    }),
    '127.0.0.1',
  ),
  OPS_TOKEN: optional(
    z
      .string()
      .regex(
        /^[\x21-\x7e]{16,}$/,
        'expected at least 16 printable characters without spaces (e.g. the output of openssl rand -hex 32)',
      ),
  ),
  SLACK_SIGNING_SECRET: optional(z.string().min(8, "expected the app's signing secret")),
  SLACK_BOT_TOKEN: optional(z.string().startsWith('xoxb-', 'expected a bot token starting with xoxb-')),
  SLACK_APP_TOKEN: optional(z.string().startsWith('xapp-', 'expected an app-level token starting with xapp-')),
  SLACK_API_URL: optional(httpUrl),
  SLACK_CLIENT_ID: optional(
    z.string().regex(/^\d+\.\d+$/, "expected the app's client id, two numbers joined by a dot (Basic Information)"),
  ),
  SLACK_CLIENT_SECRET: optional(z.string().min(8, "expected the app's client secret (Basic Information)")),
  SLACK_STATE_SECRET: optional(
    z
      .string()
      .regex(
        /^[\x21-\x7e]{16,}$/,
        'expected at least 16 printable characters without spaces (e.g. the output of openssl rand -hex 32)',
      ),
  ),
  UNINSTALL_RETENTION: withDefault(duration(0, 365 * 86_400_000, '30d'), '30d'),
  ANALYTICS_API_ALLOWED_URLS: withDefault(
    z.string().transform((v) =>
      v
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    ),
    '',
  ),
  INSTALL_PRIVACY_URL: optional(httpUrl),
  INSTALL_SUPPORT_URL: optional(httpUrl),
  DATA_DIR: withDefault(z.string(), './data'),
  SECURITY_CHANNELS: withDefault(slackIds('channel', /^[CGD][A-Z0-9_]+$/), ''),
  SECURITY_USERS: withDefault(slackIds('user', /^[UW][A-Z0-9_]+$/), ''),
  ADMIN_USERS: withDefault(slackIds('user', /^[UW][A-Z0-9_]+$/), ''),
  ALERT_SCAN_INTERVAL: withDefault(duration(1000, 86_400_000, '60s'), '60s'),
  ALERT_RECHECK_AFTER: withDefault(duration(0, 30 * 86_400_000, '6h'), '6h'),
  ALERT_BURST: withDefault(intBetween(1, 100), 5),
  ALERT_DELIVERY_DEADLINE: withDefault(duration(60_000, 7 * 86_400_000, '6h'), '6h'),
  SLACK_TIMEOUT: withDefault(duration(500, 120_000, '10s'), '10s'),
  HEARTBEAT: withDefault(duration(200, 600_000, '10s'), '10s'),
  DIGEST_MIN_INTERVAL: withDefault(duration(60_000, 7 * 86_400_000, '1h'), '1h'),
  DIGESTS_PER_CHANNEL: withDefault(intBetween(1, 1000), 10),
  DIGESTS_PER_USER: withDefault(intBetween(1, 1000), 20),
  USER_RATE_LIMIT: withDefault(intBetween(1, 100_000), 600),
  API_BUDGET: withDefault(intBetween(1, 1_000_000), 6000),
  TREND_MAX_FETCH: withDefault(intBetween(1, 10_000), 200),
  USER_RATE_WINDOW: withDefault(duration(1000, 86_400_000, '60s'), '60s'),
  SCRAPING_SCORE_THRESHOLD: withDefault(
    z.coerce
      .number({ error: 'expected a number from 0 to 1' })
      .min(0, 'expected a number from 0 to 1')
      .max(1, 'expected a number from 0 to 1'),
    DEFAULT_VERDICT_OPTIONS.scrapingScoreThreshold,
  ),
  LOOKOUT_ENCRYPTION_KEY: optional(z.string().refine((v) => parseKey(v) !== undefined, KEY_HINT)),
  LOOKOUT_ENCRYPTION_KEY_PREVIOUS: withDefault(
    z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      )
      .refine(
        (keys) => keys.every((k) => parseKey(k) !== undefined),
        `expected a comma-separated list of old keys, each ${KEY_SHAPE}`,
      ),
    '',
  ),
  DATABASE_URL: optional(z.url({ protocol: /^postgres(ql)?$/, error: 'expected a postgres:// URL' })),
});

/** Rules across variables, checked on the raw values so they are reported with every other problem. */
function crossChecks(env: NodeJS.ProcessEnv): string[] {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const problems: string[] = [];
  // A distributed app's workspaces bring their own keys: its ANALYTICS_API_URL is the URL they connect to.
  if (set('ANALYTICS_API_URL') && !set('ANALYTICS_API_KEY') && !set('SLACK_CLIENT_ID')) {
    problems.push('ANALYTICS_API_KEY: required when ANALYTICS_API_URL is set');
  }
  const oauth = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'];
  if (oauth.some(set)) {
    // A distributed app: Bolt's OAuth flow installs it in any workspace, and each one's tokens are sealed in the store.
    for (const name of oauth.filter((n) => !set(n)))
      problems.push(`${name}: required with the other OAuth settings (${oauth.join(', ')}) for a distributed app`);
    if (set('SLACK_BOT_TOKEN'))
      problems.push(
        'SLACK_BOT_TOKEN: set it for one workspace, or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for a distributed app, not both',
      );
    if (!set('SLACK_SIGNING_SECRET')) problems.push('SLACK_SIGNING_SECRET: required for a distributed app too');
    if (!set('LOOKOUT_ENCRYPTION_KEY'))
      problems.push(
        `LOOKOUT_ENCRYPTION_KEY: required for a distributed app (it seals each workspace's tokens), ${KEY_HINT}`,
      );
    if (set('SLACK_APP_TOKEN'))
      problems.push('SLACK_APP_TOKEN: a distributed app takes HTTP requests (Socket Mode is for one workspace)');
  } else if (set('SLACK_SIGNING_SECRET') !== set('SLACK_BOT_TOKEN')) {
    const missing = set('SLACK_SIGNING_SECRET') ? 'SLACK_BOT_TOKEN' : 'SLACK_SIGNING_SECRET';
    problems.push(`${missing}: required with the other Slack credential (set both, or neither for the sandbox)`);
  } else if (set('SLACK_APP_TOKEN') && !set('SLACK_BOT_TOKEN')) {
    problems.push(
      'SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET: required with SLACK_APP_TOKEN (Socket Mode needs them too)',
    );
  }
  if (['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', ...oauth].some(set) && !set('ANALYTICS_API_URL')) {
    problems.push(
      oauth.some(set)
        ? 'ANALYTICS_API_URL: required for a distributed app (the analytics API its workspaces connect to)'
        : 'ANALYTICS_API_URL: required with Slack credentials (the demo API is for the sandbox only)',
    );
  }
  if (set('LOOKOUT_ENCRYPTION_KEY_PREVIOUS') && !set('LOOKOUT_ENCRYPTION_KEY')) {
    problems.push(
      'LOOKOUT_ENCRYPTION_KEY: required with LOOKOUT_ENCRYPTION_KEY_PREVIOUS (the key that seals from now on)',
    );
  }
  return problems;
}

export interface Config {
  analytics: {
    /** Absent: the sandbox's demo API is used. */
    url?: string;
    apiKey?: string;
    timeoutMs: number;
    maxConcurrency: number;
  };
  /** The zone of the API's dates, and how long after a period ends there its figures are final. */
  apiDays: ApiDays;
  defaultTimezone: string;
  /** The first day of a trend's weeks, from LOCALE (Monday unless it says otherwise). */
  weekStart: Weekday;
  logLevel: (typeof LOG_LEVELS)[number];
  port: number;
  /** Where /metrics and /readyz are served: their own listener, loopback unless told otherwise; with a token, only to its bearer. */
  ops: { port: number; host: string; token?: string };
  /** Absent: no Slack credentials, so the sandbox runs. */
  slack?: {
    signingSecret: string;
    botToken: string;
    appToken?: string;
    apiUrl?: string;
  };
  /** A distributed app (SLACK_CLIENT_ID…): installed in any workspace through Bolt's OAuth flow; absent otherwise. */
  distributed?: {
    clientId: string;
    clientSecret: string;
    stateSecret: string;
    signingSecret: string;
    apiUrl?: string;
  };
  /** The Slack Web API base URL even in the sandbox (tests point it at the offline Slack). */
  slackApiUrl?: string;
  store: { dataDir: string; databaseUrl?: string };
  /** The keys that seal secrets at rest (LOOKOUT_ENCRYPTION_KEY) and still open old ones; absent when unset. */
  encryption?: Keyring;
  /** Who may see security details; empty lists mean everyone, everywhere. */
  security: { channels: string[]; users: string[]; scrapingScoreThreshold: number };
  /** Who may manage any digest or alert subscription; empty means everyone. */
  admins: string[];
  alerts: { scanIntervalMs: number; recheckMs: number; burst: number; deliveryDeadlineMs: number };
  /** How Lookout's own posts are delivered: the Slack call's timeout, and how often claims renew their heartbeat. */
  deliveries: { slackTimeoutMs: number; heartbeatMs: number };
  limits: Limits;
  /** A distributed app's workspaces: the analytics URLs a connection may use beside ANALYTICS_API_URL, how long a departed one's settings are kept, the install page's links. */
  workspaces: { allowedUrls: string[]; retentionMs: number; privacyUrl?: string; supportUrl?: string };
}

/** Limits on abuse. */
export interface Limits {
  /** A digest runs at most this often (ms); a cron expression is checked against it. */
  digestMinIntervalMs: number;
  digestsPerChannel: number;
  digestsPerUser: number;
  /** The analytics API requests each person's commands may cause per window, across replicas. */
  userRequests: number;
  userWindowMs: number;
  /** The workspace's analytics API requests a minute on each replica: people first, background work waits. */
  apiBudget: number;
  /** The most periods not kept yet that one trend may fetch. */
  trendMaxFetch: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${String(issue.path[0] ?? '?')}: ${issue.message}`);
  problems.push(...crossChecks(env));
  if (parsed.success && parsed.data.OPS_PORT !== 0 && parsed.data.OPS_PORT === parsed.data.PORT) {
    problems.push(
      'OPS_PORT: must differ from PORT (PORT serves Slack and /healthz; /metrics and /readyz have their own port)',
    );
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError([...new Set(problems)]);
  const e = parsed.data;
  return {
    analytics: {
      url: e.ANALYTICS_API_URL,
      apiKey: e.ANALYTICS_API_KEY,
      timeoutMs: e.ANALYTICS_TIMEOUT_MS,
      maxConcurrency: e.ANALYTICS_MAX_CONCURRENCY,
    },
    apiDays: { timeZone: e.ANALYTICS_API_TIMEZONE, settleMs: e.ANALYTICS_SETTLE_MARGIN },
    defaultTimezone: e.DEFAULT_TIMEZONE,
    weekStart: weekStartOf(e.LOCALE),
    logLevel: e.LOG_LEVEL,
    port: e.PORT,
    ops: { port: e.OPS_PORT, host: e.OPS_HOST, token: e.OPS_TOKEN },
    slack:
      e.SLACK_SIGNING_SECRET && e.SLACK_BOT_TOKEN
        ? {
            signingSecret: e.SLACK_SIGNING_SECRET,
            botToken: e.SLACK_BOT_TOKEN,
            appToken: e.SLACK_APP_TOKEN,
            apiUrl: e.SLACK_API_URL,
          }
        : undefined,
    distributed:
      e.SLACK_CLIENT_ID && e.SLACK_CLIENT_SECRET && e.SLACK_STATE_SECRET && e.SLACK_SIGNING_SECRET
        ? {
            clientId: e.SLACK_CLIENT_ID,
            clientSecret: e.SLACK_CLIENT_SECRET,
            stateSecret: e.SLACK_STATE_SECRET,
            signingSecret: e.SLACK_SIGNING_SECRET,
            apiUrl: e.SLACK_API_URL,
          }
        : undefined,
    slackApiUrl: e.SLACK_API_URL,
    workspaces: {
      allowedUrls: e.ANALYTICS_API_ALLOWED_URLS,
      retentionMs: e.UNINSTALL_RETENTION,
      ...(e.INSTALL_PRIVACY_URL ? { privacyUrl: e.INSTALL_PRIVACY_URL } : {}),
      ...(e.INSTALL_SUPPORT_URL ? { supportUrl: e.INSTALL_SUPPORT_URL } : {}),
    },
    store: { dataDir: e.DATA_DIR, databaseUrl: e.DATABASE_URL },
    encryption: e.LOOKOUT_ENCRYPTION_KEY
      ? keyring(e.LOOKOUT_ENCRYPTION_KEY, e.LOOKOUT_ENCRYPTION_KEY_PREVIOUS)
      : undefined,
    security: {
      channels: e.SECURITY_CHANNELS,
      users: e.SECURITY_USERS,
      scrapingScoreThreshold: e.SCRAPING_SCORE_THRESHOLD,
    },
    admins: e.ADMIN_USERS,
    alerts: {
      scanIntervalMs: e.ALERT_SCAN_INTERVAL,
      recheckMs: e.ALERT_RECHECK_AFTER,
      burst: e.ALERT_BURST,
      deliveryDeadlineMs: e.ALERT_DELIVERY_DEADLINE,
    },
    deliveries: { slackTimeoutMs: e.SLACK_TIMEOUT, heartbeatMs: e.HEARTBEAT },
    limits: {
      digestMinIntervalMs: e.DIGEST_MIN_INTERVAL,
      digestsPerChannel: e.DIGESTS_PER_CHANNEL,
      digestsPerUser: e.DIGESTS_PER_USER,
      userRequests: e.USER_RATE_LIMIT,
      userWindowMs: e.USER_RATE_WINDOW,
      apiBudget: e.API_BUDGET,
      trendMaxFetch: e.TREND_MAX_FETCH,
    },
  };
}
