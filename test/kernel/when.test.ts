import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORTS } from '../../src/kernel/catalog.js';
import { shiftDate } from '../../src/kernel/dates.js';
import { tokenize, type Token } from '../../src/kernel/text.js';
import { LAST_DAYS, NAMED_RANGES, RANGE_MENU, rangeLabel } from '../../src/kernel/ranges.js';
import { normalizeRange, rangeWords, readRange } from '../../src/kernel/range-words.js';
import { resolveRange } from '../../src/kernel/range-dates.js';
import { parseTimeOfDay, readTime, timeWords } from '../../src/kernel/time-of-day.js';
import { parseTrafficCommand } from '../../src/features/reports/parse.js';
import { parseTrendWords } from '../../src/features/trends/parse.js';
import { parseWatchCommand } from '../../src/features/watches/parse.js';
import { parseDigestCommand } from '../../src/features/digests/parse.js';

const tokens = (text: string) => tokenize(text) as Token[];
const NOW = new Date('2026-11-21T12:00:00Z'); // a Saturday

function range(text: string, now = NOW): [string, string, string] {
  const r = resolveRange(text, 'UTC', now);
  if (!r.ok) throw new Error(`${text}: ${r.error}`);
  return [r.range.startDate, r.range.endDate, r.range.label];
}

describe('every range form reads as its canonical form', () => {
  it.each([
    // The forms.
    ['last7', 'last7d'],
    ['last 7 days', 'last7d'],
    ['last7 days', 'last7d'],
    ['lastweek', 'lastweek'],
    ['last week', 'lastweek'],
    ['this month', 'mtd'],
    // Canonical words, any case.
    ...RANGE_MENU.map((w) => [w.toUpperCase(), w]),
    // Any number of days, in words or short.
    ['last 14 days', 'last14d'],
    ['last14days', 'last14d'],
    ['past 14 days', 'last14d'],
    ['14d', 'last14d'],
    ['14 days', 'last14d'],
    ['last 1 week', 'last7d'],
    ['last 2 weeks', 'last14d'],
    ['last 365 days', 'last365d'],
    ['last 90 day', 'last90d'],
    // Calendar periods and their names.
    ['this week', 'wtd'],
    ['this year', 'ytd'],
    ['last year', 'lastyear'],
    ['last month', 'lastmonth'],
    ['last-month', 'lastmonth'],
    ['Month to date', 'mtd'],
    ['Year to date', 'ytd'],
    ['All time', 'all'],
    ['week', 'last7d'],
    ['month', 'last30d'],
    // Dates.
    ['2024-11-01..2024-11-28', '2024-11-01..2024-11-28'],
    ['2024-11-01 .. 2024-11-28', '2024-11-01..2024-11-28'],
    ['2024-11-01 to 2024-11-28', '2024-11-01..2024-11-28'],
    ['2024-11-21', '2024-11-21'],
    ['2024-11-21..2024-11-21', '2024-11-21'],
    ['Nov 21, 2026', '2026-11-21'],
    ['Nov 15 – Nov 21, 2026', '2026-11-15..2026-11-21'],
    ['Dec 25, 2025 – Jan 3, 2026', '2025-12-25..2026-01-03'],
    ['Dec 25 – Jan 3, 2026', '2025-12-25..2026-01-03'],
    ['november 1 to november 28, 2024', '2024-11-01..2024-11-28'],
  ])('%s → %s', (text, canonical) => {
    expect(normalizeRange(text)).toEqual({ ok: true, range: canonical });
  });
});

describe('ranges resolve to the dates their names say', () => {
  it.each([
    ['lastweek', '2026-11-09', '2026-11-15', 'Last week (Nov 9 – Nov 15, 2026)'],
    ['wtd', '2026-11-16', '2026-11-21', 'Week to date (Nov 16 – Nov 21, 2026)'],
    ['mtd', '2026-11-01', '2026-11-21', 'Month to date (Nov 1 – Nov 21, 2026)'],
    ['lastyear', '2025-01-01', '2025-12-31', 'Last year (Jan 1 – Dec 31, 2025)'],
    ['last14d', '2026-11-08', '2026-11-21', 'Last 14 days (Nov 8 – Nov 21, 2026)'],
    ['last365d', '2025-11-22', '2026-11-21', 'Last 365 days (Nov 22, 2025 – Nov 21, 2026)'],
  ])('%s at Saturday Nov 21, 2026', (text, start, end, label) => {
    expect(range(text)).toEqual([start, end, label]);
  });

  it('a week starts on Monday: on a Monday this week is one day and last week the seven before it; on a Sunday this week is seven days', () => {
    const monday = new Date('2026-11-16T12:00:00Z');
    const sunday = new Date('2026-11-22T12:00:00Z');
    expect(range('wtd', monday).slice(0, 2)).toEqual(['2026-11-16', '2026-11-16']);
    expect(range('lastweek', monday).slice(0, 2)).toEqual(['2026-11-09', '2026-11-15']);
    expect(range('wtd', sunday).slice(0, 2)).toEqual(['2026-11-16', '2026-11-22']);
    expect(range('lastweek', sunday).slice(0, 2)).toEqual(['2026-11-09', '2026-11-15']);
  });

  it("a locale's week (LOCALE=en-US: Sunday) moves this week and last week with it", () => {
    const sunday = new Date('2026-11-22T12:00:00Z');
    const inUs = (text: string) => {
      const r = resolveRange(text, 'UTC', sunday, 7);
      return r.ok ? [r.range.startDate, r.range.endDate] : r.error;
    };
    expect(inUs('wtd')).toEqual(['2026-11-22', '2026-11-22']);
    expect(inUs('lastweek')).toEqual(['2026-11-15', '2026-11-21']);
  });

  it('last week across a new year, and last year on Jan 1', () => {
    expect(range('lastweek', new Date('2026-01-02T12:00:00Z')).slice(0, 2)).toEqual(['2025-12-22', '2025-12-28']);
    expect(range('lastyear', new Date('2026-01-01T00:30:00Z')).slice(0, 2)).toEqual(['2025-01-01', '2025-12-31']);
  });
});

describe('near misses are refused with what was meant', () => {
  it.each([
    ['lst7d', /Did you mean `last7d`\?/],
    ['last7dd', /Did you mean `last7d`\?/],
    ['yesterdy', /Did you mean `yesterday`\?/],
    ['lastweak', /Did you mean `lastweek`\?/],
    ['thismonht', /Did you mean `thismonth`\?/],
    ['last 1 day', /from 2 to 365 days.*Did you mean `today`\?/],
    ['last 400 days', /The last N days go from 2 to 365 days; `last 400 days` is 400 days\. For more, give dates/],
    ['last 60 weeks', /is 420 days/],
    ['last 3 months', /ranges are whole days.*`last 90 days`.*`lastmonth`/],
    ['last 24 hours', /ranges are whole days/],
    ['this', /`this` needs a week, month or year/],
    ['last', /`last` needs a number of days or a period/],
    ['Nov 21', /needs its year/],
    ['Feb 30, 2026', /not a real date/],
    ['2024-02-30', /`2024-02-30` is not a real date/],
    ['2024-11-28..2024-11-01', /starts after it ends/],
  ])('%s', (text, error) => {
    const r = normalizeRange(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(error);
  });
});

describe('readRange takes the tokens of one range and no more', () => {
  it.each([
    ['last 7 days country:DE', 'last7d', 3],
    ['last7 days by visits', 'last7d', 2],
    ['this month public', 'mtd', 2],
    ['2024-11-01 to 2024-11-28 top 5', '2024-11-01..2024-11-28', 3],
    ['Nov 15 – Nov 21, 2026 city:"New York"', '2026-11-15..2026-11-21', 6],
    ['today yesterday', 'today', 1],
  ])('%s', (text, canonical, consumed) => {
    expect(readRange(tokens(text), 0)).toMatchObject({ ok: true, range: canonical, consumed });
  });

  it('is undefined for what does not start a range', () => {
    for (const text of ['country:DE', 'sources', 'by visits', '"last7d"', 'public'])
      expect(readRange(tokens(text), 0)).toBeUndefined();
  });
});

describe('times of day', () => {
  it.each([
    ['9am', '09:00'],
    ['9 am', '09:00'],
    ['9AM', '09:00'],
    ['9 a.m.', '09:00'],
    ['9:30pm', '21:30'],
    ['9:30 pm', '21:30'],
    ['09:00', '09:00'],
    ['9:05', '09:05'],
    ['21:00', '21:00'],
    ['00:00', '00:00'],
    ['23:59', '23:59'],
    ['12am', '00:00'],
    ['12:30am', '00:30'],
    ['12pm', '12:00'],
    ['noon', '12:00'],
    ['midnight', '00:00'],
  ])('%s → %s', (text, hhmm) => {
    expect(parseTimeOfDay(text)).toMatchObject({ ok: true, time: { text: hhmm } });
  });

  it.each([
    ['9amm', /Did you mean `9am`\?/],
    ['9:30pmm', /Did you mean `9:30pm`\?/],
    ['9 a.m', /Did you mean `9am`\?/],
    ['25:00', /hours go from 00 to 23 \(1 to 12 with am or pm\) and minutes from 00 to 59/],
    ['24:00', /Midnight is `00:00`/],
    ['9:60', /minutes from 00 to 59/],
    ['13pm', /with am or pm the hour goes from 1 to 12.*Did you mean `13:00`\?/i],
    ['0am', /Did you mean `00:00`\?/],
    ['9', /`9` needs minutes or am\/pm: `09:00`, `9am` or `9pm`/],
    ['0930', /Did you mean `09:30`\?/],
    ['9.30', /Did you mean `09:30`\?/],
    ['teatime', /not a time of day: say 09:00, 21:30, 9am or 9:30pm/],
    ['', /At what time\?/],
  ])('%s is refused', (text, error) => {
    const r = parseTimeOfDay(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(error);
  });

  it('is not a range, and a range is not a time', () => {
    expect(readTime(tokens('7d'), 0)).toBeUndefined();
    expect(readTime(tokens('2024-11-01'), 0)).toBeUndefined();
    expect(readRange(tokens('9am'), 0)).toMatchObject({ ok: false });
  });
});

describe('every command reads ranges and times with the one grammar', () => {
  it('reports: the forms of the issue, near misses with a suggestion', () => {
    const report = (text: string) => parseTrafficCommand(text, REPORTS);
    for (const [text, canonical] of [
      ['sources last 7 days', 'last7d'],
      ['sources last7 days', 'last7d'],
      ['sources lastweek', 'lastweek'],
      ['sources this month country:Germany', 'mtd'],
      ['sources Nov 15 – Nov 21, 2026', '2026-11-15..2026-11-21'],
    ]) {
      expect(report(text!)).toMatchObject({ kind: 'report', query: { range: canonical } });
    }
    expect(report('sources lst7d')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('Did you mean `last7d`?'),
    });
    expect(report('sources yesterdy')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('Did you mean `yesterday`?'),
    });
    expect(report('sources last 7 days today')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('Two ranges: `last 7 days` and `today`'),
    });
    expect(report('last week')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('`/traffic sources last week`'),
    });
  });

  it('trends: a range or a near miss of one first means all visits', () => {
    const trend = (text: string) => parseTrendWords(tokens(text), REPORTS);
    expect(trend('this month')).toMatchObject({
      kind: 'trend',
      report: [{ text: 'visits' }, { text: 'this' }, { text: 'month' }],
    });
    expect(trend('lastweak')).toMatchObject({ kind: 'trend', report: [{ text: 'visits' }, { text: 'lastweak' }] });
    expect(trend('sources last 7 days')).toMatchObject({
      kind: 'trend',
      report: [{ text: 'sources' }, { text: 'last' }, { text: '7' }, { text: 'days' }],
    });
  });

  it('watches: `vs last week` and `vs lastweek` compare with the week before; a range is refused, saying why', () => {
    const watch = (text: string) => parseWatchCommand(tokens(text), REPORTS);
    for (const text of ['visits drops 40% vs last week', 'visits drops 40% vs lastweek every day']) {
      expect(watch(text)).toMatchObject({ kind: 'add', rule: { condition: { kind: 'change', against: 'last_week' } } });
    }
    expect(watch('visits drops 40% last 7 days')).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/takes no range: leave out `last 7 days`/),
    });
  });

  it('digests: a time in any form, near misses with a suggestion, and no range', () => {
    const digest = (text: string) => parseDigestCommand(tokens(text), REPORTS);
    for (const [text, hhmm] of [
      ['add daily 9am sources', '09:00'],
      ['add daily 9 am sources', '09:00'],
      ['add monday 9:30pm sources', '21:30'],
      ['add weekdays noon sources', '12:00'],
      ['add monthly 1 21:00 sources', '21:00'],
    ]) {
      expect(digest(text!)).toMatchObject({ kind: 'add', schedule: { time: hhmm } });
    }
    expect(digest('add daily 9amm sources')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('Did you mean `9am`?'),
    });
    expect(digest('add daily 25:00 sources')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('hours go from 00 to 23'),
    });
    expect(digest('add daily nooon sources')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('Did you mean `noon`?'),
    });
    expect(digest('add daily 09:00 sources last7d')).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/period its schedule sets.*leave out `last7d`/),
    });
  });
});

// --- Round trips (fast-check) ------------------------------------------------------------

const isoDay = fc.integer({ min: 0, max: 60_000 }).map((n) => shiftDate('1970-01-01', n));
const canonicalRange = fc.oneof(
  fc.constantFrom(...NAMED_RANGES),
  fc.integer({ min: LAST_DAYS.min, max: LAST_DAYS.max }).map((n) => `last${n}d`),
  fc.tuple(isoDay, isoDay).map(([a, b]) => (a === b ? a : a < b ? `${a}..${b}` : `${b}..${a}`)),
);

describe('round trips', () => {
  it('every canonical range → each of its words (token, label, phrases) → the same canonical range', () => {
    fc.assert(
      fc.property(canonicalRange, (canonical) => {
        const words = rangeWords(canonical);
        expect(words).toContain(canonical);
        expect(words).toContain(rangeLabel(canonical));
        for (const word of words) {
          const toks = tokens(word);
          expect(readRange(toks, 0), word).toMatchObject({ ok: true, range: canonical, consumed: toks.length });
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a resolved label (Last 7 days (Nov 15 – Nov 21, 2026)) names dates that read back as the same dates', () => {
    fc.assert(
      fc.property(canonicalRange, fc.integer({ min: 0, max: 40_000 }), (canonical, day) => {
        const now = new Date(Date.UTC(2000, 0, 1) + day * 86_400_000);
        const r = resolveRange(canonical, 'UTC', now);
        if (!r.ok) return;
        const dates = /\(([^)]+)\)$/.exec(r.range.label)?.[1] ?? r.range.label;
        if (dates === 'All time') return;
        const same =
          r.range.startDate === r.range.endDate ? r.range.startDate : `${r.range.startDate}..${r.range.endDate}`;
        expect(normalizeRange(dates)).toEqual({ ok: true, range: same });
      }),
      { numRuns: 300 },
    );
  });

  it('every HH:MM → its 24-hour and 12-hour words → the same HH:MM', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), (hour, minute) => {
        const hhmm = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
        for (const word of timeWords({ hour, minute })) {
          const toks = tokens(word);
          expect(readTime(toks, 0), word).toMatchObject({
            ok: true,
            time: { hour, minute, text: hhmm },
            consumed: toks.length,
          });
        }
      }),
      { numRuns: 1440 },
    );
  });

  it('any text: a range reads to a canonical form that reads as itself, or to a one-line refusal; never a throw', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const r = normalizeRange(text);
        if (r.ok) expect(normalizeRange(r.range)).toEqual(r);
        else expect(r.error).not.toMatch(/\n/);
        const t = parseTimeOfDay(text);
        if (t.ok) expect(parseTimeOfDay(t.time.text)).toEqual(t);
      }),
      { numRuns: 500 },
    );
  });
});
