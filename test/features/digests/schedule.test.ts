import { describe, expect, it } from 'vitest';
import { CronExpressionParser } from 'cron-parser';
import { defaultPeriod } from '../../../src/features/digests/period.js';
import { previousRun, scheduleInWords, toCron, type DigestSchedule } from '../../../src/features/digests/cron.js';

/** The next runs as cron-parser's next() gives them: the definition previousRun is built on. */
function nextRuns(cron: string, timeZone: string, from: Date, count = 1): Date[] {
  return CronExpressionParser.parse(cron, { currentDate: from, tz: timeZone })
    .take(count)
    .map((d) => d.toDate());
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const formats = new Map<string, Intl.DateTimeFormat>();

/** What a wall clock in `timeZone` shows at `at`: date, HH:MM, weekday and the zone's short name. */
function local(at: Date, timeZone: string): { date: string; time: string; weekday: string; zone: string } {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      weekday: 'long',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    formats.set(timeZone, f);
  }
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(at)) p[part.type] = part.value;
  return {
    date: `${p.year}-${p.month}-${p.day}`,
    time: `${p.hour}:${p.minute}`,
    weekday: p.weekday ?? '',
    zone: p.timeZoneName ?? '',
  };
}

const gaps = (runs: Date[]) => runs.slice(1).map((r, i) => (r.getTime() - runs[i]!.getTime()) / HOUR);

/** Every calendar day from `first`, `count` of them, as YYYY-MM-DD. */
function days(first: string, count: number): string[] {
  const start = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(start + i * DAY).toISOString().slice(0, 10));
}

function cronOf(schedule: DigestSchedule): string {
  const result = toCron(schedule);
  if (!result.ok) throw new Error(result.error);
  return result.cron;
}

describe('toCron', () => {
  it.each<[DigestSchedule, string]>([
    [{ kind: 'daily', time: '09:00' }, '0 9 * * *'],
    [{ kind: 'daily', time: '9:05' }, '5 9 * * *'],
    [{ kind: 'daily', time: '00:00' }, '0 0 * * *'],
    [{ kind: 'daily', time: '23:59' }, '59 23 * * *'],
    [{ kind: 'weekdays', time: '07:30' }, '30 7 * * 1-5'],
    [{ kind: 'weekly', time: '09:00', weekday: 1 }, '0 9 * * 1'],
    [{ kind: 'weekly', time: '18:45', weekday: 0 }, '45 18 * * 0'],
    [{ kind: 'weekly', time: '09:00', weekday: 6 }, '0 9 * * 6'],
    [{ kind: 'monthly', time: '09:00', monthday: 1 }, '0 9 1 * *'],
    [{ kind: 'monthly', time: '06:15', monthday: 28 }, '15 6 28 * *'],
    [{ kind: 'cron', cron: '0 9 * * 1' }, '0 9 * * 1'],
    [{ kind: 'cron', cron: '  */15   9-17 * *  1-5 ' }, '*/15 9-17 * * 1-5'],
    [{ kind: 'cron', cron: '0 9 * * 1', time: 'not used' }, '0 9 * * 1'],
    [{ kind: 'daily', time: '9:00am' }, '0 9 * * *'],
    [{ kind: 'monthly', time: 'noon', monthday: 1 }, '0 12 1 * *'],
  ])('%j → %s', (schedule, cron) => {
    expect(toCron(schedule)).toEqual({ ok: true, cron });
  });

  it.each<[string, DigestSchedule, RegExp]>([
    ['no time', { kind: 'daily' }, /At what time\?.*09:00.*9am/],
    ['an hour past 23', { kind: 'daily', time: '24:00' }, /hours go from 00 to 23.*Midnight is `00:00`/],
    ['minutes past 59', { kind: 'weekdays', time: '09:60' }, /minutes from 00 to 59/],
    ['no colon', { kind: 'daily', time: '0900' }, /Did you mean `09:00`\?/],
    ['13 with pm', { kind: 'daily', time: '13pm' }, /1 to 12.*Did you mean `13:00`\?/],
    ['a word', { kind: 'monthly', time: 'teatime', monthday: 1 }, /not a time of day: say 09:00/],
    ['weekly without a day', { kind: 'weekly', time: '09:00' }, /day of the week/],
    ['weekday 7', { kind: 'weekly', time: '09:00', weekday: 7 }, /day of the week/],
    ['weekday -1', { kind: 'weekly', time: '09:00', weekday: -1 }, /day of the week/],
    ['weekday 1.5', { kind: 'weekly', time: '09:00', weekday: 1.5 }, /day of the week/],
    ['monthday 29 (not in every month)', { kind: 'monthly', time: '09:00', monthday: 29 }, /1 to 28/],
    ['monthday 0', { kind: 'monthly', time: '09:00', monthday: 0 }, /1 to 28/],
    ['monthly without a day', { kind: 'monthly', time: '09:00' }, /1 to 28/],
    ['cron with 4 fields', { kind: 'cron', cron: '0 9 * *' }, /five fields.*`0 9 \* \* 1`/],
    ['cron with 6 fields (seconds)', { kind: 'cron', cron: '0 0 9 * * 1' }, /five fields/],
    ['an empty cron', { kind: 'cron', cron: '' }, /five fields/],
    ['no cron at all', { kind: 'cron' }, /five fields/],
    ['garbage cron', { kind: 'cron', cron: 'a b c d e' }, /does not parse/],
    ['cron minute 61', { kind: 'cron', cron: '61 9 * * *' }, /does not parse/],
    ['cron weekday 8', { kind: 'cron', cron: '0 9 * * 8' }, /does not parse/],
    ['cron on a day that never comes (Feb 30)', { kind: 'cron', cron: '0 9 30 2 *' }, /does not parse/],
  ])('refuses %s', (_name, schedule, message) => {
    const result = toCron(schedule);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });
});

describe('scheduleInWords', () => {
  it.each<[DigestSchedule, string, string]>([
    [{ kind: 'daily', time: '09:00' }, 'Europe/Berlin', 'every day at 09:00 (Europe/Berlin)'],
    [{ kind: 'weekdays', time: '07:30' }, 'UTC', 'weekdays at 07:30 (UTC)'],
    [{ kind: 'weekly', time: '09:00', weekday: 1 }, 'Europe/Berlin', 'Mondays at 09:00 (Europe/Berlin)'],
    [{ kind: 'weekly', time: '18:00', weekday: 0 }, 'America/New_York', 'Sundays at 18:00 (America/New_York)'],
    [{ kind: 'weekly', time: '18:00', weekday: 6 }, 'UTC', 'Saturdays at 18:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 1 }, 'UTC', 'the 1st of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 2 }, 'UTC', 'the 2nd of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 3 }, 'UTC', 'the 3rd of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 11 }, 'UTC', 'the 11th of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 12 }, 'UTC', 'the 12th of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 13 }, 'UTC', 'the 13th of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 21 }, 'UTC', 'the 21st of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 22 }, 'UTC', 'the 22nd of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 23 }, 'UTC', 'the 23rd of each month at 09:00 (UTC)'],
    [{ kind: 'monthly', time: '09:00', monthday: 28 }, 'UTC', 'the 28th of each month at 09:00 (UTC)'],
    [{ kind: 'cron', cron: '0 9 * * 1' }, 'America/New_York', 'cron 0 9 * * 1 (America/New_York)'],
  ])('%j in %s → %s', (schedule, zone, words) => {
    expect(scheduleInWords(schedule, zone)).toBe(words);
  });
});

describe('defaultPeriod', () => {
  it('daily and weekday digests report the day, weekly the week, monthly the month', () => {
    expect(defaultPeriod('daily')).toBe('day');
    expect(defaultPeriod('weekdays')).toBe('day');
    expect(defaultPeriod('cron')).toBe('day');
    expect(defaultPeriod('weekly')).toBe('week');
    expect(defaultPeriod('monthly')).toBe('month');
  });
});

describe('nextRuns across daylight-saving changes', () => {
  const cases = [
    {
      zone: 'Europe/Berlin',
      change: 'spring forward',
      from: '2026-03-25T12:00:00Z',
      firstDay: '2026-03-26',
      changeDay: '2026-03-29',
      gap: 23,
    },
    {
      zone: 'Europe/Berlin',
      change: 'fall back',
      from: '2026-10-21T12:00:00Z',
      firstDay: '2026-10-22',
      changeDay: '2026-10-25',
      gap: 25,
    },
    {
      zone: 'America/New_York',
      change: 'spring forward',
      from: '2026-03-04T18:00:00Z',
      firstDay: '2026-03-05',
      changeDay: '2026-03-08',
      gap: 23,
    },
    {
      zone: 'America/New_York',
      change: 'fall back',
      from: '2026-10-28T18:00:00Z',
      firstDay: '2026-10-29',
      changeDay: '2026-11-01',
      gap: 25,
    },
  ];

  it.each(cases)(
    '0 9 * * * in $zone across the $change on $changeDay: 09:00 local every day, none missing, none twice',
    ({ zone, from, firstDay, changeDay, gap }) => {
      const runs = nextRuns('0 9 * * *', zone, new Date(from), 8);
      expect(runs).toHaveLength(8);
      const seen = runs.map((r) => local(r, zone));
      expect(seen.map((s) => s.time)).toEqual(Array(8).fill('09:00'));
      // One run on each calendar day in a row: nothing skipped, nothing doubled.
      expect(seen.map((s) => s.date)).toEqual(days(firstDay, 8));
      // 24 hours apart, except the night of the change: 23 h in spring, 25 h in autumn.
      const changeIndex = seen.findIndex((s) => s.date === changeDay);
      expect(changeIndex).toBe(3);
      const expected = Array(7).fill(24);
      expected[changeIndex - 1] = gap;
      expect(gaps(runs)).toEqual(expected);
      // The zone's offset really did change between the first and the last run.
      expect(seen[0]!.zone).not.toBe(seen[7]!.zone);
    },
  );

  it('Berlin 02:30 does not exist on 2026-03-29 (02:00 → 03:00): that day runs once, at 03:30 CEST, an hour later on the wall clock', () => {
    const runs = nextRuns('30 2 * * *', 'Europe/Berlin', new Date('2026-03-27T00:00:00Z'), 4);
    expect(runs.map((r) => r.toISOString())).toEqual([
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:30:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
    expect(runs.map((r) => local(r, 'Europe/Berlin').date)).toEqual(days('2026-03-27', 4));
    expect(runs.map((r) => local(r, 'Europe/Berlin').time)).toEqual(['02:30', '02:30', '03:30', '02:30']);
  });

  it('Berlin 02:30 happens twice on 2026-10-25 (03:00 → 02:00): that day runs once, at the first 02:30 (CEST, 00:30 UTC)', () => {
    const runs = nextRuns('30 2 * * *', 'Europe/Berlin', new Date('2026-10-24T00:00:00Z'), 3);
    expect(runs.map((r) => r.toISOString())).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
    expect(runs.map((r) => local(r, 'Europe/Berlin').time)).toEqual(['02:30', '02:30', '02:30']);
    expect(runs.map((r) => local(r, 'Europe/Berlin').date)).toEqual(days('2026-10-24', 3));
    // Not again at the second 02:30 (CET, 01:30 UTC).
    expect(runs.map((r) => r.toISOString())).not.toContain('2026-10-25T01:30:00.000Z');
  });

  it('New York 02:30 does not exist on 2026-03-08: that day runs once, at 03:30 EDT', () => {
    const runs = nextRuns('30 2 * * *', 'America/New_York', new Date('2026-03-07T00:00:00Z'), 3);
    expect(runs.map((r) => local(r, 'America/New_York').date)).toEqual(days('2026-03-07', 3));
    expect(runs.map((r) => local(r, 'America/New_York').time)).toEqual(['02:30', '03:30', '02:30']);
    expect(runs[1]!.toISOString()).toBe('2026-03-08T07:30:00.000Z');
  });

  it('New York 01:30 happens twice on 2026-11-01: that day runs once, at the first 01:30 (EDT, 05:30 UTC)', () => {
    const runs = nextRuns('30 1 * * *', 'America/New_York', new Date('2026-10-31T00:00:00Z'), 3);
    expect(runs.map((r) => r.toISOString())).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
    expect(runs.map((r) => local(r, 'America/New_York').time)).toEqual(['01:30', '01:30', '01:30']);
  });

  it('starts strictly after `from`: a run exactly at `from` is not repeated', () => {
    const run = new Date('2026-03-29T07:00:00Z');
    expect(nextRuns('0 9 * * *', 'Europe/Berlin', run, 1)[0]!.toISOString()).toBe('2026-03-30T07:00:00.000Z');
    expect(nextRuns('0 9 * * *', 'Europe/Berlin', new Date(run.getTime() - 1), 1)[0]!.toISOString()).toBe(
      run.toISOString(),
    );
  });
});

describe('nextRuns of the other schedule kinds', () => {
  it('weekly on Monday at 09:00 Berlin: every Monday 09:00 local, 7 days apart less the hour lost on 2026-03-29', () => {
    const runs = nextRuns(
      cronOf({ kind: 'weekly', weekday: 1, time: '09:00' }),
      'Europe/Berlin',
      new Date('2026-03-14T00:00:00Z'),
      4,
    );
    const seen = runs.map((r) => local(r, 'Europe/Berlin'));
    expect(seen.map((s) => `${s.weekday} ${s.date} ${s.time}`)).toEqual([
      'Monday 2026-03-16 09:00',
      'Monday 2026-03-23 09:00',
      'Monday 2026-03-30 09:00',
      'Monday 2026-04-06 09:00',
    ]);
    expect(gaps(runs)).toEqual([168, 167, 168]);
  });

  it('monthly on the 1st at 09:00 New York: the 1st of each month, 09:00 local before and after the change', () => {
    const runs = nextRuns(
      cronOf({ kind: 'monthly', monthday: 1, time: '09:00' }),
      'America/New_York',
      new Date('2026-01-15T00:00:00Z'),
      4,
    );
    expect(runs.map((r) => `${local(r, 'America/New_York').date} ${local(r, 'America/New_York').time}`)).toEqual([
      '2026-02-01 09:00',
      '2026-03-01 09:00',
      '2026-04-01 09:00',
      '2026-05-01 09:00',
    ]);
    expect(runs.map((r) => r.toISOString())).toEqual([
      '2026-02-01T14:00:00.000Z',
      '2026-03-01T14:00:00.000Z',
      '2026-04-01T13:00:00.000Z',
      '2026-05-01T13:00:00.000Z',
    ]);
  });

  it('monthly on the 28th runs in February too', () => {
    const runs = nextRuns(
      cronOf({ kind: 'monthly', monthday: 28, time: '09:00' }),
      'UTC',
      new Date('2026-01-29T00:00:00Z'),
      2,
    );
    expect(runs.map((r) => r.toISOString())).toEqual(['2026-02-28T09:00:00.000Z', '2026-03-28T09:00:00.000Z']);
  });

  it('weekdays at 09:00 Berlin from a Friday: Friday, then Monday to Friday, no weekend', () => {
    const runs = nextRuns(
      cronOf({ kind: 'weekdays', time: '09:00' }),
      'Europe/Berlin',
      new Date('2026-03-27T00:00:00Z'),
      7,
    );
    expect(
      runs.map(
        (r) =>
          `${local(r, 'Europe/Berlin').weekday} ${local(r, 'Europe/Berlin').date} ${local(r, 'Europe/Berlin').time}`,
      ),
    ).toEqual([
      'Friday 2026-03-27 09:00',
      'Monday 2026-03-30 09:00',
      'Tuesday 2026-03-31 09:00',
      'Wednesday 2026-04-01 09:00',
      'Thursday 2026-04-02 09:00',
      'Friday 2026-04-03 09:00',
      'Monday 2026-04-06 09:00',
    ]);
  });

  it('the same cron in two zones runs at different instants', () => {
    const from = new Date('2026-06-01T00:00:00Z');
    const [berlin] = nextRuns('0 9 * * *', 'Europe/Berlin', from);
    const [newYork] = nextRuns('0 9 * * *', 'America/New_York', from);
    expect(berlin!.toISOString()).toBe('2026-06-01T07:00:00.000Z');
    expect(newYork!.toISOString()).toBe('2026-06-01T13:00:00.000Z');
  });
});

describe('previousRun', () => {
  const cron = '0 9 * * *';
  const zone = 'Europe/Berlin';
  const run = new Date('2026-03-29T07:00:00Z'); // 09:00 CEST, the first morning of summer time
  const dayBefore = '2026-03-28T08:00:00.000Z'; // 09:00 CET

  it('at a run: that run', () => {
    expect(previousRun(cron, zone, run)?.toISOString()).toBe(run.toISOString());
  });

  it('just after a run (1 ms, 1 s, an hour): that run', () => {
    for (const later of [1, 1000, HOUR]) {
      expect(previousRun(cron, zone, new Date(run.getTime() + later))?.toISOString()).toBe(run.toISOString());
    }
  });

  it('just before a run (1 ms, 500 ms, 1 s): the run before it, never one still to come', () => {
    for (const earlier of [1, 500, 1000]) {
      expect(previousRun(cron, zone, new Date(run.getTime() - earlier))?.toISOString()).toBe(dayBefore);
    }
  });

  it('across the change: 23 hours after the previous run is still the previous run', () => {
    expect(previousRun(cron, zone, new Date('2026-03-29T06:59:00Z'))?.toISOString()).toBe(dayBefore);
  });

  it('undefined when the last run is more than a year ago (Feb 29 seen from mid-2026)', () => {
    expect(previousRun('0 9 29 2 *', 'UTC', new Date('2026-06-01T00:00:00Z'))).toBeUndefined();
    expect(previousRun('0 9 29 2 *', 'UTC', new Date('2024-06-01T00:00:00Z'))?.toISOString()).toBe(
      '2024-02-29T09:00:00.000Z',
    );
  });

  it('agrees with nextRuns: the previous run of the instant before a next run is the one before it', () => {
    const from = new Date('2026-10-20T00:00:00Z');
    const runs = nextRuns('0 9 * * 1-5', 'America/New_York', from, 12);
    for (let i = 1; i < runs.length; i++) {
      expect(previousRun('0 9 * * 1-5', 'America/New_York', new Date(runs[i]!.getTime() - 1))?.toISOString()).toBe(
        runs[i - 1]!.toISOString(),
      );
      expect(previousRun('0 9 * * 1-5', 'America/New_York', runs[i]!)?.toISOString()).toBe(runs[i]!.toISOString());
    }
  });
});
