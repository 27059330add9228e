import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { startDemoApi, type DemoApi } from './demo-api/server.js';
import type { Faults } from './demo-api/faults.js';
import type { LiveOptions } from './demo-api/live.js';
import { startOfflineSlack, type OfflineSlack, type OfflineSlackOptions } from './slack/index.js';

/** Where the app finds the sandbox: the API to ask and the Slack to talk to, with the secrets made up for this run. */
export interface SandboxWiring {
  api: { baseUrl: string; apiKey: string };
  slack: { signingSecret: string; botToken: string; apiUrl: string; appToken?: string };
  /** The demo API is behind the answers. */
  demo: boolean;
  /** The address the app listens on: loopback, like everything else in the sandbox. */
  host: string;
}

/** The app the sandbox runs: anything that serves Slack's requests at `requestUrl`. */
export interface SandboxApp {
  requestUrl?: string;
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
    Pick<OfflineSlackOptions, 'rateLimit' | 'ackTimeoutMs' | 'extraRoutes' | 'eventRetryDelaysMs' | 'oauth' | 'now'>
  >;
  /** Starts the app against the sandbox (passed in: the sandbox knows only protocols). */
  startApp: (wiring: SandboxWiring) => Promise<A>;
  /** The app connects over Socket Mode (an app-level token) instead of being sent requests at its URL. */
  socketMode?: boolean;
}

export interface Sandbox<A extends SandboxApp> {
  demo?: DemoApi;
  slack: OfflineSlack;
  lookout: A;
  /** The secrets the sandbox made up for this run (tests check they never leak). */
  secrets: { signingSecret: string; botToken: string; apiKey: string };
  stop(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';

/** Everything on loopback: the demo API, the offline Slack, and the app wired to both. */
export async function startSandbox<A extends SandboxApp>(options: SandboxOptions<A>): Promise<Sandbox<A>> {
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-sandbox-${randomBytes(12).toString('hex')}`;
  const demoKey = `demo-${randomBytes(8).toString('hex')}`;
  const appToken = options.socketMode ? `xapp-sandbox-${randomBytes(12).toString('hex')}` : undefined;

  const demo = options.api
    ? undefined
    : await startDemoApi({
        port: 0,
        host: LOOPBACK,
        apiKey: demoKey,
        faults: options.demoFaults,
        ...(options.live ? { live: options.live } : {}),
      });
  const api = options.api ?? { baseUrl: demo!.url, apiKey: demoKey };
  const slack = await startOfflineSlack({
    signingSecret,
    botToken,
    host: LOOPBACK,
    port: options.slackPort ?? 0,
    ...options.slack,
    ...(appToken ? { appToken } : {}),
  });
  let lookout: A;
  try {
    lookout = await options.startApp({
      api,
      slack: { signingSecret, botToken, apiUrl: slack.apiUrl, ...(appToken ? { appToken } : {}) },
      demo: demo !== undefined,
      host: LOOPBACK,
    });
  } catch (error) {
    await slack.close();
    await demo?.close();
    throw error;
  }
  if (lookout.requestUrl) slack.setAppUrl(lookout.requestUrl);
  return {
    demo,
    slack,
    lookout,
    secrets: { signingSecret, botToken, apiKey: api.apiKey },
    async stop() {
      await lookout.stop();
      await slack.close();
      await demo?.close();
    },
  };
}
