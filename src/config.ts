import { z } from 'zod';
import { FEATURE_SETTINGS } from './features/settings.js';
import { KEY_HINT, keyring, type Keyring } from './platform/secrets.js';
import { platformSettings } from './platform/settings.js';

/**
 * Every setting, from the environment, through one schema: the platform's slice and each
 * feature's (its `settings`), keyed by variable name. A bad or missing value is reported
 * together with every other one, by variable name and what it expects; the values themselves
 * are never echoed (some are secrets).
 */

type Slices = ReturnType<(typeof FEATURE_SETTINGS)[keyof typeof FEATURE_SETTINGS]>;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every setting by variable name, as the app reads it (durations in milliseconds, lists as arrays). */
export type Settings = z.output<ReturnType<typeof platformSettings>> & Intersection<z.output<Slices>>;
/** Every setting by variable name, as the environment gives it. */
export type SettingsInput = z.input<ReturnType<typeof platformSettings>> & Intersection<z.input<Slices>>;

/** What the schema needs of a feature: its name, and its slice. */
type Sliced = { name: string; settings?: { shape: Record<string, z.ZodType> } };

/** Every feature's slice, as the schema takes them (each made when read, as the features' own). */
const SLICED: readonly Sliced[] = Object.entries(FEATURE_SETTINGS).map(([name, slice]) => ({
  name,
  get settings() {
    return slice();
  },
}));

/** The one schema of the platform's settings and those of `features`; a variable declared twice stops the app. */
export function settingsSchema(features: readonly Sliced[]): z.ZodObject {
  const shape: Record<string, z.ZodType> = { ...platformSettings().shape };
  for (const feature of features) {
    for (const [name, schema] of Object.entries(feature.settings?.shape ?? {})) {
      if (name in shape) throw new Error(`${name} is declared twice: feature '${feature.name}' declares it again`);
      shape[name] = schema;
    }
  }
  return z.object(shape);
}

/**
 * Each list's schema while anything else holds it: the start parses the environment and the
 * defaults in one synchronous run, so they share one, and none is held once the app runs.
 */
const schemas = new WeakMap<readonly Sliced[], WeakRef<z.ZodObject>>();
const defaults = new WeakMap<readonly Sliced[], Settings>();

function schemaOf(features: readonly Sliced[]): z.ZodObject {
  let schema = schemas.get(features)?.deref();
  if (!schema) schemas.set(features, new WeakRef((schema = settingsSchema(features))));
  return schema;
}

/** Every setting of `features`: `overrides` where given, else its default. */
export function settingsWith(features: readonly Sliced[], overrides: Partial<Settings> = {}): Settings {
  const given = Object.entries(overrides).filter(([, value]) => value !== undefined);
  return { ...defaultSettings(features), ...Object.fromEntries(given) };
}

/** Every setting of `features` at its default (an empty environment, parsed once). */
export function defaultSettings(features: readonly Sliced[] = SLICED): Settings {
  let values = defaults.get(features);
  if (!values) defaults.set(features, (values = schemaOf(features).parse({}) as Settings));
  return values;
}

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

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Settings {
  const parsed = schemaOf(SLICED).safeParse(env);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${String(issue.path[0] ?? '?')}: ${issue.message}`);
  problems.push(...crossChecks(env));
  const settings = parsed.data as Settings | undefined;
  if (settings && settings.OPS_PORT !== 0 && settings.OPS_PORT === settings.PORT) {
    problems.push(
      'OPS_PORT: must differ from PORT (PORT serves Slack and /healthz; /metrics and /readyz have their own port)',
    );
  }
  if (!settings || problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return settings;
}

/** One workspace's Slack credentials (SLACK_BOT_TOKEN…); absent without them (the sandbox, or a distributed app). */
export function slackOf(s: Settings) {
  return s.SLACK_SIGNING_SECRET && s.SLACK_BOT_TOKEN
    ? {
        signingSecret: s.SLACK_SIGNING_SECRET,
        botToken: s.SLACK_BOT_TOKEN,
        ...(s.SLACK_APP_TOKEN ? { appToken: s.SLACK_APP_TOKEN } : {}),
        ...(s.SLACK_API_URL ? { apiUrl: s.SLACK_API_URL } : {}),
      }
    : undefined;
}

/** A distributed app's credentials (SLACK_CLIENT_ID…): installed in any workspace through Bolt's OAuth flow; absent otherwise. */
export function distributedOf(s: Settings) {
  return s.SLACK_CLIENT_ID && s.SLACK_CLIENT_SECRET && s.SLACK_STATE_SECRET && s.SLACK_SIGNING_SECRET
    ? {
        signingSecret: s.SLACK_SIGNING_SECRET,
        ...(s.SLACK_API_URL ? { apiUrl: s.SLACK_API_URL } : {}),
        oauth: { clientId: s.SLACK_CLIENT_ID, clientSecret: s.SLACK_CLIENT_SECRET, stateSecret: s.SLACK_STATE_SECRET },
      }
    : undefined;
}

/** The keys that seal secrets at rest (LOOKOUT_ENCRYPTION_KEY) and still open old ones; absent when unset. */
export function keyringOf(s: Settings): Keyring | undefined {
  return s.LOOKOUT_ENCRYPTION_KEY ? keyring(s.LOOKOUT_ENCRYPTION_KEY, s.LOOKOUT_ENCRYPTION_KEY_PREVIOUS) : undefined;
}
