import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookout, type Lookout } from '../../../src/compose.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type Message, type OfflineSlack } from '@lookout/sandbox/slack';
import { captureLogs } from '../../support/log-capture.js';
import { headerOf, mrkdwnText, watchIdOf } from '../../support/sandbox.js';
import { until } from '../../support/until.js';
import { z } from 'zod';
import { AgentRefusal, type AgentAnswer, type AgentCaller } from '../../../src/platform/feature.js';
import { ephemeralAnswer } from '../../support/answers.js';

/**
 * `why_moved` for the demo's spike (the setup of watches/explained-alert.slow.test.ts): the
 * same movers and verdict as the watch's alert, and for the hour named.
 *
 * "Is this spike real?" end to end: the demo produces a human spike from a new source and a
 * scraper wave on one page, each in an hour after its data ends (so the hour holds only what
 * is produced), the threat scan judges the hour's visitors, the watch evaluates, and its alert
 * is explained in place. The figures are checked against the demo API's own counts.
 */
const HOUR = 3_600_000;
const API_DAYS = { timeZone: 'UTC', settleMs: 60_000 };
const signingSecret = randomBytes(16).toString('hex');
const botToken = `xoxb-${randomBytes(8).toString('hex')}`;

let clock = Date.now();
const now = () => new Date(clock);
let nextHour = Math.ceil(Date.now() / HOUR) * HOUR + HOUR;
const hour = (): Date => {
  const h = new Date(nextHour);
  nextHour += 2 * HOUR;
  return h;
};

let demo: DemoApi;
let slack: OfflineSlack;
let app: Lookout;

beforeAll(async () => {
  demo = await startDemoApi({ apiKey: 'k', now });
  slack = await startOfflineSlack({ signingSecret, botToken, rateLimit: { burst: 50, perSecond: 20 } });
  app = await startLookout({
    api: { baseUrl: demo.url, apiKey: 'k' },
    slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
    store: { memory: true },
    log: captureLogs('warn').logger,
    demo: true,
    now,
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
  slack.setAppUrl(app.requestUrl!);
  clock = nextHour - 60_000;
  await command('C_SECURITY', 'alerts on min medium', 'U_CAROL');
  await app.store.scanState.saveProgress((await app.features.threats.scan.stateKeys())[0]!, {
    watermark: now(),
    seenIds: [],
    counts: {},
    at: now(),
  });
});
afterAll(async () => {
  await app?.stop();
  await slack?.close();
  await demo?.close();
});

const command = (channel: string, text: string, user = 'U_ALICE') => ephemeralAnswer(slack, channel, user, text);

/** The threat scan judges the hour, then the clock moves past it and the watches evaluate. */
async function evaluate(h: Date): Promise<void> {
  clock = h.getTime() + HOUR - 1_000;
  await app.features.threats.scan.scan();
  clock = h.getTime() + HOUR + 60_000;
  await app.features.watches.evaluator.tick();
  clock = h.getTime() + HOUR + 3 * 60_000;
  await app.features.watches.evaluator.tick();
}

/** The watch's alert in `channel`, once its explanation is in it. */
function explained(channel: string, id: number): Promise<Message> {
  return until(
    () =>
      slack
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

const caller = (user: string): AgentCaller => ({
  team: 'T_LOOKOUT',
  user,
  via: 'token',
  tenant: () => app.tenants.of('T_LOOKOUT'),
  log: captureLogs('warn').logger,
});

async function whyMoved(args: Record<string, unknown>, user = 'U_ALICE'): Promise<AgentAnswer> {
  const tool = app.commands.tools.find((t) => t.name === 'why_moved')!;
  const answer = await tool.run(z.object(tool.input).parse(args), caller(user));
  z.object(tool.output).strict().parse(answer.structured);
  return answer;
}

type Structured = {
  verdict: string;
  movers: { label: string; change: number; isNew: boolean }[];
  period: { label: string };
};

describe('why_moved explains the demo’s spike as the watch’s alert does', () => {
  it('a watch’s latest alert: the same movers and verdict; the hour named: the new source and the verdict', async () => {
    slack.workspace.setMember('C_MARKETING', 'U_BOB', false);
    const h = hour();
    clock = h.getTime() - HOUR;
    const id = watchIdOf(await command('C_MARKETING', 'watch visits spike every hour'));
    const spike = demo.spike({ kind: 'human', hour: h, visits: 150 });
    await evaluate(h);
    const alert = await explained('C_MARKETING', id);
    const said = mrkdwnText(alert);

    const answer = await whyMoved({ watch: id });
    const s = answer.structured as Structured;
    const watch = (await app.features.watches.service.find('T_LOOKOUT', id))!;
    expect(s.verdict).toBe(watch.explanation!.verdict);
    expect(said).toContain(`Who moved it:* ${s.verdict}`);
    expect(s.movers.find((m) => m.label === spike.source.name)).toMatchObject({ change: 150, isNew: true });
    for (const m of s.movers) expect(said).toContain(m.label);
    expect(answer.text).toContain(`${spike.source.name} +150 (new`);
    expect(mrkdwnText({ blocks: answer.blocks! })).toContain(`${spike.source.name} +150 (new`);

    const named = await whyMoved({ date: h.toISOString().slice(0, 10), hour: h.getUTCHours(), report: 'sources' });
    const n = named.structured as Structured;
    expect(n.period.label).toMatch(/\(UTC\)$/);
    expect(n.movers[0]).toMatchObject({ label: spike.source.name, change: 150, isNew: true });
    expect(n.verdict).toBe('mostly people');

    // Bob is not in #marketing: its watch is refused him.
    const refused = await whyMoved({ watch: id }, 'U_BOB').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AgentRefusal);
  }, 60_000);
});
