/**
 * Settings are read from the environment, each declared once: a key of a zod object (a
 * "slice") named by its variable, whose output is the typed value. This is the platform's
 * slice and the builders every slice uses; each feature declares its own (its settings.ts),
 * and config.ts composes them into the one schema the environment is parsed with.
 */
import { z } from 'zod';
import { isLocale, isValidTimeZone, weekStartOf, type Weekday } from '../kernel/dates.js';
import { parseDuration } from '../kernel/text.js';
import type { ApiDays } from '../kernel/trend.js';
import { DEFAULT_VERDICT_OPTIONS, type VerdictOptions } from '../kernel/verdict.js';
import { KEY_HINT, KEY_SHAPE, parseKey } from './secrets.js';
import type { AccessRules } from './slack/access.js';
import type { InstallPageLinks } from './slack/install-page.js';

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** Unset or blank: undefined. */
export const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

/** Unset or blank: `value`, parsed like a set one. */
export const withDefault = <T extends z.ZodType>(schema: T, value: z.input<T>) =>
  z.preprocess(blankToUndefined, schema.prefault(value as never));

export const intBetween = (min: number, max: number) =>
  z.coerce
    .number({ error: `expected a whole number from ${min} to ${max}` })
    .int(`expected a whole number from ${min} to ${max}`)
    .min(min, `expected a whole number from ${min} to ${max}`)
    .max(max, `expected a whole number from ${min} to ${max}`);

export const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL, like https://api.example.com' });

export const slackIds = (kind: string, pattern: RegExp) =>
  z
    .string()
    .transform((v) => v.split(/[\s,]+/).filter(Boolean))
    .refine(
      (ids) => ids.every((id) => pattern.test(id)),
      `expected a comma-separated list of Slack ${kind} ids, like ${kind === 'user' ? 'U012AB3CD' : 'C012AB3CD'}`,
    );

/** `60s`, `5m`, `6h`, `1d`, or a number of seconds → milliseconds. */
export const duration = (min: number, max: number, example: string) =>
  z.string().transform((v, ctx) => {
    const ms = parseDuration(v, 's')?.ms ?? NaN;
    if (!(ms >= min && ms <= max)) {
      ctx.addIssue({ code: 'custom', message: `expected a duration like ${example} (s, m, h or d)` });
      return z.NEVER;
    }
    return ms;
  });

export const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean),
);

const secretToken = z
  .string()
  .regex(
    /^[\x21-\x7e]{16,}$/,
    'expected at least 16 printable characters without spaces (e.g. the output of openssl rand -hex 32)',
  );

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DAY = 86_400_000;

/**
 * The platform's settings: the analytics API, Slack, the listeners, the store, who may do what, quotas, deliveries.
 * Made when read, like each feature's slice, so no schema is held once the start has parsed the settings.
 */
export const platformSettings = () =>
  z.object({
    ANALYTICS_API_URL: optional(httpUrl),
    ANALYTICS_API_KEY: optional(z.string()),
    ANALYTICS_TIMEOUT_MS: withDefault(intBetween(100, 120_000), 10_000),
    ANALYTICS_MAX_CONCURRENCY: withDefault(intBetween(1, 100), 8),
    ANALYTICS_API_TIMEZONE: withDefault(
      z
        .string()
        .refine(
          isValidTimeZone,
          'expected the IANA time zone the API counts its dates in, like UTC or America/New_York',
        ),
      'UTC',
    ),
    ANALYTICS_SETTLE_MARGIN: withDefault(duration(60_000, DAY, '10m, from 1m to 1d'), '10m'),
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
    OPS_TOKEN: optional(secretToken),
    SLACK_SIGNING_SECRET: optional(z.string().min(8, "expected the app's signing secret")),
    SLACK_BOT_TOKEN: optional(z.string().startsWith('xoxb-', 'expected a bot token starting with xoxb-')),
    SLACK_APP_TOKEN: optional(z.string().startsWith('xapp-', 'expected an app-level token starting with xapp-')),
    SLACK_API_URL: optional(httpUrl),
    SLACK_CLIENT_ID: optional(
      z.string().regex(/^\d+\.\d+$/, "expected the app's client id, two numbers joined by a dot (Basic Information)"),
    ),
    SLACK_CLIENT_SECRET: optional(z.string().min(8, "expected the app's client secret (Basic Information)")),
    SLACK_STATE_SECRET: optional(secretToken),
    INSTALL_PRIVACY_URL: optional(httpUrl),
    INSTALL_SUPPORT_URL: optional(httpUrl),
    DATA_DIR: withDefault(z.string(), './data'),
    DATABASE_URL: optional(z.url({ protocol: /^postgres(ql)?$/, error: 'expected a postgres:// URL' })),
    SECURITY_CHANNELS: withDefault(slackIds('channel', /^[CGD][A-Z0-9_]+$/), ''),
    SECURITY_USERS: withDefault(slackIds('user', /^[UW][A-Z0-9_]+$/), ''),
    ADMIN_USERS: withDefault(slackIds('user', /^[UW][A-Z0-9_]+$/), ''),
    SCRAPING_SCORE_THRESHOLD: withDefault(
      z.coerce
        .number({ error: 'expected a number from 0 to 1' })
        .min(0, 'expected a number from 0 to 1')
        .max(1, 'expected a number from 0 to 1'),
      DEFAULT_VERDICT_OPTIONS.scrapingScoreThreshold,
    ),
    SLACK_TIMEOUT: withDefault(duration(500, 120_000, '10s'), '10s'),
    HEARTBEAT: withDefault(duration(200, 600_000, '10s'), '10s'),
    DELIVERY_PACE: withDefault(duration(0, 60_000, '1s'), '1s'),
    USER_RATE_LIMIT: withDefault(intBetween(1, 100_000), 600),
    USER_RATE_WINDOW: withDefault(duration(1000, DAY, '60s'), '60s'),
    API_BUDGET: withDefault(intBetween(1, 1_000_000), 6000),
    LOOKOUT_ENCRYPTION_KEY: optional(z.string().refine((v) => parseKey(v) !== undefined, KEY_HINT)),
    LOOKOUT_ENCRYPTION_KEY_PREVIOUS: withDefault(
      commaList.refine(
        (keys) => keys.every((k) => parseKey(k) !== undefined),
        `expected a comma-separated list of old keys, each ${KEY_SHAPE}`,
      ),
      '',
    ),
  });

export type PlatformSettings = z.output<ReturnType<typeof platformSettings>>;

/** The zone of the API's dates, and how long after a period ends there its figures are final. */
export function apiDaysOf(s: Pick<PlatformSettings, 'ANALYTICS_API_TIMEZONE' | 'ANALYTICS_SETTLE_MARGIN'>): ApiDays {
  return { timeZone: s.ANALYTICS_API_TIMEZONE, settleMs: s.ANALYTICS_SETTLE_MARGIN };
}

/** The first day of a trend's weeks, from LOCALE (Monday unless it says otherwise). */
export function weekStartFrom(s: Pick<PlatformSettings, 'LOCALE'>): Weekday {
  return weekStartOf(s.LOCALE);
}

export function verdictOf(s: Pick<PlatformSettings, 'SCRAPING_SCORE_THRESHOLD'>): VerdictOptions {
  return { scrapingScoreThreshold: s.SCRAPING_SCORE_THRESHOLD };
}

/** Who may manage any subscription (empty: everyone), and who may see security details, where. */
export function accessOf(
  s: Pick<PlatformSettings, 'ADMIN_USERS' | 'SECURITY_CHANNELS' | 'SECURITY_USERS'>,
): AccessRules {
  return { admins: s.ADMIN_USERS, security: { channels: s.SECURITY_CHANNELS, users: s.SECURITY_USERS } };
}

/** A distributed app's install page links to its privacy and support pages. */
export function installLinksOf(
  s: Pick<PlatformSettings, 'INSTALL_PRIVACY_URL' | 'INSTALL_SUPPORT_URL'>,
): InstallPageLinks {
  return {
    ...(s.INSTALL_PRIVACY_URL ? { privacyUrl: s.INSTALL_PRIVACY_URL } : {}),
    ...(s.INSTALL_SUPPORT_URL ? { supportUrl: s.INSTALL_SUPPORT_URL } : {}),
  };
}
