import fc from 'fast-check';
import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { gapStructure, shortestGap } from '../../../src/features/digests/cron.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * The search shortestGap did before it looked at a cron's structure: every run in order,
 * ending at the first gap below the floor. Bounded here by time (the two years the new one
 * looks at) rather than by 600 runs, so both look at the same runs.
 */
function everyRun(cron: string, timeZone: string, from: Date, floorMs: number): number {
  const end = from.getTime() + 731 * DAY;
  let shortest = Infinity;
  try {
    const it = CronExpressionParser.parse(cron, { currentDate: from, tz: timeZone });
    let last = it.next().toDate().getTime();
    while (last <= end && shortest >= floorMs) {
      const run = it.next().toDate().getTime();
      shortest = Math.min(shortest, run - last);
      last = run;
    }
  } catch {
    /* a date that comes once */
  }
  return shortest;
}

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Sydney',
  'Europe/London', // (not Australia/Lord_Howe: cron-parser 5 cannot step past its 30-minute change)
  'Antarctica/Troll', // a 2-hour change
  'Asia/Kolkata',
];

/** Digests' crons: a few times a day at most (so every run of two years is affordable), any days. */
const cron = fc
  .record({
    minutes: fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 2 }),
    hours: fc.uniqueArray(fc.integer({ min: 0, max: 23 }), { minLength: 1, maxLength: 2 }),
    days: fc.constantFrom('* * *', '* * 0', '* * 1-5', '* * 6,0', '1 * *', '*/2 * *', '25-31 3,10 *', '* 3 0'),
  })
  .map(({ minutes, hours, days }) => `${minutes.join(',')} ${hours.join(',')} ${days}`);

describe('shortestGap from a cron’s structure', () => {
  it('refuses exactly what every run of two years refuses, with the same gap', () => {
    fc.assert(
      fc.property(
        cron,
        fc.constantFrom(...ZONES),
        fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2028-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom(15 * 60_000, HOUR, 2 * HOUR, 6 * HOUR, DAY),
        (expr, zone, from, floor) => {
          const fast = shortestGap(expr, zone, from, floor);
          const slow = everyRun(expr, zone, from, floor);
          expect(fast < floor).toBe(slow < floor);
          if (slow < floor) expect(fast).toBe(slow);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('finds a gap a DST change shortens: 01:00 and 03:00 are an hour apart on the night clocks go forward', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    expect(shortestGap('0 1,3 * * *', 'Europe/Berlin', from, 2 * HOUR)).toBe(HOUR);
    // …and only that night: an hour's floor takes it.
    expect(shortestGap('0 1,3 * * *', 'Europe/Berlin', from, HOUR)).toBeGreaterThanOrEqual(HOUR);
    expect(shortestGap('0 9,10 * * *', 'Europe/Berlin', from, 2 * HOUR)).toBe(HOUR);
  });

  it('bounds a daily digest from its structure alone: a day less the zone’s change', () => {
    const from = new Date('2026-11-24T00:00:00Z');
    expect(gapStructure('0 9 * * *', 'Europe/Berlin', from)).toMatchObject({ naiveMs: DAY, shiftMs: HOUR });
    expect(gapStructure('0 9 * * *', 'Europe/Berlin', from)!.changes).toHaveLength(4);
    expect(gapStructure('0 9 * * *', 'Asia/Kolkata', from)).toMatchObject({ naiveMs: DAY, shiftMs: 0, changes: [] });
    expect(gapStructure('*/20 9 * * 1-5', 'UTC', from)).toMatchObject({ naiveMs: 20 * 60_000 });
    expect(gapStructure('0 9 * * *', 'Mars/Olympus', from)).toBeUndefined();
    expect(shortestGap('0 9 * * *', 'Europe/Berlin', from, HOUR)).toBe(23 * HOUR);
  });
});
