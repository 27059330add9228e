import { describe, expect, it } from 'vitest';
import {
  compactSpan,
  dayStart,
  hourEnd,
  hourSpans,
  isValidTimeZone,
  localDate,
  previousPeriod,
  rangeDays,
  type DateRange,
} from '../../src/kernel/dates.js';
import { RANGE_MENU } from '../../src/kernel/ranges.js';
import { normalizeRange } from '../../src/kernel/range-words.js';
import { resolveRange } from '../../src/kernel/range-dates.js';

function resolved(text: string | undefined, timeZone: string, now: string): DateRange {
  const r = resolveRange(text, timeZone, new Date(now));
  if (!r.ok) throw new Error(`expected ${text} to resolve, got: ${r.error}`);
  return r.range;
}

function dates(text: string | undefined, timeZone: string, now: string): [string, string] {
  const r = resolved(text, timeZone, now);
  return [r.startDate, r.endDate];
}

describe('resolveRange: each word at 2026-11-21 12:00 UTC', () => {
  const now = '2026-11-21T12:00:00Z';
  it.each([
    ['today', '2026-11-21', '2026-11-21', 'Today (Nov 21, 2026)'],
    ['yesterday', '2026-11-20', '2026-11-20', 'Yesterday (Nov 20, 2026)'],
    ['last7d', '2026-11-15', '2026-11-21', 'Last 7 days (Nov 15 – Nov 21, 2026)'],
    ['last30d', '2026-10-23', '2026-11-21', 'Last 30 days (Oct 23 – Nov 21, 2026)'],
    ['last90d', '2026-08-24', '2026-11-21', 'Last 90 days (Aug 24 – Nov 21, 2026)'],
    ['mtd', '2026-11-01', '2026-11-21', 'Month to date (Nov 1 – Nov 21, 2026)'],
    ['lastmonth', '2026-10-01', '2026-10-31', 'Last month (Oct 1 – Oct 31, 2026)'],
    ['ytd', '2026-01-01', '2026-11-21', 'Year to date (Jan 1 – Nov 21, 2026)'],
    ['all', '1970-01-01', '2026-11-21', 'All time'],
  ])('%s', (word, startDate, endDate, label) => {
    expect(resolved(word, 'UTC', now)).toEqual({ startDate, endDate, label });
  });

  it('covers every word in RANGE_MENU', () => {
    for (const word of RANGE_MENU) expect(resolveRange(word, 'UTC', new Date(now)).ok).toBe(true);
  });

  it('defaults to the last 7 days for undefined and blank', () => {
    expect(dates(undefined, 'UTC', now)).toEqual(['2026-11-15', '2026-11-21']);
    expect(dates('  ', 'UTC', now)).toEqual(['2026-11-15', '2026-11-21']);
  });

  it.each([
    ['7d', 'last7d'],
    ['last7', 'last7d'],
    ['week', 'last7d'],
    ['30d', 'last30d'],
    ['month', 'last30d'],
    ['90D', 'last90d'],
    ['last-month', 'lastmonth'],
    ['thismonth', 'mtd'],
    ['thisyear', 'ytd'],
    ['alltime', 'all'],
    ['LastMonth', 'lastmonth'],
  ])('alias %s means %s', (alias, word) => {
    expect(normalizeRange(alias)).toEqual({ ok: true, range: word });
    expect(resolved(alias, 'UTC', now)).toEqual(resolved(word, 'UTC', now));
  });

  it('spans a year boundary in the label', () => {
    expect(resolved('last7d', 'UTC', '2026-01-03T08:00:00Z').label).toBe('Last 7 days (Dec 28, 2025 – Jan 3, 2026)');
    expect(dates('lastmonth', 'UTC', '2026-01-10T08:00:00Z')).toEqual(['2025-12-01', '2025-12-31']);
  });
});

describe('resolveRange: time zones around midnight and DST', () => {
  it.each([
    // 23:30 UTC is already tomorrow in Berlin, still today in New York.
    ['2026-11-21T23:30:00Z', 'UTC', '2026-11-21'],
    ['2026-11-21T23:30:00Z', 'Europe/Berlin', '2026-11-22'],
    ['2026-11-21T23:30:00Z', 'America/New_York', '2026-11-21'],
    ['2026-11-22T04:59:59Z', 'America/New_York', '2026-11-21'],
    ['2026-11-22T05:00:00Z', 'America/New_York', '2026-11-22'],
    // Berlin summer time starts 2026-03-29 01:00 UTC: 22:30 UTC that day is 00:30 the next.
    ['2026-03-28T23:30:00Z', 'Europe/Berlin', '2026-03-29'],
    ['2026-03-29T22:30:00Z', 'Europe/Berlin', '2026-03-30'],
    // Berlin winter time from 2026-10-25 01:00 UTC: 22:30 UTC is still the 25th.
    ['2026-10-25T22:30:00Z', 'Europe/Berlin', '2026-10-25'],
    ['2026-10-24T22:30:00Z', 'Europe/Berlin', '2026-10-25'],
    // New York summer time from 2026-03-08: 04:30 UTC on the 9th is 00:30 EDT.
    ['2026-03-09T04:30:00Z', 'America/New_York', '2026-03-09'],
    ['2026-03-08T04:30:00Z', 'America/New_York', '2026-03-07'],
    // New York winter time from 2026-11-01 06:00 UTC.
    ['2026-11-01T04:30:00Z', 'America/New_York', '2026-11-01'],
    ['2026-11-01T03:59:00Z', 'America/New_York', '2026-10-31'],
  ])('at %s in %s today is %s', (now, zone, today) => {
    expect(localDate(new Date(now), zone)).toBe(today);
    expect(dates('today', zone, now)).toEqual([today, today]);
  });

  it('keeps seven calendar days across a DST change', () => {
    expect(dates('last7d', 'Europe/Berlin', '2026-03-31T10:00:00Z')).toEqual(['2026-03-25', '2026-03-31']);
    expect(dates('last7d', 'America/New_York', '2026-11-03T03:00:00Z')).toEqual(['2026-10-27', '2026-11-02']);
  });

  it('turns the month at local midnight', () => {
    expect(dates('mtd', 'Europe/Berlin', '2026-11-30T23:30:00Z')).toEqual(['2026-12-01', '2026-12-01']);
    expect(dates('mtd', 'America/New_York', '2026-12-01T03:00:00Z')).toEqual(['2026-11-01', '2026-11-30']);
    expect(dates('ytd', 'Europe/Berlin', '2026-12-31T23:30:00Z')).toEqual(['2027-01-01', '2027-01-01']);
  });

  it('rejects a bad time zone and a bad clock', () => {
    const bad = resolveRange('today', 'Mars/Olympus_Mons', new Date('2026-11-21T12:00:00Z'));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/time zone `Mars\/Olympus_Mons`/);
    expect(resolveRange('today', '', new Date()).ok).toBe(false);
    expect(resolveRange('today', 'UTC', new Date(Number.NaN)).ok).toBe(false);
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Europe/Nowhere')).toBe(false);
  });
});

describe('resolveRange: leap years', () => {
  it.each([
    ['2024-03-15T12:00:00Z', '2024-02-01', '2024-02-29'],
    ['2023-03-15T12:00:00Z', '2023-02-01', '2023-02-28'],
    ['2000-03-15T12:00:00Z', '2000-02-01', '2000-02-29'],
    ['2100-03-15T12:00:00Z', '2100-02-01', '2100-02-28'],
  ])('lastmonth at %s is %s..%s', (now, start, end) => {
    expect(dates('lastmonth', 'UTC', now)).toEqual([start, end]);
  });

  it('counts Feb 29 in rolling ranges', () => {
    expect(dates('last7d', 'UTC', '2024-03-02T12:00:00Z')).toEqual(['2024-02-25', '2024-03-02']);
    expect(dates('last7d', 'UTC', '2023-03-02T12:00:00Z')).toEqual(['2023-02-24', '2023-03-02']);
    expect(rangeDays(resolved('ytd', 'UTC', '2024-03-01T12:00:00Z'))).toBe(61);
    expect(rangeDays(resolved('ytd', 'UTC', '2023-03-01T12:00:00Z'))).toBe(60);
  });
});

describe('explicit dates', () => {
  it('resolves a span and a single day with plain labels', () => {
    expect(resolved('2024-11-01..2024-11-28', 'Europe/Berlin', '2026-01-01T00:00:00Z')).toEqual({
      startDate: '2024-11-01',
      endDate: '2024-11-28',
      label: 'Nov 1 – Nov 28, 2024',
    });
    expect(resolved('2024-02-29', 'UTC', '2026-01-01T00:00:00Z')).toEqual({
      startDate: '2024-02-29',
      endDate: '2024-02-29',
      label: 'Feb 29, 2024',
    });
    expect(resolved('2024-12-30..2025-01-02', 'UTC', '2026-01-01T00:00:00Z').label).toBe('Dec 30, 2024 – Jan 2, 2025');
  });

  it('does not depend on the time zone or the clock', () => {
    const a = resolved('2024-11-01..2024-11-28', 'Pacific/Kiritimati', '2030-06-01T00:00:00Z');
    const b = resolved('2024-11-01..2024-11-28', 'Pacific/Pago_Pago', '2020-06-01T00:00:00Z');
    expect(a).toEqual(b);
  });

  it.each([
    ['2024-02-30', /not a real date/],
    ['2023-02-29', /not a real date/],
    ['1900-02-29', /not a real date/],
    ['2024-13-01', /not a real date/],
    ['2024-00-10', /not a real date/],
    ['2024-04-31', /not a real date/],
    ['2024-1-5', /form YYYY-MM-DD/],
    ['2024-11-28..2024-11-01', /starts after it ends/],
    ['2024-11-01..', /Unknown range/],
    ['2024-11-01..2024-11-02..2024-11-03', /Unknown range/],
    ['yesterweek', /Unknown range `yesterweek`/],
  ])('rejects %s', (text, error) => {
    const r = normalizeRange(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(error);
    expect(resolveRange(text, 'UTC', new Date('2026-01-01T00:00:00Z')).ok).toBe(false);
  });

  it('normalises without resolving', () => {
    expect(normalizeRange(' 2024-11-01..2024-11-28 ')).toEqual({ ok: true, range: '2024-11-01..2024-11-28' });
    expect(normalizeRange('2000-02-29')).toEqual({ ok: true, range: '2000-02-29' });
    expect(normalizeRange('TODAY')).toEqual({ ok: true, range: 'today' });
  });
});

describe('previousPeriod', () => {
  it.each([
    ['2026-11-15', '2026-11-21', '2026-11-08', '2026-11-14', 'Nov 8 – Nov 14, 2026'],
    ['2024-03-01', '2024-03-01', '2024-02-29', '2024-02-29', 'Feb 29, 2024'],
    ['2024-03-01', '2024-03-31', '2024-01-30', '2024-02-29', 'Jan 30 – Feb 29, 2024'],
    ['2026-01-01', '2026-01-07', '2025-12-25', '2025-12-31', 'Dec 25 – Dec 31, 2025'],
    ['2026-01-01', '2026-01-10', '2025-12-22', '2025-12-31', 'Dec 22 – Dec 31, 2025'],
  ])('%s..%s → %s..%s', (startDate, endDate, prevStart, prevEnd, label) => {
    const prev = previousPeriod({ startDate, endDate });
    expect(prev).toEqual({ startDate: prevStart, endDate: prevEnd, label });
    expect(rangeDays(prev)).toBe(rangeDays({ startDate, endDate }));
  });

  it('follows a resolved range', () => {
    const week = resolved('last7d', 'Europe/Berlin', '2026-11-21T23:30:00Z');
    expect(previousPeriod(week)).toMatchObject({ startDate: '2026-11-09', endDate: '2026-11-15' });
  });

  it('returns an invalid range unchanged instead of throwing', () => {
    expect(previousPeriod({ startDate: 'nope', endDate: '2026-01-01' })).toMatchObject({ startDate: 'nope' });
  });
});

describe("a zone's days and hours in real time", () => {
  const at = (iso: string) => Date.parse(iso);
  const minutes = (date: string, zone: string) =>
    hourSpans(date, zone)!
      .map((h) => [h.hour, h.minutes])
      .filter(([, m]) => m !== 60);

  it('a date begins at its local midnight, or where there is none, at the first instant on it', () => {
    expect(dayStart('2026-11-20', 'UTC')).toBe(at('2026-11-20T00:00:00Z'));
    expect(dayStart('2026-11-21', 'Pacific/Kiritimati')).toBe(at('2026-11-20T10:00:00Z'));
    expect(dayStart('2026-11-20', 'Pacific/Chatham')).toBe(at('2026-11-19T10:15:00Z'));
    // Santiago goes from 00:00 to 01:00 on Sep 6, 2026: the day begins at 01:00.
    expect(dayStart('2026-09-06', 'America/Santiago')).toBe(at('2026-09-06T04:00:00Z'));
    expect(dayStart('2026-11-20', 'Not/AZone')).toBeUndefined();
    expect(dayStart('2026-02-30', 'UTC')).toBeUndefined();
  });

  it('an hour of the day the clocks change lasts what it really lasted: skipped, doubled, or half an hour off', () => {
    expect(hourSpans('2026-11-20', 'Europe/Berlin')).toHaveLength(24);
    expect(minutes('2026-11-20', 'Europe/Berlin')).toEqual([]);
    // Berlin: 02:00 is skipped on Mar 29 and repeated on Oct 25.
    expect(hourSpans('2026-03-29', 'Europe/Berlin')!.map((h) => h.hour)).toEqual([
      0,
      1,
      ...Array.from({ length: 21 }, (_, i) => i + 3),
    ]);
    expect(minutes('2026-10-25', 'Europe/Berlin')).toEqual([[2, 120]]);
    expect(hourSpans('2026-10-25', 'Europe/Berlin')!.find((h) => h.hour === 2)).toMatchObject({
      start: at('2026-10-25T00:00:00Z'),
      end: at('2026-10-25T02:00:00Z'),
    });
    // Lord Howe moves by half an hour: 02:00 lasts 30 minutes on Oct 4, 2026, and 01:00 lasts 90 on Apr 5.
    expect(minutes('2026-10-04', 'Australia/Lord_Howe')).toEqual([[2, 30]]);
    expect(minutes('2026-04-05', 'Australia/Lord_Howe')).toEqual([[1, 90]]);
    // The skipped hour is over when it is skipped; the repeated one when its second pass ends.
    expect(hourEnd('2026-03-29', 2, 'Europe/Berlin')).toBe(at('2026-03-29T01:00:00Z'));
    expect(hourEnd('2026-10-25', 2, 'Europe/Berlin')).toBe(at('2026-10-25T02:00:00Z'));
    expect(hourEnd('2026-11-20', 23, 'Europe/Berlin')).toBe(at('2026-11-20T23:00:00Z'));
  });
});

describe('compactSpan: a span within a chart label (issue 34)', () => {
  it.each([
    ['2026-11-27', '2026-11-27', 'Nov 27, 2026'],
    ['2026-11-21', '2026-11-27', 'Nov 21–27, 2026'],
    ['2026-11-28', '2026-12-14', 'Nov 28–Dec 14, 2026'],
    ['2025-12-29', '2026-01-04', 'Dec 2025–Jan 2026'],
  ])('%s..%s is %s', (start, end, words) => {
    expect(compactSpan(start, end)).toBe(words);
    expect(Array.from(words).length).toBeLessThanOrEqual(20);
  });
});
