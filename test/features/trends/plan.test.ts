import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REPORTS } from '../../../src/kernel/catalog.js';
import { hourAt, rangeDays, shiftDate, weekOf, weekStartOf } from '../../../src/kernel/dates.js';
import { resolveRange } from '../../../src/kernel/range-dates.js';
import { commandTokens, type Token } from '../../../src/kernel/text.js';
import {
  decodeTrendRef,
  encodeTrendRef,
  finalAt,
  keeping,
  looksShort,
  MAX_WEEKS,
  planTrend,
  summarize,
  YOUNG_MS,
  type Trend,
} from '../../../src/kernel/trend.js';
import { trendMessage } from '../../../src/features/trends/blocks.js';
import { parseTrendWords } from '../../../src/features/trends/parse.js';
import { trendChart } from '../../../src/platform/slack/kit/charts.js';
import { validateBlocks, validateMessage } from '../../../src/slack-rules/validate.js';
import { mrkdwnOf } from '../../support/sandbox.js';

/** A reader in Berlin, an API that counts its days in UTC. */
const ZONES = { timeZone: 'Europe/Berlin', apiZone: 'UTC' };
const NOW = new Date('2026-11-20T15:00:00Z');
const range = (text: string) => {
  const r = resolveRange(text, 'Europe/Berlin', NOW);
  if (!r.ok) throw new Error(r.error);
  return r.range;
};

describe('planTrend', () => {
  it('one day goes by hour, against the day before', () => {
    const plan = planTrend(range('yesterday'));
    expect(plan.grain).toBe('hour');
    expect(plan.buckets.map((b) => b.label).slice(0, 2)).toEqual(['00:00', '01:00']);
    expect(plan.buckets).toHaveLength(24);
    expect(plan.previous[0]!.startDate).toBe('2026-11-18');
  });

  it('up to 90 days goes by day; beyond, by week; at most 53 weeks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 3000 }), (days) => {
        const end = '2026-11-20';
        const r = { startDate: shiftDate(end, -(days - 1)), endDate: end, label: 'x' };
        const plan = planTrend(r);
        expect(plan.grain).toBe(days <= 90 ? 'day' : 'week');
        expect(plan.previous).toHaveLength(plan.buckets.length);
        // The buckets tile the charted range exactly, and the previous period ends the day before it starts.
        expect(plan.buckets[0]!.startDate).toBe(plan.range.startDate);
        expect(plan.buckets.at(-1)!.endDate).toBe(end);
        for (let i = 1; i < plan.buckets.length; i++)
          expect(plan.buckets[i]!.startDate).toBe(shiftDate(plan.buckets[i - 1]!.endDate, 1));
        expect(plan.previous.at(-1)!.endDate).toBe(shiftDate(plan.range.startDate, -1));
        expect(plan.buckets.length).toBeLessThanOrEqual(90);
        if (plan.grain === 'week') {
          expect(plan.buckets.length).toBeLessThanOrEqual(MAX_WEEKS);
          // Every week but the first and the last starts on a Monday and is whole; a part week says so.
          for (const b of plan.buckets.slice(1)) expect(new Date(`${b.startDate}T00:00:00Z`).getUTCDay()).toBe(1);
          for (const b of plan.buckets) expect(rangeDays(b) < 7).toBe(b.label.endsWith('(part)'));
          // Clipped only when the whole range would take more weeks than a chart holds; then it starts on a whole week.
          if (plan.clipped) expect(rangeDays(plan.buckets[0]!)).toBe(7);
          else expect(rangeDays(plan.range)).toBe(days);
          const weeksTouched = (rangeDays({ startDate: weekOf(r.startDate, 1), endDate: weekOf(end, 1) }) - 1) / 7 + 1;
          expect(plan.clipped).toBe(weeksTouched > MAX_WEEKS);
        } else expect(rangeDays(plan.range)).toBe(days);
        // Each previous bucket is as long as its own, as many days before as the charted range is long.
        plan.previous.forEach((p, i) => {
          expect(p.startDate).toBe(shiftDate(plan.buckets[i]!.startDate, -rangeDays(plan.range)));
          expect(rangeDays(p)).toBe(rangeDays(plan.buckets[i]!));
        });
        for (const b of [...plan.buckets, ...plan.previous]) expect(b.label.length).toBeLessThanOrEqual(20);
      }),
    );
  });

  it("weeks follow the locale's week start: Monday unless it says otherwise, with part weeks marked", () => {
    expect(weekStartOf(undefined)).toBe(1);
    expect(weekStartOf('de-DE')).toBe(1);
    expect(weekStartOf('en-US')).toBe(7);
    expect(weekStartOf('not a locale')).toBe(1);
    // 2026 to date: Jan 1 is a Thursday; weeks from Monday Jan 5 on, the last one not over.
    const ytd = { startDate: '2026-01-01', endDate: '2026-11-25', label: 'Year to date' };
    const monday = planTrend(ytd);
    expect(monday.buckets.slice(0, 3).map((b) => b.label)).toEqual(['Jan 1–4 (part)', 'Jan 5', 'Jan 12']);
    expect(monday.buckets.at(-1)).toMatchObject({
      startDate: '2026-11-23',
      endDate: '2026-11-25',
      label: 'Nov 23–25 (part)',
    });
    const sunday = planTrend(ytd, weekStartOf('en-US'));
    expect(sunday.buckets.slice(0, 2).map((b) => b.label)).toEqual(['Jan 1–3 (part)', 'Jan 4']);
    expect(sunday.buckets.at(-1)!.label).toBe('Nov 22–25 (part)');
    // A part week across a month names both.
    expect(planTrend({ startDate: '2026-01-30', endDate: '2026-06-02', label: 'x' }).buckets.at(-1)!.label).toBe(
      'Jun 1–2 (part)',
    );
    expect(planTrend({ startDate: '2026-01-30', endDate: '2026-07-01', label: 'x' }).buckets.at(-1)!.label).toBe(
      'Jun 29–Jul 1 (part)',
    );
    // A week of one day in the range.
    expect(planTrend({ startDate: '2025-11-30', endDate: '2026-03-05', label: 'x' }).buckets[0]!.label).toBe(
      'Nov 30 (part)',
    );
  });

  it("a day is final once the API's own day of it has ended, plus the settling margin; an hour once it has ended, plus the margin", () => {
    const utc = { timeZone: 'UTC', settleMs: 600_000 };
    const [day] = planTrend(range('2026-11-19..2026-11-20')).buckets;
    expect(finalAt(day!, 'Pacific/Kiritimati', utc)).toBe(Date.parse('2026-11-20T00:10:00Z'));
    expect(finalAt(day!, 'Pacific/Kiritimati', { timeZone: 'America/Los_Angeles', settleMs: 0 })).toBe(
      Date.parse('2026-11-20T08:00:00Z'),
    );
    const week = planTrend(range('2026-01-01..2026-11-20')).buckets.at(-1)!;
    expect(finalAt(week, 'UTC', utc)).toBe(Date.parse('2026-11-21T00:10:00Z'));
    const hours = planTrend(range('2026-11-19')).buckets;
    expect(finalAt(hours[9]!, 'Asia/Tokyo', utc)).toBe(Date.parse('2026-11-19T01:10:00Z')); // 10:00 in Tokyo, plus 10 minutes
    // The hour the clocks skip (02:00 on Mar 29 in Berlin) is over when they skip it; the repeated 02:00 of Oct 25 when its second pass ends.
    expect(
      finalAt(
        { key: '2026-03-29T02', startDate: '2026-03-29', endDate: '2026-03-29', hour: 2, label: '02:00' },
        'Europe/Berlin',
        utc,
      ),
    ).toBe(Date.parse('2026-03-29T01:10:00Z'));
    expect(
      finalAt(
        { key: '2026-10-25T02', startDate: '2026-10-25', endDate: '2026-10-25', hour: 2, label: '02:00' },
        'Europe/Berlin',
        utc,
      ),
    ).toBe(Date.parse('2026-10-25T02:10:00Z'));
  });

  it('how an answer is kept: an empty one not corroborated is suspect and asked again after the margin; a young one provisional until it is 3 days past final; an old one final once confirmed whole, else asked again 3 days after the read', () => {
    const final = Date.parse('2026-11-20T00:10:00Z');
    const now = final + 3_600_000;
    const at = { now, finalAt: final, settleMs: 600_000 };
    expect(keeping({ ...at, empty: true, corroborated: false, confirmed: true })).toEqual({
      final: false,
      suspect: true,
      confirmed: true,
      recheckAt: now + 600_000,
    });
    expect(keeping({ ...at, settleMs: 0, empty: true, corroborated: false, confirmed: false })).toEqual({
      final: false,
      suspect: true,
      confirmed: false,
      recheckAt: now + 60_000,
    });
    expect(keeping({ ...at, empty: true, corroborated: true, confirmed: true })).toEqual({
      final: false,
      suspect: false,
      confirmed: true,
      recheckAt: final + YOUNG_MS,
    });
    for (const confirmed of [true, false])
      expect(keeping({ ...at, empty: false, corroborated: false, confirmed })).toEqual({
        final: false,
        suspect: false,
        confirmed,
        recheckAt: final + YOUNG_MS,
      });
    const old = { ...at, now: final + YOUNG_MS, empty: false, corroborated: false };
    expect(keeping({ ...old, confirmed: true })).toEqual({ final: true, suspect: false, confirmed: true });
    expect(keeping({ ...old, confirmed: false })).toEqual({
      final: false,
      suspect: false,
      confirmed: false,
      recheckAt: final + 2 * YOUNG_MS,
    });
  });

  it('a first read looks cut short when it has under half the visits of each period beside it', () => {
    expect(looksShort(500, [1_440, 1_440])).toBe(true);
    expect(looksShort(0, [3])).toBe(true);
    expect(looksShort(500, [1_440, 900])).toBe(false); // a dip into a low day
    expect(looksShort(720, [1_440])).toBe(false);
    expect(looksShort(0, [])).toBe(false); // nothing to judge it by
    expect(looksShort(0, [0])).toBe(false);
  });

  it('hours are read in the zone', () => {
    expect(hourAt(Date.parse('2026-11-20T23:30:00Z'), 'Europe/Berlin')).toEqual({ date: '2026-11-21', hour: 0 });
    expect(hourAt(Date.parse('2026-07-01T12:00:00Z'), 'America/New_York')).toEqual({ date: '2026-07-01', hour: 8 });
    expect(hourAt(Date.parse('not a date'), 'UTC')).toBeUndefined();
    expect(hourAt(Date.parse('2026-07-01T12:00:00Z'), 'Not/AZone')).toBeUndefined();
  });
});

describe('Trend button values', () => {
  it('round-trip, and anything else is refused', () => {
    expect(decodeTrendRef(encodeTrendRef('unique', 'q1.abc'))).toEqual({ metric: 'unique', ref: 'q1.abc' });
    expect(decodeTrendRef(encodeTrendRef('visits', '@12', 'v1|v_x|2|'))).toEqual({
      metric: 'visits',
      ref: '@12',
      back: 'v1|v_x|2|',
    });
    expect(decodeTrendRef('t|v|q1.a|b|c')).toBeUndefined();
    for (const bad of [undefined, 42, '', 't|x|q1.abc', 't|v|', 'q1.abc', `t|v|${'a'.repeat(2001)}`])
      expect(decodeTrendRef(bad)).toBeUndefined();
  });
});

describe('parseTrendWords', () => {
  const words = (text: string) => parseTrendWords(commandTokens(text) as Token[], REPORTS);
  it('no report means all visits; `by` picks the metric', () => {
    expect(words('last30d by unique')).toMatchObject({
      kind: 'trend',
      metric: 'unique',
      report: [{ text: 'visits' }, { text: 'last30d' }],
    });
    expect(words('country:DE')).toMatchObject({ report: [{ text: 'visits' }, { text: 'country:DE' }] });
    expect(words('sources source:google')).toMatchObject({ report: [{ text: 'sources' }, { text: 'source:google' }] });
    expect(words('by duration')).toMatchObject({ kind: 'error' });
    expect(words('by unique by visits')).toMatchObject({ kind: 'error' });
    expect(words('top5')).toMatchObject({ kind: 'error' });
  });
});

describe('trend messages stay within what Slack accepts', () => {
  const trendOf = (text: string, values: (i: number) => number): Trend => {
    const plan = planTrend(range(text));
    return {
      plan,
      source: 'sources',
      partial: true,
      current: summarize(
        plan.buckets.map((_, i) => values(i)),
        plan.buckets,
      ),
      previous: summarize(
        plan.previous.map((_, i) => values(i + 1)),
        plan.previous,
      ),
    };
  };

  it.each(['today', 'last7d', 'last90d', 'ytd', 'all'])(
    '%s: a line of two series and a pie with long, hostile names',
    (text) => {
      const trend = trendOf(text, (i) => (i * 37) % 101);
      const share = {
        def: REPORTS.sources,
        top: ['<!channel> a very long source name indeed', 'google', '‮evil', 'x'.repeat(300), 'bing'].map(
          (name, i) => ({ name, value: 100 - i }),
        ),
        rest: 40,
        total: 530,
      };
      const spec = {
        report: 'sources' as const,
        filters: [],
        metric: 'visits' as const,
        range: trend.plan.range,
        timeZone: 'Europe/Berlin',
      };
      const message = trendMessage({
        spec,
        trend,
        share,
        timeZone: 'Europe/Berlin',
        apiZone: 'UTC',
        demo: false,
        ephemeral: true,
        ref: 't|v|q1.x',
        tableRef: 'q1.x',
      });
      expect(validateMessage(message)).toEqual({ ok: true });
      const pie = message.blocks.find(
        (b) => b.type === ('data_visualization' as never) && JSON.stringify(b).includes('"pie"'),
      ) as unknown as { chart: { segments: { label: string }[] } };
      expect(pie.chart.segments).toHaveLength(6);
      expect(pie.chart.segments.every((s) => !s.label.includes('\u202e'))).toBe(true);
      // Chart labels are plain text (like raw_text cells); wherever mrkdwn is read, the name is escaped.
      for (const text of [message.text, ...mrkdwnOf(message)]) expect(text).not.toContain('<!channel>');
      expect(mrkdwnOf(message).join(' ')).toContain('&lt;!channel&gt; a very long source name indeed 19%');
    },
  );

  it('a chart with a seventh series or a 21-character category is refused by the validator', () => {
    const plan = planTrend(range('last7d'));
    const chart = trendChart(
      'visits',
      {
        plan,
        current: summarize([1, 2, 3, 4, 5, 6, 7], plan.buckets),
        previous: summarize([1, 1, 1, 1, 1, 1, 1], plan.previous),
      },
      { timeZone: 'Europe/Berlin', apiZone: 'UTC' },
    );
    expect(validateBlocks([chart] as never, 'message')).toEqual({ ok: true });
    const seven = {
      ...chart,
      chart: {
        ...chart.chart,
        series: Array.from({ length: 7 }, (_, i) => ({
          name: `s${i}`,
          data: (chart.chart as { series: { data: unknown[] }[] }).series[0]!.data,
        })),
      },
    };
    expect(validateBlocks([seven] as never, 'message').ok).toBe(false);
    const long = {
      ...chart,
      chart: { ...chart.chart, axis_config: { categories: plan.buckets.map((b) => `${b.label}${'x'.repeat(20)}`) } },
    };
    expect(validateBlocks([long] as never, 'message').ok).toBe(false);
  });
});

describe('pie labels read as the table does (issue 27)', () => {
  it('paths, not URLs; each within 20 characters and told apart; a pie only with two slices at least', async () => {
    const { distinctLabels } = await import('../../../src/platform/slack/kit/charts.js');
    const urls = [
      'https://www.example-shop.com/blog/2024/november/post-one',
      'https://www.example-shop.com/blog/2024/november/post-two',
      'https://www.example-shop.com/',
    ];
    const labels = distinctLabels(urls.map((u) => new URL(u).pathname));
    expect(labels).toEqual(['/blog/2024…/post-one', '/blog/2024…/post-two', '/']);
    expect(new Set(labels).size).toBe(3);
    for (const l of labels) expect(Array.from(l).length).toBeLessThanOrEqual(20);
    expect(distinctLabels(['same', 'same'])).toEqual(['same', 'same (2)']);
  });
});

describe('hours and days that have not happened are not drawn (issue 27)', () => {
  it('counts the buckets begun by now in the zone; the chart stops there, the previous period beside it', async () => {
    const { begunCount, planTrend } = await import('../../../src/kernel/trend.js');
    const { trendChart } = await import('../../../src/platform/slack/kit/charts.js');
    // 21:32 in Berlin: hours 00–21 have begun, 22 and 23 have not.
    const now = new Date('2026-11-24T20:32:00Z');
    const range = resolveRange('today', 'Europe/Berlin', now);
    if (!range.ok) throw new Error(range.error);
    const plan = planTrend(range.range);
    const begun = begunCount(plan.buckets, now, 'Europe/Berlin');
    expect(begun).toBe(22);
    const values = (n: number) => ({ values: Array.from({ length: 24 }, () => n), total: 24 * n });
    const chart = trendChart(
      'visits',
      { plan, current: values(5), previous: values(4), begun },
      { timeZone: 'Europe/Berlin', apiZone: 'UTC' },
    );
    const axis = chart.chart.type === 'pie' ? undefined : chart.chart.axis_config;
    expect(axis?.categories).toHaveLength(22);
    expect(axis?.categories.at(-1)).toBe('21:00');
    if (chart.chart.type !== 'pie') for (const s of chart.chart.series) expect(s.data).toHaveLength(22);
    // Each series says which period it is, and the title the zone of its hours (issue 34).
    expect(chart.title).toBe('Visits per hour (Europe/Berlin)');
    if (chart.chart.type !== 'pie')
      expect(chart.chart.series.map((s) => s.name)).toEqual(['Nov 24, 2026', 'Nov 23, 2026']);
    // A watch alert's own chart stops there too.
    const { watchAlertMessage } = await import('../../../src/features/watches/blocks.js');
    const trend: Trend = {
      plan,
      source: 'countries',
      partial: true,
      begun,
      current: summarize(values(5).values, plan.buckets),
      previous: summarize(values(4).values, plan.previous),
    };
    const alert = watchAlertMessage({
      id: 1,
      rule: { metric: 'visits', report: 'visits', filters: [], condition: { kind: 'spike' }, every: 'hour' },
      state: 'breaching',
      text: '9 visits',
      timeZone: 'Europe/Berlin',
      apiZone: 'UTC',
      now,
      demo: true,
      trend,
    });
    const alertChart = alert.blocks.find((b): b is typeof chart => b.type === 'data_visualization');
    expect(
      alertChart && alertChart.chart.type !== 'pie' ? alertChart.chart.axis_config.categories.at(-1) : undefined,
    ).toBe('21:00');
    // A week of days, all begun: drawn whole.
    const week = resolveRange('last7d', 'Europe/Berlin', now);
    if (!week.ok) throw new Error(week.error);
    expect(begunCount(planTrend(week.range).buckets, now, 'Europe/Berlin')).toBe(7);
  });

  it('names the previous period with its dates, whatever the change', async () => {
    const { trendFigures } = await import('../../../src/platform/slack/kit/charts.js');
    const plan = planTrend({ startDate: '2026-11-18', endDate: '2026-11-24', label: 'Last 7 days' });
    const trend = (now: number, before: number): Trend => ({
      plan,
      source: 'countries',
      partial: false,
      current: summarize([now, 0, 0, 0, 0, 0, 0], plan.buckets),
      previous: summarize([before, 0, 0, 0, 0, 0, 0], plan.previous),
    });
    expect(trendFigures('visits', trend(92, 100), ZONES)).toMatch(
      /^\*92 visits\*, ▼ 8% against the previous period, Nov 11 – Nov 17, 2026 \(100\)\./,
    );
    expect(trendFigures('visits', trend(100, 100), ZONES)).toMatch(
      /the same as the previous period, Nov 11 – Nov 17, 2026 \(100\)\./,
    );
    expect(trendFigures('visits', trend(5, 0), ZONES)).toMatch(
      /up from none in the previous period, Nov 11 – Nov 17, 2026\./,
    );
    // By hour: the day before.
    const hourly = planTrend({ startDate: '2026-11-24', endDate: '2026-11-24', label: 'Today' });
    const day = summarize(
      Array.from({ length: 24 }, () => 1),
      hourly.buckets,
    );
    expect(
      trendFigures('visits', { plan: hourly, source: 'countries', partial: true, current: day, previous: day }, ZONES),
    ).toMatch(/the same as the previous period, Nov 23, 2026 \(24\)/);
    // Hours carry their zone: they add up to Berlin's day, not the API's (issue 34).
    const peaked = summarize(
      Array.from({ length: 24 }, (_, h) => (h === 10 ? 5 : 1)),
      hourly.buckets,
    );
    expect(
      trendFigures(
        'visits',
        { plan: hourly, source: 'countries', partial: false, current: peaked, previous: day },
        ZONES,
      ),
    ).toBe(
      '*28 visits* (Europe/Berlin), ▲ 17% against the previous period, Nov 23, 2026 (24). Busiest hour: 10:00 (Europe/Berlin) with 5.',
    );
  });
});
