import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '@lookout/sandbox/slack';
import { validateMessage } from '../../../src/slack-rules/validate.js';
import { CHANNEL, USER, hasAction, headerOf, mrkdwnOf, sandbox, tableOf, type Sandbox } from '../../support/sandbox.js';
import { DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import { changed, run } from '../../support/answers.js';

type Json = Record<string, unknown>;
type Chart = {
  type: string;
  title: string;
  chart: {
    type: string;
    series?: { name: string; data: { label: string; value: number }[] }[];
    segments?: { label: string; value: number }[];
    axis_config?: { categories: string[] };
  };
};

let box: Sandbox & { logs: string[] };

beforeAll(async () => {
  box = await sandbox();
});
afterAll(async () => {
  await box?.stop();
});

it('a trend with more periods to fetch than a page says how many first, and how it goes; the answer then takes its place', async () => {
  const before = new Set(box.slack.messages(CHANNEL, { user: USER }).map((m) => m.ts));
  await box.slack.slash(CHANNEL, USER, 'trend countries last90d');
  const answer = await box.slack.waitFor(
    () =>
      box.slack
        .messages(CHANNEL, { user: USER })
        .find((m) => !before.has(m.ts) && (headerOf(m) ?? '').startsWith('Trend:')),
    30_000,
  );
  // One message: the note was replaced in place (twice: the halfway word, then the answer).
  expect(box.slack.messages(CHANNEL, { user: USER }).filter((m) => !before.has(m.ts))).toHaveLength(1);
  expect(answer.updates).toBe(2);
  // The embedded store is one process: its answers are shared in memory, none written to the store.
  const { rows } = await box.lookout.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_answers');
  expect(rows[0]?.n).toBe(0);
});

it('a trend past TREND_MAX_FETCH is refused, naming the cap, and reaches no API', async () => {
  const small = await sandbox({ settings: { TREND_MAX_FETCH: 50 } });
  try {
    const requests = small.demo!.requests.length;
    await small.slack.slash(CHANNEL, USER, 'trend countries last30d');
    const answer = await small.slack.waitFor(
      () => small.slack.messages(CHANNEL, { user: USER }).find((m) => m.ephemeralTo === USER),
      30_000,
    );
    expect(mrkdwnOf(answer).join(' ')).toMatch(
      /needs 60 periods Lookout has not kept yet; one trend fetches at most 50 \(TREND_MAX_FETCH\)/,
    );
    expect(small.demo!.requests.length).toBe(requests);
  } finally {
    await small.stop();
  }
});

const charts = (m: Message) => (m.blocks ?? []).filter((b) => b.type === 'data_visualization') as unknown as Chart[];
const sum = (values: number[]) => values.reduce((n, v) => n + v, 0);
const count = (text: string) => Number(text.replace(/,/g, ''));

describe('/traffic trend in Slack', () => {
  it('charts a report: 30 days against the 30 before, a pie of the top rows, and the figures in words', async () => {
    const message = await run(box, 'trend sources last30d');
    expect(headerOf(message)).toMatch(/^Trend: Sources · Last 30 days \(/);
    expect(validateMessage(message)).toEqual({ ok: true });
    const [line, pie] = charts(message);
    expect(line!.chart.type).toBe('line');
    expect(line!.chart.axis_config!.categories).toHaveLength(30);
    // Each series is named by its dates: the previous period says which it is.
    const [now, before] = line!.chart.series!.map((s) => s.name);
    const span = /^[A-Z][a-z]{2} \d{1,2}–([A-Z][a-z]{2} )?\d{1,2}, \d{4}$|^[A-Z][a-z]{2} \d{4}–[A-Z][a-z]{2} \d{4}$/;
    expect(now).toMatch(span);
    expect(before).toMatch(span);
    expect(before).not.toBe(now);
    const total = sum(line!.chart.series![0]!.data.map((d) => d.value));
    const words = mrkdwnOf(message).join('\n');
    expect(count(/\*([\d,]+) visits\*/.exec(words)![1]!)).toBe(total);
    expect(words).toMatch(/against the previous period, [A-Z][a-z]{2} \d+ – [A-Z][a-z]{2} \d+, \d{4} \([\d,]+\)/);
    expect(words).toMatch(/Busiest day: [A-Z][a-z]{2} \d+ with [\d,]+\./);
    expect(pie!.chart.type).toBe('pie');
    expect(sum(pie!.chart.segments!.map((s) => s.value))).toBe(total);
    expect(words).toMatch(/Share of visits: .+ \d+% \([\d,]+\)/);
    expect(message.text).toMatch(/^Trend: Sources, Last 30 days .*: [\d,]+ visits/);
    expect(hasAction(message, 'trend.share')).toBe(true);

    // The same trend again: every finished day comes from the store, and /metrics says so.
    await run(box, 'trend sources last30d');
    const metrics = await (await fetch(`${box.lookout.ops.url}/metrics`)).text();
    expect(Number(/lookout_trend_periods_total\{source="api"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(60);
    expect(Number(/lookout_trend_periods_total\{source="store"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(59);
  });

  it('with no report, charts all visits by hour for today, and by week past 90 days', async () => {
    const today = await run(box, 'trend today');
    expect(headerOf(today)).toMatch(/^Trend: Visits · Today/);
    expect(charts(today)).toHaveLength(1);
    expect(charts(today)[0]!.chart.axis_config!.categories[0]).toBe('00:00');
    expect(mrkdwnOf(today).join(' ')).toMatch(/The last hour is not over yet/);
    // Hours are counted by Lookout from visits, in the channel's zone; weeks are made of the API's days.
    expect(mrkdwnOf(today)[0]).toContain(' · hours in UTC · ');
    const ytd = await run(box, 'trend ytd by unique');
    expect(charts(ytd)[0]!.title).toBe("Unique visitors per week (UTC, the API's days)");
    expect(validateMessage(ytd)).toEqual({ ok: true });
    expect(mrkdwnOf(ytd)[0]).toContain(' · days in UTC, as the analytics API counts them · ');
  });

  it('answers a bad trend with what to type instead', async () => {
    expect(mrkdwnOf(await run(box, 'trend by clicks')).join(' ')).toMatch(
      /A trend is `by visits` or `by unique`, not `clicks`/,
    );
    expect(mrkdwnOf(await run(box, 'trend sources top 5')).join(' ')).toMatch(/`top` does not apply/);
    expect(mrkdwnOf(await run(box, 'trend sorces')).join(' ')).toMatch(/Unknown report `sorces`.*sources/);
    expect(mrkdwnOf(await run(box, 'trend sources last 3 months')).join(' ')).toMatch(
      /ranges are whole days.*Usage: `\/traffic trend/,
    );
  });

  it('Trend on a report answer shows its trend in place; Show table brings the report back; a tampered value is refused', async () => {
    const report = await run(box, 'countries last7d country:Germany,France');
    const trend = await changed(box, report, () => box.slack.click(report, 'trend.open'));
    expect(headerOf(trend)).toMatch(/^Trend: Countries · Last 7 days/);
    expect(mrkdwnOf(trend).join(' ')).toMatch(/filters: country is Germany or France|filters: .*Germany.*France/);
    expect(charts(trend)[0]!.chart.axis_config!.categories).toHaveLength(7);
    const back = await changed(box, trend, () => box.slack.click(trend, 'trend.table'));
    expect(headerOf(back)).toMatch(/^Countries · Last 7 days/);
    expect(
      tableOf(back)
        .slice(1)
        .map((r) => r[0])
        .sort(),
    ).toEqual(['France', 'Germany']);

    // A person who edits the button's value (the client never would) gets "too old", and nothing is fetched.
    const live = box.slack.messages(CHANNEL, { user: USER }).find((m) => m.ts === back.ts)!;
    const button = (live.blocks as unknown as { elements?: Json[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === 'trend.open')!;
    button.value = 't|v|q1.bm90LWEtcXVlcnk';
    const requests = box.demo!.requests.length;
    const stale = await changed(box, back, () => box.slack.click(back, 'trend.open'));
    expect(box.demo!.requests.length).toBe(requests);
    expect(mrkdwnOf(stale).join(' ')).toMatch(/too old|no longer/i);
  });

  it("a visitor card's Trend charts that visitor's visits", async () => {
    const card = await run(box, DEMO_VISITORS.attacker, { command: '/visitor' });
    const trend = await changed(box, card, () => box.slack.click(card, 'trend.open'));
    expect(headerOf(trend)).toMatch(/^Trend: Visits · Last 30 days/);
    expect(mrkdwnOf(trend).join(' ')).toContain(DEMO_VISITORS.attacker);
  });

  it('Post to channel shares the trend with everyone and says who shared it', async () => {
    const mine = await run(box, 'trend channels last7d');
    await box.slack.click(mine, 'trend.share');
    const shared = await box.slack.waitForMessage(
      CHANNEL,
      (m) => !m.ephemeralTo && (headerOf(m) ?? '').startsWith('Trend: Channels'),
    );
    expect(mrkdwnOf(shared).join(' ')).toContain(`shared by <@${USER}>`);
    expect(hasAction(shared, 'trend.share')).toBe(false);
  });

  it('a digest carries a chart of its period against the previous one', async () => {
    const added = await run(box, 'digest add sources weekly monday 09:00');
    expect(mrkdwnOf(added).join(' ')).toMatch(/#(\d+)/);
    const id = /#(\d+)/.exec(mrkdwnOf(added).join(' '))![1];
    const preview = await run(box, `digest preview ${id}`);
    const [chart] = charts(preview);
    // The digest is Alice's (Europe/Berlin); its days, as its totals, are the API's.
    expect(chart!.title).toBe("Visits per day (UTC, the API's days)");
    expect(chart!.chart.axis_config!.categories).toHaveLength(7);
    expect(validateMessage(preview)).toEqual({ ok: true });
    const totals = mrkdwnOf(preview).find((t) => t.startsWith('*Visits*'))!;
    expect(count(/\n([\d,]+)/.exec(totals)![1]!)).toBe(sum(chart!.chart.series![0]!.data.map((d) => d.value)));
  });
});
