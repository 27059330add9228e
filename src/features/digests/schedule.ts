/**
 * Digest schedules: what a person chose (daily at 09:00, Mondays…) ↔ a cron
 * expression, the schedule in words, and its runs in an IANA time zone.
 * cron-parser does the calendar (DST included): a 09:00 digest is at 09:00
 * local on both sides of a change, never twice, never skipped.
 */
import { CronExpressionParser } from 'cron-parser';
import { WEEKDAYS } from '../../kernel/dates.js';
import { parseTimeOfDay } from '../../kernel/when.js';

export type ScheduleKind = 'daily' | 'weekdays' | 'weekly' | 'monthly' | 'cron';

export interface DigestSchedule {
  kind: ScheduleKind;
  /** HH:MM, 24-hour, local to the digest's zone (not for cron). */
  time?: string;
  /** 0 (Sunday) … 6, for weekly. */
  weekday?: number;
  /** 1 … 28, for monthly (29–31 do not exist every month). */
  monthday?: number;
  /** Five fields, for cron. */
  cron?: string;
}

export { WEEKDAYS };

export type ScheduleResult = { ok: true; cron: string } | { ok: false; error: string };

/** A schedule → its 5-field cron expression, or what is wrong with it. */
export function toCron(schedule: DigestSchedule): ScheduleResult {
  if (schedule.kind === 'cron') {
    const expr = (schedule.cron ?? '').trim().replace(/\s+/g, ' ');
    if (expr.split(' ').length !== 5)
      return {
        ok: false,
        error: 'A cron expression has five fields: minute hour day-of-month month day-of-week, like `0 9 * * 1`.',
      };
    try {
      CronExpressionParser.parse(expr, { strict: false });
    } catch (error) {
      return {
        ok: false,
        error: `That cron expression does not parse: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    return { ok: true, cron: expr };
  }
  const time = parseTimeOfDay(schedule.time ?? '');
  if (!time.ok) return time;
  const { hour, minute } = time.time;
  switch (schedule.kind) {
    case 'daily':
      return { ok: true, cron: `${minute} ${hour} * * *` };
    case 'weekdays':
      return { ok: true, cron: `${minute} ${hour} * * 1-5` };
    case 'weekly': {
      const day = schedule.weekday;
      if (day === undefined || !Number.isInteger(day) || day < 0 || day > 6)
        return { ok: false, error: 'Pick a day of the week.' };
      return { ok: true, cron: `${minute} ${hour} * * ${day}` };
    }
    case 'monthly': {
      const date = schedule.monthday;
      if (date === undefined || !Number.isInteger(date) || date < 1 || date > 28)
        return { ok: false, error: 'Pick a day of the month from 1 to 28.' };
      return { ok: true, cron: `${minute} ${hour} ${date} * *` };
    }
  }
}

function ordinal(n: number): string {
  const suffix =
    n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

/** "every day at 09:00", "weekdays at 09:00", "Mondays at 09:00", "the 1st of each month at 09:00", "cron 0 9 * * 1". */
export function scheduleInWords(schedule: DigestSchedule, timeZone: string): string {
  const at = `at ${schedule.time ?? '?'} (${timeZone})`;
  switch (schedule.kind) {
    case 'daily':
      return `every day ${at}`;
    case 'weekdays':
      return `weekdays ${at}`;
    case 'weekly':
      return `${WEEKDAYS[schedule.weekday ?? 0]}s ${at}`;
    case 'monthly':
      return `the ${ordinal(schedule.monthday ?? 1)} of each month ${at}`;
    case 'cron':
      return `cron ${schedule.cron ?? ''} (${timeZone})`;
  }
}

/**
 * The latest run at or before `at` (undefined when there is none in the last year).
 * Runs are defined by next(): cron-parser's prev() disagrees with it across DST
 * changes (it skips the shifted run after spring forward and yields the repeated
 * hour's second occurrence), so prev() only finds a starting point two runs back.
 */
export function previousRun(cron: string, timeZone: string, at: Date): Date | undefined {
  const back = CronExpressionParser.parse(cron, { currentDate: new Date(at.getTime() + 1), tz: timeZone });
  let start: Date;
  try {
    back.prev();
    start = back.prev().toDate();
  } catch {
    return undefined;
  }
  const forward = CronExpressionParser.parse(cron, { currentDate: new Date(start.getTime() - 1), tz: timeZone });
  let latest: Date | undefined;
  for (let i = 0; i < 10_000; i++) {
    const run = forward.next().toDate();
    if (run.getTime() > at.getTime()) break;
    latest = run;
  }
  return latest && at.getTime() - latest.getTime() <= 366 * 86_400_000 ? latest : undefined;
}

/** The first run after `after` (undefined when the expression has none). */
export function nextRun(cron: string, timeZone: string, after: Date): Date | undefined {
  try {
    return CronExpressionParser.parse(cron, { currentDate: after, tz: timeZone }).next().toDate();
  } catch {
    return undefined;
  }
}

/**
 * The shortest time between two runs of `cron`, from its first `runs` runs after `from`
 * (a cron repeats within a year, and any gap shorter than `floorMs` ends the search early).
 */
export function shortestGap(cron: string, timeZone: string, from: Date, floorMs = 0, runs = 600): number {
  let shortest = Infinity;
  try {
    const it = CronExpressionParser.parse(cron, { currentDate: from, tz: timeZone });
    let last = it.next().toDate().getTime();
    for (let i = 1; i < runs && shortest >= floorMs; i++) {
      const run = it.next().toDate().getTime();
      shortest = Math.min(shortest, run - last);
      last = run;
    }
  } catch {
    /* fewer runs than asked for (a date that comes once): what was seen stands */
  }
  return shortest;
}
