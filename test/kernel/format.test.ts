import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bar,
  formatCount,
  formatDateTime,
  formatDelta,
  formatDuration,
  nounFor,
  partsInZone,
} from '../../src/kernel/format.js';
import { clip, quoteInput } from '../../src/kernel/text.js';

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1234, '1,234'],
    [1234567, '1,234,567'],
    [-4321, '-4,321'],
    [12.6, '13'],
    [undefined, '—'],
    [Number.NaN, '—'],
    [Number.POSITIVE_INFINITY, '—'],
  ])('formatCount(%s) = %s', (n, text) => {
    expect(formatCount(n)).toBe(text);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [0.4, '0s'],
    [45, '45s'],
    [59.6, '1m 00s'],
    [92, '1m 32s'],
    [605, '10m 05s'],
    [3599.6, '1h 00m'],
    [3725, '1h 02m'],
    [86_399, '23h 59m'],
    [90_061, '1d 01h'],
    [undefined, '—'],
    [null, '—'],
    [Number.NaN, '—'],
    [-5, '—'],
  ])('%s seconds → %s', (s, text) => {
    expect(formatDuration(s)).toBe(text);
  });
});

describe('formatDelta', () => {
  it.each([
    [112, 100, '▲ 12%'],
    [95, 100, '▼ 5%'],
    [100, 100, '–'],
    [0, 0, '–'],
    [5, 0, 'new'],
    [5, undefined, 'new'],
    [0, undefined, '–'],
    [0, 100, '▼ 100%'],
    [100.5, 100, '▲ <1%'],
    [99.5, 100, '▼ <1%'],
    [3000, 100, '▲ 2,900%'],
    [undefined, 5, '—'],
  ])('%s against %s → %s', (current, previous, text) => {
    expect(formatDelta(current, previous)).toBe(text);
  });
});

describe('bar', () => {
  it.each([
    [55, 100, 10, '█████▌    '],
    [100, 100, 10, '██████████'],
    [250, 100, 10, '██████████'],
    [0, 100, 10, '          '],
    [1, 1000, 10, '▏         '],
    [50, 100, 4, '██  '],
    [1, 3, 3, '█  '],
    [10, 0, 5, '     '],
    [undefined, 100, 3, '   '],
  ])('bar(%s, %s, %s)', (value, max, width, text) => {
    expect(bar(value, max, width)).toBe(text);
  });

  it('is always exactly width characters and grows with the value', () => {
    let previous = -1;
    for (let v = 0; v <= 100; v++) {
      const b = bar(v, 100, 12);
      expect(Array.from(b)).toHaveLength(12);
      const filled = b.trimEnd().length;
      expect(filled).toBeGreaterThanOrEqual(previous);
      previous = filled;
    }
  });

  it('defaults to ten cells', () => {
    expect(bar(3, 10)).toBe('███       ');
  });
});

describe('formatDateTime', () => {
  const now = new Date('2026-11-22T10:00:00Z');
  it.each([
    ['2026-11-21T14:05:00Z', 'UTC', 'Nov 21, 14:05'],
    ['2026-11-21T14:05:00Z', 'Europe/Berlin', 'Nov 21, 15:05'],
    ['2026-11-21T14:05:00Z', 'America/New_York', 'Nov 21, 09:05'],
    ['2026-11-21T23:30:00.123Z', 'Europe/Berlin', 'Nov 22, 00:30'],
    ['2026-11-21 14:05:00', 'UTC', 'Nov 21, 14:05'],
    ['2026-11-21T14:05', 'Europe/Berlin', 'Nov 21, 15:05'],
    ['2026-11-21T14:05:00+01:00', 'UTC', 'Nov 21, 13:05'],
    ['2026-11-21T14:05:00+0100', 'UTC', 'Nov 21, 13:05'],
    ['2025-11-21T14:05:00Z', 'UTC', 'Nov 21, 2025, 14:05'],
    ['2026-07-04', 'America/New_York', 'Jul 4'],
    ['2025-06-01', 'UTC', 'Jun 1, 2025'],
  ])('%s in %s → %s', (iso, zone, text) => {
    expect(formatDateTime(iso, zone, now)).toBe(text);
  });

  it('judges the current year in the given zone', () => {
    const newYear = new Date('2027-01-01T12:00:00Z');
    expect(formatDateTime('2026-12-31T23:30:00Z', 'Europe/Berlin', newYear)).toBe('Jan 1, 00:30');
    expect(formatDateTime('2026-12-31T23:30:00Z', 'UTC', newYear)).toBe('Dec 31, 2026, 23:30');
  });

  it.each(['', 'yesterday', 'Nov 21 2026', '2024-02-30T10:00:00Z', '2024-13-01', '1700000000', '2026-11-21T25:00Z'])(
    'returns bad input %j unchanged',
    (input) => {
      expect(formatDateTime(input, 'UTC', now)).toBe(input);
    },
  );

  it('returns the input for a bad time zone', () => {
    expect(formatDateTime('2026-11-21T14:05:00Z', 'Not/AZone', now)).toBe('2026-11-21T14:05:00Z');
  });
});

describe('clip and quoteInput', () => {
  it('leaves short text alone and cuts long text with an ellipsis', () => {
    expect(clip('hello', 5)).toBe('hello');
    expect(clip('hello world', 5)).toBe('hell…');
    expect(clip('hello world', 7)).toBe('hello…');
    expect(clip('abc', 0)).toBe('');
  });

  it('counts code points and never splits an emoji', () => {
    const text = '👍👍👍👍';
    expect(text.length).toBe(8);
    expect(clip(text, 4)).toBe(text);
    const cut = clip(text, 3);
    expect(cut).toBe('👍👍…');
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(clip('a😀b😀c', 4)).toBe('a😀b…');
  });

  it('makes input safe for a one-line code span', () => {
    expect(quoteInput('a`b\nc')).toBe("a'b c");
    expect(Array.from(quoteInput('x'.repeat(100)))).toHaveLength(40);
  });
});

describe('partsInZone (cached offsets) agrees with Intl for any instant', () => {
  const ZONES = [
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'Asia/Kathmandu',
    'America/St_Johns',
    'Pacific/Chatham',
    'Africa/Casablanca',
  ];
  const direct = (ms: number, zone: string) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    }).formatToParts(new Date(ms));
    return Object.fromEntries(parts.filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
  };
  it("is right in a quarter hour with a change inside it: St John's went to summer time at 00:01 local in 1992 (found by the property below)", () => {
    for (const ms of [702444600000, 702444660000, 702445440000, 702445500000])
      expect(partsInZone(new Date(ms), 'America/St_Johns', true)).toEqual(direct(ms, 'America/St_Johns'));
  });

  it('matches formatToParts across DST changes in zones with odd offsets', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) }),
        fc.constantFrom(...ZONES),
        (ms, zone) => {
          expect(partsInZone(new Date(ms), zone, true)).toEqual(direct(ms, zone));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('nounFor agrees with English plural rules as Intl has them', () => {
    const rules = new Intl.PluralRules('en-US');
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.constantFrom(1, -1, 0, 1.5, -0)), (n) => {
        expect(nounFor(n, 'visit')).toBe(rules.select(n) === 'one' ? 'visit' : 'visits');
      }),
    );
  });

  it('formatCount groups whole numbers as Intl does', () => {
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(formatCount(n)).toBe(new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(n));
      }),
    );
  });
});
