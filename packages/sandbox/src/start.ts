import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { startDemoApi, type DemoApi } from './demo-api/server.js';
import { mountDemoControls } from './demo-controls.js';
import type { Faults } from './demo-api/faults.js';
import type { LiveOptions } from './demo-api/live.js';
import { SOFTWARE_SITE } from './demo-api/site.js';
import type { OAuthApp } from './slack/oauth.js';
import { startOfflineSlack, type OfflineSlack, type OfflineSlackOptions, type Suggestions } from './slack/index.js';

export type { Suggestions, SuggestedCommand, SuggestedWord } from './slack/index.js';

/** An analytics account the sandbox made for a workspace of the offline Slack. */
export interface SandboxAccount {
  /** The workspace it belongs to: T_LOOKOUT (workspace one) or T_OTHER. */
  teamId: string;
  /** The account's name in the demo API's request record (`demo.requests[i].account`). */
  name: string;
  baseUrl: string;
  apiKey: string;
}

/** What a distributed app needs of the offline Slack's OAuth v2. */
export interface SandboxOAuth {
  clientId: string;
  clientSecret: string;
  /** For the app's own `state` parameter (Bolt's `stateSecret`); the offline Slack never sees it. */
  stateSecret: string;
  /** The offline Slack's authorise page (Bolt: `installerOptions.authorizationUrl`). */
  authorizationUrl: string;
  /** Token rotation is on: access tokens expire after 12 hours and come with a refresh token. */
  tokenRotation: boolean;
}

/** Where the app finds the sandbox: the API to ask and the Slack to talk to, with the secrets made up for this run. */
export interface SandboxWiring {
  /** Workspace one's analytics account. */
  api: { baseUrl: string; apiKey: string };
  /** Each workspace's own account, T_LOOKOUT's (the same as `api`) first; only T_LOOKOUT's with a real API. */
  accounts: SandboxAccount[];
  slack: { signingSecret: string; botToken: string; apiUrl: string; appToken?: string };
  /** The app as registered for distribution with the offline Slack (`oauth.v2.access` is at `slack.apiUrl`). */
  oauth: SandboxOAuth;
  /** The demo API is behind the answers. */
  demo: boolean;
  /** The address the app listens on: loopback, like everything else in the sandbox. */
  host: string;
}

/** The app the sandbox runs: anything that serves Slack's requests at `requestUrl`. */
export interface SandboxApp {
  requestUrl?: string;
  /** The app's OAuth redirect URL (its `/slack/oauth_redirect`): the sandbox registers it with the offline Slack. */
  oauthRedirectUrl?: string;
  /** The app's install page (its `/slack/install`): the page's Add to Slack link, where the app is not installed, leads there. */
  installUrl?: string;
  /** What the page's composer suggests: the app's slash commands, their words and examples. */
  suggestions?: Suggestions;
  stop(): Promise<void>;
}

export interface SandboxOptions<A extends SandboxApp> {
  log: Logger;
  /** A real analytics API instead of the demo one. */
  api?: { baseUrl: string; apiKey: string };
  slackPort?: number;
  demoFaults?: Faults;
  /** New demo visits keep arriving, at the rhythm of the data set's history (see demo-api/live.ts). Default off: tests want still data. */
  live?: LiveOptions;
  slack?: Partial<
    Pick<
      OfflineSlackOptions,
      | 'rateLimit'
      | 'ackTimeoutMs'
      | 'extraRoutes'
      | 'eventRetryDelaysMs'
      | 'oauth'
      | 'now'
      | 'installed'
      | 'workspaces'
      | 'suggestions'
    >
  >;
  /** Starts the app against the sandbox (passed in: the sandbox knows only protocols). */
  startApp: (wiring: SandboxWiring) => Promise<A>;
  /** The app connects over Socket Mode (an app-level token) instead of being sent requests at its URL. */
  socketMode?: boolean;
  /** The clock the page's demo controls make spikes by (default the real one): a test's, where the app runs on one. */
  now?: () => Date;
  /**
   * The page first (`npm start`): `pageServed` is called once the offline Slack serves its page,
   * before the app starts, and the demo account's data set is made at its first request. The
   * page's own requests wait until the app has started and `ready` (installing it) is done.
   */
  early?: {
    pageServed(slack: OfflineSlack): void;
    ready(sandbox: Sandbox<A>): Promise<void>;
  };
}

export interface Sandbox<A extends SandboxApp> {
  demo?: DemoApi;
  slack: OfflineSlack;
  lookout: A;
  /** The secrets the sandbox made up for this run (tests check they never leak). */
  secrets: {
    signingSecret: string;
    botToken: string;
    /** Workspace one's API key. */
    apiKey: string;
    /** Every account's API key, workspace one's first. */
    apiKeys: string[];
    clientSecret: string;
    stateSecret: string;
  };
  stop(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';
const ONE = 'T_LOOKOUT';
const OTHER = 'T_OTHER';

/** Everything on loopback: the demo API, the offline Slack, and the app wired to both. */
export async function startSandbox<A extends SandboxApp>(options: SandboxOptions<A>): Promise<Sandbox<A>> {
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-sandbox-${randomBytes(12).toString('hex')}`;
  const demoKey = `demo-${randomBytes(8).toString('hex')}`;
  const otherKey = `demo-${randomBytes(8).toString('hex')}`;
  const stateSecret = randomBytes(16).toString('hex');
  const oauthApp: OAuthApp = options.slack?.oauth ?? {
    clientId: `${randomBytes(6).readUIntBE(0, 6)}.${randomBytes(6).readUIntBE(0, 6)}`,
    clientSecret: randomBytes(16).toString('hex'),
    name: 'Lookout',
    redirectUris: [],
  };
  const appToken = options.socketMode ? `xapp-sandbox-${randomBytes(12).toString('hex')}` : undefined;

  const demo = options.api
    ? undefined
    : await startDemoApi({
        port: 0,
        host: LOOPBACK,
        apiKey: demoKey,
        name: 'one',
        accounts: [{ name: 'two', apiKey: otherKey, site: SOFTWARE_SITE }],
        faults: options.demoFaults,
        ...(options.live ? { live: options.live } : {}),
        ...(options.early ? { lazy: true } : {}),
      });
  const api = options.api ?? { baseUrl: demo!.url, apiKey: demoKey };
  const accounts: SandboxAccount[] = [{ teamId: ONE, name: demo ? 'one' : 'api', ...api }];
  if (demo) accounts.push({ teamId: OTHER, name: 'two', baseUrl: demo.url, apiKey: otherKey });
  const slack = await startOfflineSlack({
    signingSecret,
    botToken,
    host: LOOPBACK,
    port: options.slackPort ?? 0,
    ...options.slack,
    oauth: oauthApp,
    ...(appToken ? { appToken } : {}),
  });
  // Demo keys only: a real API's key (options.api) is never shown.
  if (demo) for (const a of accounts) slack.setDemoAccount(a.teamId, { baseUrl: a.baseUrl, apiKey: a.apiKey });
  mountDemoControls(slack, demo, (team) => accounts.find((a) => a.teamId === team)?.name, options.now);
  const started = slack.page.hold();
  options.early?.pageServed(slack);
  let lookout: A;
  try {
    lookout = await options.startApp({
      api,
      accounts: accounts.map((a) => ({ ...a })),
      slack: { signingSecret, botToken, apiUrl: slack.apiUrl, ...(appToken ? { appToken } : {}) },
      oauth: {
        clientId: oauthApp.clientId,
        clientSecret: oauthApp.clientSecret,
        stateSecret,
        authorizationUrl: `${slack.url}/oauth/v2/authorize`,
        tokenRotation: oauthApp.tokenRotation ?? false,
      },
      demo: demo !== undefined,
      host: LOOPBACK,
    });
  } catch (error) {
    started(error as Error);
    await slack.page.held(); // the page's held requests are answered with why, before the page closes
    await slack.close();
    await demo?.close();
    throw error;
  }
  if (lookout.requestUrl) slack.setAppUrl(lookout.requestUrl);
  if (lookout.oauthRedirectUrl) slack.setRedirectUris([lookout.oauthRedirectUrl]);
  if (lookout.installUrl) slack.setInstallUrl(lookout.installUrl);
  if (lookout.suggestions) slack.setSuggestions(lookout.suggestions);
  const sandbox: Sandbox<A> = {
    demo,
    slack,
    lookout,
    secrets: {
      signingSecret,
      botToken,
      apiKey: api.apiKey,
      apiKeys: accounts.map((a) => a.apiKey),
      clientSecret: oauthApp.clientSecret,
      stateSecret,
    },
    async stop() {
      await lookout.stop();
      await slack.close();
      await demo?.close();
    },
  };
  try {
    await options.early?.ready(sandbox);
  } catch (error) {
    started(error as Error);
    await slack.page.held();
    await sandbox.stop();
    throw error;
  }
  started();
  return sandbox;
}
