import { formatSpan, localDate, shiftDate, type DateRange } from '../../kernel/dates.js';
import type { ScheduleKind } from './cron.js';

/** The period a digest reports on: the day, the 7 days or the month before it runs. */
export type DigestPeriod = 'day' | 'week' | 'month';

export function periodOf(value: string): DigestPeriod {
  return value === 'week' || value === 'month' ? value : 'day';
}

/** The default period for a schedule: daily digests report the day before, weekly the week, monthly the month. */
export function defaultPeriod(kind: ScheduleKind): DigestPeriod {
  return kind === 'weekly' ? 'week' : kind === 'monthly' ? 'month' : 'day';
}

/** The period a digest covers when it runs at `now`: the day, 7 days or calendar month before today. */
export function digestRange(period: DigestPeriod, timeZone: string, now: Date): DateRange {
  const today = localDate(now, timeZone) ?? now.toISOString().slice(0, 10);
  const yesterday = shiftDate(today, -1);
  if (period === 'month') {
    const last = shiftDate(`${today.slice(0, 8)}01`, -1);
    const first = `${last.slice(0, 8)}01`;
    return { startDate: first, endDate: last, label: `Last month (${formatSpan(first, last)})` };
  }
  const startDate = period === 'week' ? shiftDate(today, -7) : yesterday;
  const label = period === 'week' ? 'The 7 days before today' : 'Yesterday';
  return { startDate, endDate: yesterday, label: `${label} (${formatSpan(startDate, yesterday)})` };
}
