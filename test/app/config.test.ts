import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('gives the sandbox defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.analytics).toEqual({ url: undefined, apiKey: undefined, timeoutMs: 10_000, maxConcurrency: 8 });
    expect(config.slack).toBeUndefined();
    expect(config.defaultTimezone).toBe('UTC');
    // The spec's dates are the API's and it does not say in which zone: UTC unless told, settled 10 minutes after.
    expect(config.apiDays).toEqual({ timeZone: 'UTC', settleMs: 600_000 });
    expect(config.port).toBe(3000);
    expect(config.store.dataDir).toBe('./data');
    // Defaults go through the same parsing as set values (lists are lists, durations milliseconds).
    expect(config.security).toEqual({ channels: [], users: [], scrapingScoreThreshold: 0.8 });
    expect(config.admins).toEqual([]);
    expect(config.alerts).toEqual({
      scanIntervalMs: 60_000,
      recheckMs: 6 * 3_600_000,
      burst: 5,
      deliveryDeadlineMs: 6 * 3_600_000,
    });
    expect(config.deliveries).toEqual({ slackTimeoutMs: 10_000, heartbeatMs: 10_000 });
    expect(config.ops).toEqual({ port: 3001, host: '127.0.0.1', token: undefined });
  });

  it('reads the ops listener: its port apart from PORT, an address to bind, a token of 16 characters or more', () => {
    expect(loadConfig({ OPS_PORT: '9464', OPS_HOST: '0.0.0.0', OPS_TOKEN: 'a'.repeat(32) }).ops).toEqual({
      port: 9464,
      host: '0.0.0.0',
      token: 'a'.repeat(32),
    });
    expect(loadConfig({ OPS_HOST: '::' }).ops.host).toBe('::');
    expect(loadConfig({ PORT: '0', OPS_PORT: '0' }).ops.port).toBe(0);
    expect(problemsOf({ PORT: '3001' })).toEqual([
      'OPS_PORT: must differ from PORT (PORT serves Slack and /healthz; /metrics and /readyz have their own port)',
    ]);
    expect(problemsOf({ OPS_PORT: '8080', PORT: '8080' })).toHaveLength(1);
    expect(problemsOf({ OPS_PORT: '70000' })).toEqual(['OPS_PORT: expected a whole number from 0 to 65535']);
    expect(problemsOf({ OPS_HOST: 'not a host' })).toEqual([
      'OPS_HOST: expected an address to listen on, like 127.0.0.1, 0.0.0.0 or ::',
    ]);
    const short = problemsOf({ OPS_TOKEN: 'short-secret' });
    expect(short).toEqual([expect.stringMatching(/^OPS_TOKEN: expected at least 16 printable characters/)]);
    expect(short.join()).not.toContain('short-secret');
    expect(problemsOf({ OPS_TOKEN: 'has a space in it, sixteen+' })).toHaveLength(1);
  });

  it('reads durations and id lists', () => {
    const config = loadConfig({
      ALERT_SCAN_INTERVAL: '2m',
      ALERT_RECHECK_AFTER: '90',
      ADMIN_USERS: 'U1,U2',
      SECURITY_CHANNELS: ' C1 , C2 ',
    });
    expect(config.alerts.scanIntervalMs).toBe(120_000);
    expect(config.alerts.recheckMs).toBe(90_000);
    expect(config.admins).toEqual(['U1', 'U2']);
    expect(config.security.channels).toEqual(['C1', 'C2']);
    expect(() => loadConfig({ ALERT_SCAN_INTERVAL: 'soon' })).toThrow(
      /ALERT_SCAN_INTERVAL: expected a duration like 60s/,
    );
  });

  it("reads the API's time zone and settling margin, and refuses a zone that is not one or a margin out of range, with the range", () => {
    expect(loadConfig({ ANALYTICS_API_TIMEZONE: 'America/New_York', ANALYTICS_SETTLE_MARGIN: '30m' }).apiDays).toEqual({
      timeZone: 'America/New_York',
      settleMs: 1_800_000,
    });
    const problems = problemsOf({ ANALYTICS_API_TIMEZONE: 'Mars/Olympus', ANALYTICS_SETTLE_MARGIN: '10s' });
    expect(problems).toEqual([
      'ANALYTICS_API_TIMEZONE: expected the IANA time zone the API counts its dates in, like UTC or America/New_York',
      'ANALYTICS_SETTLE_MARGIN: expected a duration like 10m, from 1m to 1d (s, m, h or d)',
    ]);
    expect(problemsOf({ ANALYTICS_SETTLE_MARGIN: '2d' })).toEqual([
      'ANALYTICS_SETTLE_MARGIN: expected a duration like 10m, from 1m to 1d (s, m, h or d)',
    ]);
  });

  it('reads a full production environment', () => {
    const config = loadConfig({
      ANALYTICS_API_URL: 'https://api.example.com/v1',
      ANALYTICS_API_KEY: 'k',
      ANALYTICS_TIMEOUT_MS: '2500',
      ANALYTICS_MAX_CONCURRENCY: '4',
      DEFAULT_TIMEZONE: 'Europe/Berlin',
      SLACK_SIGNING_SECRET: 'abcdef0123456789',
      SLACK_BOT_TOKEN: 'xoxb-1-2-3',
      SLACK_APP_TOKEN: 'xapp-1-2',
      PORT: '8080',
      DATABASE_URL: 'postgres://u@db:5432/lookout',
    });
    expect(config.analytics).toEqual({
      url: 'https://api.example.com/v1',
      apiKey: 'k',
      timeoutMs: 2500,
      maxConcurrency: 4,
    });
    expect(config.slack).toEqual({
      signingSecret: 'abcdef0123456789',
      botToken: 'xoxb-1-2-3',
      appToken: 'xapp-1-2',
      apiUrl: undefined,
    });
    expect(config.port).toBe(8080);
    expect(config.store.databaseUrl).toBe('postgres://u@db:5432/lookout');
  });

  it("reads the week's first day from LOCALE: Monday unless it says otherwise", () => {
    expect(loadConfig({}).weekStart).toBe(1);
    expect(loadConfig({ LOCALE: 'en-US' }).weekStart).toBe(7);
    expect(loadConfig({ LOCALE: 'de-DE' }).weekStart).toBe(1);
    expect(problemsOf({ LOCALE: 'not a locale!' })).toEqual([
      'LOCALE: expected a BCP 47 locale, like en-GB, de-DE or en-US',
    ]);
  });

  it('treats blank variables as unset', () => {
    expect(loadConfig({ ANALYTICS_API_URL: '  ', PORT: '' }).port).toBe(3000);
  });

  it('names every offending variable at once, with what it expects', () => {
    const problems = problemsOf({
      ANALYTICS_API_URL: 'ftp://example.com',
      ANALYTICS_TIMEOUT_MS: 'soon',
      ANALYTICS_MAX_CONCURRENCY: '0',
      DEFAULT_TIMEZONE: 'Mars/Olympus',
      LOG_LEVEL: 'loud',
      SLACK_BOT_TOKEN: 'xoxb-only',
    });
    const names = problems.map((p) => p.split(':')[0]);
    expect(names).toEqual(
      expect.arrayContaining([
        'ANALYTICS_API_URL',
        'ANALYTICS_TIMEOUT_MS',
        'ANALYTICS_MAX_CONCURRENCY',
        'DEFAULT_TIMEZONE',
        'LOG_LEVEL',
        'ANALYTICS_API_KEY',
        'SLACK_SIGNING_SECRET',
      ]),
    );
    expect(problems.find((p) => p.startsWith('DEFAULT_TIMEZONE'))).toMatch(/IANA time zone/);
  });

  it('wants ANALYTICS_API_URL with Slack credentials, as the start does: the demo API is for the sandbox only', () => {
    const slack = { SLACK_BOT_TOKEN: 'xoxb-1-2-3', SLACK_SIGNING_SECRET: 'signing-secret-0123' };
    expect(problemsOf(slack)).toEqual([
      'ANALYTICS_API_URL: required with Slack credentials (the demo API is for the sandbox only)',
    ]);
    expect(problemsOf({ ...slack, SLACK_APP_TOKEN: 'xapp-1' })).toEqual([
      'ANALYTICS_API_URL: required with Slack credentials (the demo API is for the sandbox only)',
    ]);
    expect(problemsOf({ ...slack, ANALYTICS_API_URL: 'https://api.example.com', ANALYTICS_API_KEY: 'k' })).toEqual([]);
    expect(loadConfig({}).analytics.url).toBeUndefined();
  });

  it('never echoes a value, secret or not', () => {
    const secret = 'xoxp-very-secret-value';
    const error = (() => {
      try {
        loadConfig({
          SLACK_BOT_TOKEN: secret,
          SLACK_SIGNING_SECRET: 's3cr3t-signing',
          DATABASE_URL: 'mysql://u:pw-secret@h/db',
        });
      } catch (e) {
        return e as Error;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error.message).toMatch(/SLACK_BOT_TOKEN: expected a bot token/);
    expect(error.message).toMatch(/DATABASE_URL/);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('pw-secret');
    expect(error.message).not.toContain('s3cr3t-signing');
  });
});

describe('a distributed app (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET)', () => {
  const KEY = 'q'.repeat(43) + '=';
  const OAUTH = {
    SLACK_CLIENT_ID: '1234567890.0987654321',
    SLACK_CLIENT_SECRET: 'client-secret-0123456789abcdef',
    SLACK_STATE_SECRET: 'state-secret-0123456789abcdef',
    SLACK_SIGNING_SECRET: 'signing-secret-0123',
    LOOKOUT_ENCRYPTION_KEY: KEY,
    ANALYTICS_API_URL: 'https://api.example.com',
  };

  it('is read with no bot token, alongside no single-workspace Slack', () => {
    const config = loadConfig(OAUTH);
    expect(config.slack).toBeUndefined();
    expect(config.distributed).toEqual({
      clientId: '1234567890.0987654321',
      clientSecret: 'client-secret-0123456789abcdef',
      stateSecret: 'state-secret-0123456789abcdef',
      signingSecret: 'signing-secret-0123',
      apiUrl: undefined,
    });
    expect(config.encryption).toBeDefined();
    expect(loadConfig({}).distributed).toBeUndefined();
  });

  it('wants all three, the signing secret and an encryption key, and no bot token or app token', () => {
    expect(problemsOf({ SLACK_CLIENT_ID: OAUTH.SLACK_CLIENT_ID })).toEqual([
      'SLACK_CLIENT_SECRET: required with the other OAuth settings (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET) for a distributed app',
      'SLACK_STATE_SECRET: required with the other OAuth settings (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET) for a distributed app',
      'SLACK_SIGNING_SECRET: required for a distributed app too',
      "LOOKOUT_ENCRYPTION_KEY: required for a distributed app (it seals each workspace's tokens), expected 32 random bytes in base64 or hex (make one with: openssl rand -base64 32)",
      'ANALYTICS_API_URL: required for a distributed app (the analytics API its workspaces connect to)',
    ]);
    expect(problemsOf({ ...OAUTH, SLACK_BOT_TOKEN: 'xoxb-1-2-3', SLACK_APP_TOKEN: 'xapp-1' })).toEqual([
      'SLACK_BOT_TOKEN: set it for one workspace, or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET for a distributed app, not both',
      'SLACK_APP_TOKEN: a distributed app takes HTTP requests (Socket Mode is for one workspace)',
    ]);
  });

  it('checks each value’s shape without echoing it', () => {
    const bad = { SLACK_CLIENT_ID: 'client-id-secret', SLACK_CLIENT_SECRET: 'short', SLACK_STATE_SECRET: 'tiny state' };
    const problems = problemsOf({ ...OAUTH, ...bad });
    expect(problems).toEqual([
      "SLACK_CLIENT_ID: expected the app's client id, two numbers joined by a dot (Basic Information)",
      "SLACK_CLIENT_SECRET: expected the app's client secret (Basic Information)",
      'SLACK_STATE_SECRET: expected at least 16 printable characters without spaces (e.g. the output of openssl rand -hex 32)',
    ]);
    for (const value of [...Object.values(bad), KEY]) expect(problems.join('\n')).not.toContain(value);
  });
});
