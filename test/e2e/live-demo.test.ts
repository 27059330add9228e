import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookout, type Lookout } from '../../src/compose.js';
import { generateDataset } from '../../src/sandbox/demo-api/dataset.js';
import { LiveTraffic } from '../../src/sandbox/demo-api/live.js';
import { startDemoApi, type DemoApi } from '../../src/sandbox/demo-api/server.js';
import { startOfflineSlack, type OfflineSlack } from '../../src/sandbox/slack/index.js';
import { captureLogs } from '../support/log-capture.js';
import { headerOf, tableOf, textsOf } from '../support/sandbox.js';

const MINUTE = 60_000;
const START = new Date('2026-11-23T10:00:30Z');

describe('LiveTraffic: new demo visits in real time', () => {
  const small = () => generateDataset({ seed: 7, now: START, visitors: 50, visits: 300, days: 3 });

  it('the same clock gives the same visits, however often it is advanced', () => {
    const a = small();
    const b = small();
    const byMinute = new LiveTraffic(a, START);
    const once = new LiveTraffic(b, START);
    const added = [];
    for (let t = 1; t <= 20; t++) added.push(...byMinute.advance(new Date(START.getTime() + t * MINUTE)));
    const all = once.advance(new Date(START.getTime() + 20 * MINUTE));
    const shape = (v: { date: string; visitor_id: string; url: string }) => `${v.date} ${v.visitor_id} ${v.url}`;
    expect(added.map(shape)).toEqual(all.map(shape));
    expect(all.length).toBeGreaterThanOrEqual(20 * 2);
    expect(all.length).toBeLessThanOrEqual(20 * 9 + 10);
    expect(byMinute.advance(new Date(START.getTime() + 20 * MINUTE))).toEqual([]);
  });

  it('a flagged visitor arrives every minute, attacker, scraper and VPN abuser in turn, each new and worth an alert', () => {
    const data = small();
    const added = new LiveTraffic(data, START).advance(new Date(START.getTime() + 10 * MINUTE));
    const flagged = [...new Set(added.map((v) => v.visitor_id).filter((id) => id.startsWith('v_live_')))];
    expect(flagged).toHaveLength(10);
    const kinds = flagged.map((id) => data.securityOf(id)!).map((p) => (p.is_attacker === 'True' ? 'attacker' : p.visitor_type === 'SCRAPER' ? 'scraper' : p.vpn === 'True' ? 'vpn' : 'clean'));
    expect(new Set(kinds)).toEqual(new Set(['attacker', 'scraper', 'vpn']));
    for (const id of flagged) expect(data.securityOf(id)!.is_attacker === 'True' || data.securityOf(id)!.is_abuser === 'True').toBe(true);
    for (const v of added) expect(Date.parse(v.date)).toBeGreaterThan(START.getTime());
  });
});

describe('the living sandbox', () => {
  let clock = START.getTime();
  const now = () => new Date(clock);
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
  let demo: DemoApi;
  let slack: OfflineSlack;
  let app: Lookout;

  beforeAll(async () => {
    demo = await startDemoApi({ apiKey: 'k', now, live: { everyMs: 3_600_000 } });
    slack = await startOfflineSlack({ signingSecret, botToken });
    app = await startLookout({
      api: { baseUrl: demo.url, apiKey: 'k' },
      slack: { signingSecret, botToken, apiUrl: slack.apiUrl },
      store: { memory: true },
      log: captureLogs('warn').logger,
      defaultTimezone: 'UTC',
      demo: true,
      now,
      port: 0,
      scheduler: false,
    });
    slack.setAppUrl(app.requestUrl!);
  });
  afterAll(async () => {
    await app?.stop();
    await slack?.close();
    await demo?.close();
  });

  const answer = async (channel: string, text: string) => {
    const before = slack.messages(channel, { user: 'U_ALICE' }).length;
    await slack.slash(channel, 'U_ALICE', text);
    return slack.waitFor(() => slack.messages(channel, { user: 'U_ALICE' }).slice(before).find((m) => m.user !== 'U_ALICE'));
  };

  it('`/traffic alerts on` shows a real alert a minute later, and `today` grows', async () => {
    const visitsToday = async () => Number(tableOf(await answer('C_MARKETING', 'countries today top 100')).slice(1).reduce((n, row) => n + Number(row[1]!.replace(/,/g, '')), 0));
    const before = await visitsToday();
    await answer('C_SECURITY', 'alerts on min low');
    clock += MINUTE;
    const added = demo.advanceLive();
    expect(added.length).toBeGreaterThan(0);
    expect(await visitsToday()).toBe(before + added.length);

    const scan = await app.watcher.scan();
    await app.deliveries.drained();
    expect(scan).toMatchObject({ status: 'scanned', alerts: 1 });
    const alert = await slack.waitFor(() => slack.messages('C_SECURITY').find((m) => /visitor v_live_/.test(headerOf(m) ?? '')));
    expect(headerOf(alert)).toMatch(/^(Threat|Suspicious)/);
    expect(textsOf(alert).join(' ')).toMatch(/flagged|VPN|scraping/);
  });
});
