import { randomBytes } from 'node:crypto';
import { startLookout, type Lookout, type LookoutOptions } from '../compose.js';
import type { Logger } from '../platform/log.js';
import { startDemoApi, type DemoApi } from './demo-api/server.js';
import type { Faults } from './demo-api/faults.js';
import { startOfflineSlack, type OfflineSlack, type OfflineSlackOptions } from './slack/index.js';

export interface SandboxOptions {
  log: Logger;
  defaultTimezone?: string;
  /** A real analytics API instead of the demo one. */
  api?: { baseUrl: string; apiKey: string };
  /** Ports (0: any free one). */
  appPort?: number;
  slackPort?: number;
  apiTimeoutMs?: number;
  now?: () => Date;
  demoFaults?: Faults;
  security?: { channels: string[]; users: string[]; scrapingScoreThreshold: number };
  admins?: string[];
  alerts?: LookoutOptions['alerts'];
  /** Default: PGlite in memory (nothing kept). */
  store?: LookoutOptions['store'];
  /** Passed to the app (tests drive digest slots themselves with false). */
  scheduler?: boolean;
  replica?: string;
  slack?: Partial<Pick<OfflineSlackOptions, 'rateLimit' | 'ackTimeoutMs' | 'extraRoutes'>>;
}

export interface Sandbox {
  demo?: DemoApi;
  slack: OfflineSlack;
  lookout: Lookout;
  /** The secrets the sandbox made up for this run (tests check they never leak). */
  secrets: { signingSecret: string; botToken: string; apiKey: string };
  stop(): Promise<void>;
}

/** Everything on loopback: the demo API, the offline Slack, and the app wired to both. */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-sandbox-${randomBytes(12).toString('hex')}`;
  const demoKey = `demo-${randomBytes(8).toString('hex')}`;

  const demo = options.api ? undefined : await startDemoApi({ port: 0, apiKey: demoKey, faults: options.demoFaults });
  const api = options.api ?? { baseUrl: demo!.url, apiKey: demoKey };
  const slack = await startOfflineSlack({ signingSecret, botToken, port: options.slackPort ?? 0, ...options.slack });
  let lookout: Lookout;
  try {
    lookout = await startLookout({
      api: { ...api, timeoutMs: options.apiTimeoutMs },
      slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
      log: options.log,
      defaultTimezone: options.defaultTimezone ?? 'UTC',
      demo: demo !== undefined,
      now: options.now,
      port: options.appPort ?? 0,
      security: options.security,
      admins: options.admins,
      alerts: options.alerts,
      store: options.store ?? { memory: true },
      scheduler: options.scheduler,
      replica: options.replica,
    });
  } catch (error) {
    await slack.close();
    await demo?.close();
    throw error;
  }
  slack.setAppUrl(lookout.requestUrl!);
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
