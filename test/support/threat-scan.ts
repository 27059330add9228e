/**
 * The world of the threat-alert tests: a demo API and an offline Slack on a controlled clock
 * (the app and the demo's new visits both read it), and the app's options against them.
 */
import { randomBytes } from 'node:crypto';
import type { LookoutOptions } from '../../src/compose.js';
import { DEMO_VISITORS, startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { captureLogs } from './log-capture.js';

export interface ThreatWorld {
  demo: DemoApi;
  slack: OfflineSlack;
  botToken: string;
  /** An app on `store`, named `replica`, scanning every minute (scans are called by the tests). */
  options(store: LookoutOptions['store'], replica: string): LookoutOptions;
  close(): Promise<void>;
}

export async function startThreatWorld(now: () => Date): Promise<ThreatWorld> {
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
  const demo = await startDemoApi({ apiKey: 'k', now });
  // Slack's per-channel posting limit, loosened so a group of 21 posts takes seconds, not 20 (429 handling is tested on its own).
  const slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: { burst: 30, perSecond: 10 } });
  return {
    demo,
    slack,
    botToken,
    options: (store, replica) => ({
      api: { baseUrl: demo.url, apiKey: 'k' },
      slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
      store,
      log: captureLogs('warn').logger,
      defaultTimezone: 'UTC',
      demo: true,
      now,
      port: 0,
      replica,
      scheduler: false,
      alerts: { scanIntervalMs: 60_000, recheckMs: 6 * 3_600_000, burst: 5 },
      // The offline Slack's limit is loosened above; the outbox's pace follows it.
      deliveries: { slackTimeoutMs: 5_000, heartbeatMs: 10_000, paceMs: 100 },
    }),
    close: async () => {
      await slack.close();
      await demo.close();
    },
  };
}

/** The demo's visitors flagged as attackers (high severity), other than its fixed ones. */
export function demoAttackers(demo: DemoApi): string[] {
  return demo.dataset.visitors
    .map((v) => v.id)
    .filter(
      (id) =>
        demo.dataset.securityOf(id)?.is_attacker === 'True' && !Object.values(DEMO_VISITORS).includes(id as never),
    );
}
