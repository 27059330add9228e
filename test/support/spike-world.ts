/**
 * The world of "Is this spike real?" in one process: the demo API and the offline Slack on a
 * test clock, and Lookout with threat alerts on in #security, the scan's watermark at the
 * start, and watches evaluated at once. Each spike goes in an hour after the demo's data ends
 * (`hour()`), so the hour holds only what is produced. Used by the watch alert's slow test and
 * by `why_moved`'s, which ask the same questions of the same spike.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { startLookout, type Lookout } from '../../src/compose.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type Message, type OfflineSlack } from '@lookout/sandbox/slack';
import { ephemeralAnswer } from './answers.js';
import { captureLogs } from './log-capture.js';
import { headerOf, mrkdwnText } from './sandbox.js';
import { until } from './until.js';

export const HOUR = 3_600_000;
export const API_DAYS = { timeZone: 'UTC', settleMs: 60_000 };

export class SpikeWorld {
  /** The test clock (ms): the demo, the app and the watches read it. */
  clock = Date.now();
  readonly now = () => new Date(this.clock);
  private nextHour = Math.ceil(Date.now() / HOUR) * HOUR + HOUR;
  demo!: DemoApi;
  slack!: OfflineSlack;
  app!: Lookout;

  /** When the next spike's hour starts (ms). */
  nextHourStart(): number {
    return this.nextHour;
  }

  /** The next hour of its own (two apart, so one spike's hour is not another's baseline). */
  hour(): Date {
    const h = new Date(this.nextHour);
    this.nextHour += 2 * HOUR;
    return h;
  }

  command(channel: string, text: string, user = 'U_ALICE') {
    return ephemeralAnswer(this.slack, channel, user, text);
  }

  /** The threat scan judges the hour, then the clock moves past it and the watches evaluate. */
  async evaluate(h: Date): Promise<void> {
    this.clock = h.getTime() + HOUR - 1_000;
    await this.app.features.threats.scan.scan();
    this.clock = h.getTime() + HOUR + 60_000;
    await this.app.features.watches.evaluator.tick();
    this.clock = h.getTime() + HOUR + 3 * 60_000;
    await this.app.features.watches.evaluator.tick();
  }

  /** The watch's alert in `channel`, once its explanation is in it. */
  explained(channel: string, id: number): Promise<Message> {
    return until(
      () =>
        this.slack
          .messages(channel)
          .find(
            (m) =>
              /^Watch: /.test(headerOf(m) ?? '') &&
              mrkdwnText(m).includes(`watch #${id}`) &&
              mrkdwnText(m).includes('What moved'),
          ),
      `watch #${id}'s alert, explained`,
    );
  }
}

/** A spike world started before the file's tests and stopped after them. */
export function spikeWorld(): SpikeWorld {
  const w = new SpikeWorld();
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
  beforeAll(async () => {
    w.demo = await startDemoApi({ apiKey: 'k', now: w.now });
    w.slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: { burst: 50, perSecond: 20 } });
    w.app = await startLookout({
      api: { baseUrl: w.demo.url, apiKey: 'k' },
      slack: { signingSecret, botToken, apiUrl: w.slack.apiUrl },
      store: { memory: true },
      log: captureLogs('warn').logger,
      demo: true,
      now: w.now,
      port: 0,
      scheduler: false,
      settings: {
        ANALYTICS_TIMEOUT_MS: 5_000,
        ALERT_RECHECK_AFTER: 6 * HOUR,
        ALERT_BURST: 50,
        SLACK_TIMEOUT: 5_000,
        DELIVERY_PACE: 50,
        ADMIN_USERS: ['U_CAROL'],
        // Bob may not see security details: the flagged visitors are refused him.
        SECURITY_USERS: ['U_ALICE', 'U_CAROL'],
        WATCH_SPREAD_HOURLY: 0,
        WATCH_SPREAD_DAILY: 0,
        WATCH_CLAIM_STALE: 1_000,
        ANALYTICS_API_TIMEZONE: API_DAYS.timeZone,
        ANALYTICS_SETTLE_MARGIN: API_DAYS.settleMs,
        USER_RATE_LIMIT: 100_000,
      },
    });
    w.slack.setAppUrl(w.app.requestUrl!);
    w.clock = w.nextHourStart() - 60_000;
    await w.command('C_SECURITY', 'alerts on min medium', 'U_CAROL');
    await w.app.store.scanState.saveProgress((await w.app.features.threats.scan.stateKeys())[0]!, {
      watermark: w.now(),
      seenIds: [],
      counts: {},
      at: w.now(),
    });
  });
  afterAll(async () => {
    await w.app?.stop();
    await w.slack?.close();
    await w.demo?.close();
  });
  return w;
}
