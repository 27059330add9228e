import type { Server } from 'node:http';
import { AnalyticsApi } from './api/analytics.js';
import { REPORTS } from './api/reports.js';
import type { Logger } from './log.js';
import { createSlackApp, type SlackApp } from './slack/app.js';
import type { SlackDeps } from './slack/deps.js';
import { MemoryQueryStash, QueryRefs } from './slack/query-refs.js';

export interface LookoutOptions {
  api: { baseUrl: string; apiKey: string; timeoutMs?: number; maxConcurrency?: number };
  slack: { signingSecret: string; botToken: string; appToken?: string; apiUrl?: string };
  log: Logger;
  defaultTimezone: string;
  /** The demo API is behind the answers (they say so). */
  demo: boolean;
  now?: () => Date;
  port: number;
  /** Who may see security details, and the scraping score that counts as a reason. */
  security?: { channels: string[]; users: string[]; scrapingScoreThreshold: number };
}

export interface Lookout {
  api: AnalyticsApi;
  slack: SlackApp;
  /** The HTTP server (absent in Socket Mode). */
  server?: Server;
  /** Where Slack sends requests, e.g. http://127.0.0.1:3000/slack/events (HTTP mode). */
  requestUrl?: string;
  stop(): Promise<void>;
}

/** The app itself: API client, Slack listeners, and the HTTP server Slack talks to. */
export async function startLookout(options: LookoutOptions): Promise<Lookout> {
  const api = new AnalyticsApi({ ...options.api, logger: options.log.child({ component: 'api' }) });
  const deps: SlackDeps = {
    api,
    catalog: REPORTS,
    refs: new QueryRefs(new MemoryQueryStash(), REPORTS),
    log: options.log,
    now: options.now ?? (() => new Date()),
    timeZoneFor: async () => options.defaultTimezone,
    demo: options.demo,
    security: { channels: options.security?.channels ?? [], users: options.security?.users ?? [] },
    verdict: { scrapingScoreThreshold: options.security?.scrapingScoreThreshold ?? 0.8 },
  };
  const slack = await createSlackApp(deps, {
    ...options.slack,
    slackApiUrl: options.slack.apiUrl,
    ready: async () => {
      try {
        await api.report('countries', { startDate: '1970-01-01', endDate: '1970-01-01', limit: 1 });
        return { ok: true, checks: { api: 'ok' } };
      } catch (error) {
        return { ok: false, checks: { api: error instanceof Error ? error.message : String(error) } };
      }
    },
  });
  const server = await slack.start(options.port);
  const address = server?.address();
  const requestUrl = address && typeof address === 'object' ? `http://127.0.0.1:${address.port}/slack/events` : undefined;
  return {
    api,
    slack,
    server,
    requestUrl,
    async stop() {
      await slack.stop();
      await api.close();
    },
  };
}
