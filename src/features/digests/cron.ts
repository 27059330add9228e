/**
 * Digest schedules: what a person chose (daily at 09:00, Mondays…) ↔ a cron
 * expression, the schedule in words, and its runs in an IANA time zone.
 * cron-parser does the calendar (DST included): a 09:00 digest is at 09:00
 * local on both sides of a change, never twice, never skipped.
 */
import { createRequire } from 'node:module';
import type { CronExpressionParser } from 'cron-parser';
import { WEEKDAYS } from '../../kernel/dates.js';
import { parseTimeOfDay } from '../../kernel/time-of-day.js';
import { zoneOffset } from '../../kernel/format.js';

let parser: typeof CronExpressionParser | undefined;
/** cron-parser, loaded at first use: a Lookout with no digest does without it and Luxon (0.9 MB, bench/memory.ts). */
function cronParser(): typeof CronExpressionParser {
  return (parser ??= (createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser'))
    .CronExpressionParser);
}

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
      cronParser().parse(expr, { strict: false });
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
  const back = cronParser().parse(cron, { currentDate: new Date(at.getTime() + 1), tz: timeZone });
  let start: Date;
  try {
    back.prev();
    start = back.prev().toDate();
  } catch {
    return undefined;
  }
  const forward = cronParser().parse(cron, { currentDate: new Date(start.getTime() - 1), tz: timeZone });
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
    return cronParser().parse(cron, { currentDate: after, tz: timeZone }).next().toDate();
  } catch {
    return undefined;
  }
}

const DAY_MS = 86_400_000;
/** How far ahead the structural check looks for the zone's offset changes (DST rules repeat yearly). */
const HORIZON_DAYS = 731;

/**
 * What a cron's structure says about its gaps: `naiveMs`, the shortest step between its
 * local times of day (seconds, minutes, hours; restricting days only ever lengthens it);
 * `shiftMs`, the most the zone's offset moves within two years of `from`; `changes`, the
 * starts of the days (UTC) in that time within which the offset changes. Two runs at
 * different local times are at least `naiveMs - shiftMs` apart (each is its local time less
 * one of the zone's offsets), and exactly their local difference when no change lies
 * between them. Undefined for a zone or expression that does not parse.
 */
export function gapStructure(
  cron: string,
  timeZone: string,
  from: Date,
): { naiveMs: number; shiftMs: number; changes: Date[] } | undefined {
  let fields;
  try {
    fields = cronParser().parse(cron, { strict: false }).fields;
  } catch {
    return undefined;
  }
  const step = (values: readonly number[], period: number) => {
    let shortest = period - values[values.length - 1]! + values[0]!;
    for (let i = 1; i < values.length; i++) shortest = Math.min(shortest, values[i]! - values[i - 1]!);
    return shortest;
  };
  const seconds = fields.second.values as readonly number[];
  const minutes = fields.minute.values as readonly number[];
  const hours = fields.hour.values as readonly number[];
  const naiveS =
    seconds.length > 1
      ? step(seconds, 60)
      : minutes.length > 1
        ? step(minutes, 60) * 60
        : hours.length > 1
          ? step(hours, 24) * 3600
          : 86_400;
  const changes: Date[] = [];
  let lowest = Infinity;
  let highest = -Infinity;
  let previous: number | undefined;
  const start = Math.floor(from.getTime() / DAY_MS) * DAY_MS;
  for (let day = 0; day <= HORIZON_DAYS; day++) {
    const offset = zoneOffset(start + day * DAY_MS, timeZone);
    if (offset === undefined) return undefined;
    if (previous !== undefined && offset !== previous) changes.push(new Date(start + (day - 1) * DAY_MS));
    previous = offset;
    lowest = Math.min(lowest, offset);
    highest = Math.max(highest, offset);
  }
  return { naiveMs: naiveS * 1000, shiftMs: highest - lowest, changes };
}

/**
 * The shortest time between two runs of `cron` after `from` (a cron repeats within a year;
 * the search ends early at a gap shorter than `floorMs`, which is then the answer).
 *
 * With a floor, its structure decides first (gapStructure): when no gap can be below the
 * floor, that bound (at least `floorMs`) is the answer at once; when only a gap across an
 * offset change (DST) can be, the runs around each change in the next two years are looked
 * at, earliest first. Otherwise, and with no floor, its first `runs` runs are.
 */
export function shortestGap(cron: string, timeZone: string, from: Date, floorMs = 0, runs = 600): number {
  const structure = floorMs > 0 ? gapStructure(cron, timeZone, from) : undefined;
  if (structure && structure.naiveMs - structure.shiftMs >= floorMs) return structure.naiveMs - structure.shiftMs;
  if (structure && structure.naiveMs >= floorMs) return gapAcrossChanges(cron, timeZone, from, floorMs, structure);
  let shortest = Infinity;
  try {
    const it = cronParser().parse(cron, { currentDate: from, tz: timeZone });
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

/** The shortest gap between runs around the offset changes (each a day from `changes`); at least `naiveMs` elsewhere. */
function gapAcrossChanges(
  cron: string,
  timeZone: string,
  from: Date,
  floorMs: number,
  { naiveMs, changes }: { naiveMs: number; changes: Date[] },
): number {
  let shortest = naiveMs;
  for (const day of changes) {
    const dayEnd = day.getTime() + DAY_MS;
    const before = previousRun(cron, timeZone, day);
    // The old search starts after `from`; around a change, at the last run before it.
    const start = before && before.getTime() > from.getTime() ? new Date(before.getTime() - 1) : from;
    try {
      const it = cronParser().parse(cron, { currentDate: start, tz: timeZone });
      let last = it.next().toDate().getTime();
      while (last <= dayEnd) {
        const run = it.next().toDate().getTime();
        if (run - last < floorMs) return run - last;
        shortest = Math.min(shortest, run - last);
        last = run;
      }
    } catch {
      /* no run after this change: nothing more to see */
    }
  }
  return shortest;
}
