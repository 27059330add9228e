import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLookout, type Lookout } from '../../src/compose.js';
import { generateDataset, LiveTraffic, type Visit, startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { startOfflineSlack, type OfflineSlack } from '@lookout/sandbox/slack';
import { captureLogs } from '../support/log-capture.js';
import { headerOf, mrkdwnOf, tableOf, textsOf } from '../support/sandbox.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const START = new Date('2026-11-23T10:00:30Z');

describe('LiveTraffic: new demo visits in real time', () => {
  const small = () => generateDataset({ seed: 7, now: START, visitors: 50, visits: 300, days: 3 });

  it('the same clock gives the same visits, however often it is advanced', () => {
    const a = small();
    const b = small();
    const byMinute = new LiveTraffic(a, START);
    const once = new LiveTraffic(b, START);
    const added = [];
    for (let t = 1; t <= 6 * 60; t++) added.push(...byMinute.advance(new Date(START.getTime() + t * MINUTE)));
    const all = once.advance(new Date(START.getTime() + 6 * 60 * MINUTE));
    const shape = (v: { date: string; visitor_id: string; url: string }) => `${v.date} ${v.visitor_id} ${v.url}`;
    expect(added.map(shape)).toEqual(all.map(shape));
    expect(all.length).toBeGreaterThan(10);
    expect(byMinute.advance(new Date(START.getTime() + 6 * 60 * MINUTE))).toEqual([]);
  });

  it('a new flagged visitor arrives in each of the first five minutes, attacker, scraper and VPN abuser in turn, each worth an alert, never more than 80 s apart', () => {
    const data = small();
    const added = new LiveTraffic(data, START, { flaggedShare: 0, waveChance: 0 }).advance(
      new Date(START.getTime() + 30 * MINUTE),
    );
    const opening = added.filter((v) => v.visitor_id.startsWith('v_live_'));
    expect(opening).toHaveLength(5);
    const times = [START.getTime(), ...opening.map((v) => Date.parse(v.date))];
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(80_000);
    expect(times.at(-1)! - START.getTime()).toBeLessThan(5 * MINUTE);
    const kinds = opening
      .map((v) => data.securityOf(v.visitor_id)!)
      .map((p) =>
        p.is_attacker === 'True'
          ? 'attacker'
          : p.visitor_type === 'SCRAPER'
            ? 'scraper'
            : p.vpn === 'True'
              ? 'vpn'
              : 'clean',
      );
    expect(kinds).toEqual(['attacker', 'scraper', 'vpn', 'attacker', 'scraper']);
    for (const v of opening)
      expect(
        data.securityOf(v.visitor_id)!.is_attacker === 'True' || data.securityOf(v.visitor_id)!.is_abuser === 'True',
      ).toBe(true);
    for (const v of opening) expect(data.visitsOf(v.visitor_id)).toHaveLength(1);
    for (const v of added) expect(Date.parse(v.date)).toBeGreaterThan(START.getTime());
  });

  describe("a week of it, a minute at a time, against the data set's own history", () => {
    const data = generateDataset({ now: START });
    const today = Math.floor(START.getTime() / DAY) * DAY;
    /** The history's mean visits in each UTC weekday and hour, over its whole days: computed here, not by live.ts. */
    const curve = (() => {
      const sums = new Map<string, number>();
      const days = new Map<number, number>();
      for (let day = Math.floor(Date.parse(data.visits[0]!.date) / DAY) * DAY; day < today; day += DAY)
        days.set(new Date(day).getUTCDay(), (days.get(new Date(day).getUTCDay()) ?? 0) + 1);
      for (const v of data.visits) {
        const at = new Date(v.date);
        if (at.getTime() >= today) continue;
        const key = `${at.getUTCDay()} ${at.getUTCHours()}`;
        sums.set(key, (sums.get(key) ?? 0) + 1);
      }
      return (at: number) =>
        (sums.get(`${new Date(at).getUTCDay()} ${new Date(at).getUTCHours()}`) ?? 0) /
        days.get(new Date(at).getUTCDay())!;
    })();
    const history = data.visits.length;
    const live = new LiveTraffic(data, START);
    const added: Visit[] = [];
    for (let t = START.getTime(); t <= START.getTime() + 7 * DAY; t += MINUTE) added.push(...live.advance(new Date(t)));
    const hourOf = (v: Visit) => Math.floor(Date.parse(v.date) / HOUR) * HOUR;
    const hours = Array.from({ length: 7 * 24 }, (_, i) => Math.floor(START.getTime() / HOUR) * HOUR + i * HOUR);
    const waves = added.filter((v) => v.visitor_id.startsWith('v_live_wave_'));
    const opening = added.filter((v) => v.visitor_id.startsWith('v_live_open_'));
    const site = added.filter((v) => !waves.includes(v) && !opening.includes(v));

    it('each hour brings what the history has in that weekday and hour: within 25%, or a visit where it has fewer than 4', () => {
      expect(data.visits.length).toBe(history + added.length);
      const off = hours
        .map((h) => ({
          hour: new Date(h).toISOString(),
          seen: site.filter((v) => hourOf(v) === h).length,
          usual: curve(h),
        }))
        .filter(({ seen, usual }) => Math.abs(seen - usual) > Math.max(0.25 * usual, 1));
      expect(off).toEqual([]);
      const perDay = site.length / 7;
      expect(perDay).toBeGreaterThan(250);
      expect(perDay).toBeLessThan(450);
    });

    it('the day it starts on is no busier than the busiest of the four weeks before, nor quieter than the quietest', () => {
      const dayTotal = (day: number) =>
        data.visits.filter((v) => Date.parse(v.date) >= day && Date.parse(v.date) < day + DAY).length;
      const before = Array.from({ length: 28 }, (_, i) => dayTotal(today - (i + 1) * DAY));
      expect(dayTotal(today)).toBeLessThanOrEqual(Math.max(...before));
      expect(dayTotal(today)).toBeGreaterThanOrEqual(Math.min(...before));
    });

    it('flagged visitors come a few an hour in the busy hours, fewer at night, with now and then a wave of 3–5 within four minutes', () => {
      const flagged = site.filter((v) => v.visitor_id.startsWith('v_live_'));
      const perDay = flagged.length / 7;
      expect(perDay).toBeGreaterThan(10);
      expect(perDay).toBeLessThan(50);
      const afternoons = flagged.filter(
        (v) => new Date(v.date).getUTCHours() >= 12 && new Date(v.date).getUTCHours() < 18,
      ).length;
      const nights = flagged.filter((v) => new Date(v.date).getUTCHours() < 6).length;
      expect(afternoons).toBeGreaterThan(3 * nights);
      for (const v of [...flagged, ...waves])
        expect(
          data.securityOf(v.visitor_id)!.is_attacker === 'True' || data.securityOf(v.visitor_id)!.is_abuser === 'True',
        ).toBe(true);

      const byWave = new Map<string, Visit[]>();
      for (const v of waves)
        byWave.set(v.visitor_id.replace(/_\d+$/, ''), [...(byWave.get(v.visitor_id.replace(/_\d+$/, '')) ?? []), v]);
      expect(byWave.size).toBeGreaterThanOrEqual(7);
      expect(byWave.size).toBeLessThanOrEqual(40);
      for (const wave of byWave.values()) {
        expect(wave.length).toBeGreaterThanOrEqual(3);
        expect(wave.length).toBeLessThanOrEqual(5);
        const times = wave.map((v) => Date.parse(v.date));
        expect(Math.max(...times) - Math.min(...times)).toBeLessThanOrEqual(4 * MINUTE);
      }
      expect(opening).toHaveLength(5);
    });
  });
});

/**
 * The demo API with live traffic (advanced by hand), the offline Slack and the app, on a
 * clock the test moves (`world.clock`, ms); set up and torn down around the describe.
 */
function livingWorld() {
  const world = { clock: START.getTime() } as { clock: number; demo: DemoApi; slack: OfflineSlack; app: Lookout };
  const now = () => new Date(world.clock);
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-${randomBytes(8).toString('hex')}`;
  beforeAll(async () => {
    world.demo = await startDemoApi({ apiKey: 'k', now, live: { everyMs: 3_600_000 } });
    world.slack = await startOfflineSlack({ signingSecret, botToken });
    world.app = await startLookout({
      api: { baseUrl: world.demo.url, apiKey: 'k' },
      slack: { signingSecret, botToken, apiUrl: world.slack.apiUrl },
      store: { memory: true },
      log: captureLogs('warn').logger,
      demo: true,
      now,
      port: 0,
      scheduler: false,
      settings: { ANALYTICS_SETTLE_MARGIN: 60_000, WATCH_SPREAD_HOURLY: 0, WATCH_SPREAD_DAILY: 0 },
    });
    world.slack.setAppUrl(world.app.requestUrl!);
  });
  afterAll(async () => {
    await world.app?.stop();
    await world.slack?.close();
    await world.demo?.close();
  });
  /** The app's answer to a command typed by U_ALICE. */
  const answer = async (channel: string, text: string) => {
    const before = world.slack.messages(channel, { user: 'U_ALICE' }).length;
    await world.slack.slash(channel, 'U_ALICE', text);
    return world.slack.waitFor(() =>
      world.slack
        .messages(channel, { user: 'U_ALICE' })
        .slice(before)
        .find((m) => m.user !== 'U_ALICE'),
    );
  };
  return Object.assign(world, { answer });
}

describe('the living sandbox', () => {
  const world = livingWorld();
  const { answer } = world;

  it('`/traffic alerts on` shows a real alert a minute later, and `today` grows', async () => {
    const visitsToday = async () =>
      Number(
        tableOf(await answer('C_MARKETING', 'countries today top 100'))
          .slice(1)
          .reduce((n, row) => n + Number(row[1]!.replace(/,/g, '')), 0),
      );
    const before = await visitsToday();
    await answer('C_SECURITY', 'alerts on min low');
    world.clock += MINUTE;
    const added = world.demo.advanceLive();
    expect(added.length).toBeGreaterThan(0);
    expect(await visitsToday()).toBe(before + added.length);

    const scan = await world.app.features.threats.scan.scan();
    await world.app.deliveries.drained();
    expect(scan).toMatchObject({ status: 'scanned', alerts: 1 });
    const alert = await world.slack.waitFor(() =>
      world.slack.messages('C_SECURITY').find((m) => /visitor v_live_/.test(headerOf(m) ?? '')),
    );
    expect(headerOf(alert)).toMatch(/^(Threat|Suspicious)/);
    expect(textsOf(alert).join(' ')).toMatch(/flagged|VPN|scraping/);
  });
});

describe('spike watches on the living demo', () => {
  const world = livingWorld();

  const watch = async (rule: string) =>
    Number(/Watch #(\d+)/.exec(mrkdwnOf(await world.answer('C_MARKETING', `watch ${rule}`)).join(' '))?.[1]);
  /** The clock moves on; the demo adds what arrived meanwhile; the evaluator ticks, as its timer would. */
  const at = async (t: number) => {
    world.clock = t;
    world.demo.advanceLive();
    await world.app.features.watches.evaluator.tick();
    await world.app.deliveries.drained();
  };
  const alerts = () => world.slack.messages('C_MARKETING').filter((m) => /^Watch: /.test(headerOf(m) ?? ''));

  it('a day and a half of live traffic, through the night, breaches none: every period judged ok; a spike the demo is asked for breaches', async () => {
    const ids = [
      await watch('visits spike'),
      await watch('visits spike every day'),
      await watch('pages page~/checkout spike'),
      await watch('sources source:google spike'),
    ];
    expect(ids.every((id) => id > 0)).toBe(true);
    // Just after each hour ends (and its settling minute), from the start to the second midnight (UTC): every
    // period judged is recorded with its outcome and what it said. The watches count in their owner's zone (Berlin).
    const judged = new Map<string, { outcome?: string; text?: string }>();
    const record = async () => {
      for (const id of ids) {
        const w = (await world.app.store.watches.get(id))!;
        if (w.lastPeriod) judged.set(`#${id} ${w.lastPeriod}`, { outcome: w.lastOutcome, text: w.lastText });
      }
    };
    await at(START.getTime() + MINUTE);
    await record();
    const end = Date.parse('2026-11-25T00:00:00Z');
    for (let hour = Math.floor(START.getTime() / HOUR) * HOUR + HOUR; hour <= end; hour += HOUR) {
      await at(hour + 2 * MINUTE);
      await record();
    }
    // Three hourly watches, from the hour before the start (10:00 in Berlin) to 00:00 on Nov 25 (39 hours), and the daily one on Nov 22, 23 and 24.
    // (An hour without a single checkout visit is an empty answer the watch waits on as suspect; the next hour comes first.)
    const periods = (id: number) => [...judged.keys()].filter((key) => key.startsWith(`#${id} `)).length;
    expect([periods(ids[0]!), periods(ids[1]!), periods(ids[3]!)]).toEqual([39, 3, 39]);
    expect(periods(ids[2]!)).toBeGreaterThan(30);
    const notOk = [...judged].filter(([, j]) => j.outcome !== 'ok');
    expect(notOk).toEqual([]);
    expect(alerts()).toEqual([]);
    const day23 = [...judged].find(([key]) => key === `#${ids[1]} 2026-11-23`)![1].text;
    expect(day23).toMatch(
      /^[\d,]+ visits on Nov 23 \(in UTC, as the analytics API counts days\): the usual Monday is [\d,]+ ± [\d,]+; this is [\d.]+ spreads? (above|below), and a spike takes 4 spreads, 20 visits and 50% above the usual$/,
    );

    // Asked for: 150 more visits to the checkout in the next hour.
    world.demo.produce({
      kind: 'spike',
      hours: [new Date(end)],
      visits: 150,
      url: 'https://www.example-shop.com/checkout',
    });
    await at(end + HOUR + 2 * MINUTE);
    const after = await Promise.all(ids.map((id) => world.app.store.watches.get(id)));
    // The spike's visits copy generated ones, so google has its share of them; 150 more is not half again a whole day.
    expect(after.map((w) => w!.lastOutcome)).toEqual(['breach', 'ok', 'breach', 'breach']);
    expect(alerts()).toHaveLength(3);
    expect(mrkdwnOf({ attachments: alerts()[0]!.attachments }).join(' ')).toMatch(
      /visits 01:00–02:00 on Nov 25 \(Europe\/Berlin\): the usual Wednesday 01:00 is [\d,]+ ± [\d,]+; this is [\d.]+ spreads above/,
    );
  }, 120_000);
});
