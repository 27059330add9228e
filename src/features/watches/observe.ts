/**
 * What a watch measures for a period: the figures come from the trend service (finished
 * periods from the store, fetched once), the top rows and the hour's visits through the
 * shared fetcher, and which visitors are flagged from the threat watch's lookups. The
 * same question asked by many watches in one evaluation is fetched once.
 */
import { REPORTS } from '../../kernel/catalog.js';
import { localDate, shiftDate, WEEKDAYS } from '../../kernel/dates.js';
import { fieldOf } from '../../kernel/records.js';
import { dayLabel, hourIn, type Bucket } from '../../kernel/trend.js';
import { ApiError } from '../../platform/api/errors.js';
import type { SharedFetcher } from '../../platform/api/shared-fetcher.js';
import type { Logger } from '../../platform/log.js';
import type { FlaggedVisitors } from '../alerts/service.js';
import type { TrendService } from '../trends/service.js';
import { median, periodBefore, periodBucket, SPIKE_WEEKS, type Observation, type WatchPeriod, type WatchRule } from './plan.js';

export interface ObserverDeps {
  trends: TrendService;
  fetcher: SharedFetcher;
  flagged: Pick<FlaggedVisitors, 'judged'>;
  log: Logger;
}

function periodLabel(period: WatchPeriod): string {
  if (period.hour === undefined) return `on ${dayLabel(period.date)}`;
  const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
  return `${hh(period.hour)}–${hh(period.hour + 1)} on ${dayLabel(period.date)}`;
}

function weekdayOf(date: string): string {
  return WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()] ?? '';
}

export class WatchObserver {
  constructor(private readonly deps: ObserverDeps) {}

  async observe(rule: WatchRule, period: WatchPeriod, timeZone: string): Promise<Observation> {
    try {
      return await this.measure(rule, period, timeZone);
    } catch (error) {
      if (error instanceof Unsettled) return { ok: false, wait: true, error: error.message };
      if (!(error instanceof ApiError)) throw error;
      return { ok: false, error: error.message };
    }
  }

  private async measure(rule: WatchRule, period: WatchPeriod, timeZone: string): Promise<Observation> {
    const label = periodLabel(period);
    if (rule.metric === 'bots') return this.bots(period, timeZone, label);
    const spec = { report: rule.report, filters: rule.filters, metric: rule.metric, timeZone };
    const c = rule.condition;
    const unit = period.hour === undefined ? 'day' : 'hour';
    /** The figures of these buckets; thrown out as a wait while any is not settled at the API. */
    const figures = async (buckets: Bucket[]) => {
      const { values, unsettled } = await this.deps.trends.values(spec, buckets, this.deps.log);
      if (unsettled.length > 0) throw new Unsettled(buckets.filter((b) => unsettled.includes(b.key)));
      return values;
    };
    switch (c.kind) {
      case 'above':
      case 'below': {
        const [value] = await figures([periodBucket(period)]);
        return { ok: true, value: value ?? 0, label };
      }
      case 'change': {
        const base = c.against === 'last_week' ? periodBucket(period, 7) : periodBucket(periodBefore(period));
        const [value, baseline] = await figures([periodBucket(period), base]);
        const baselineLabel = c.against === 'last_week' ? `the same ${unit} last week` : `the ${unit} before`;
        return { ok: true, value: value ?? 0, baseline: baseline ?? 0, label, baselineLabel };
      }
      case 'spike': {
        const buckets = [0, ...Array.from({ length: SPIKE_WEEKS }, (_, i) => 7 * (i + 1))].map((d) => periodBucket(period, d));
        const [value, ...before] = await figures(buckets);
        const usual = median(before);
        const when = `${weekdayOf(period.date)}${period.hour === undefined ? '' : ` ${String(period.hour).padStart(2, '0')}:00`}`;
        return { ok: true, value: value ?? 0, ...(usual === undefined ? {} : { baseline: usual }), label, baselineLabel: when };
      }
      case 'new': {
        const def = REPORTS[rule.report];
        const nameField = def.rowFilter!.rowField;
        const top = async (date: string) => {
          const rows = await this.deps.fetcher.report(def.id, { startDate: date, endDate: date, filterGroups: rule.filters, page: 1, limit: c.top, sort: { key: def.countField!, value: -1 } });
          return rows.map((r) => String(fieldOf(r, nameField) ?? ''));
        };
        const [now, before] = await Promise.all([top(period.date), top(shiftDate(period.date, -1))]);
        const entries = now.filter((name) => name && !before.includes(name));
        return { ok: true, value: entries.length, entries, label };
      }
    }
  }

  /** The share of the hour's visits made by visitors the threat watch flagged, among the visits it has judged. */
  private async bots(period: WatchPeriod, timeZone: string, label: string): Promise<Observation> {
    // The zone's hour lies within the API's day before, the day or the day after.
    const visits = await this.deps.fetcher.visits({ startDate: shiftDate(period.date, -1), endDate: shiftDate(period.date, 1) });
    const inHour = visits.filter((v) => v.date && localDate(new Date(v.date), timeZone) === period.date && hourIn(v.date, timeZone) === period.hour);
    if (inHour.length === 0) return { ok: true, value: 0, label };
    const ids = [...new Set(inHour.map((v) => v.visitor_id).filter((id): id is string => typeof id === 'string'))];
    const judged = await this.deps.flagged.judged(ids);
    if (!judged) return { ok: false, error: 'The threat watch is off, so no visitor has been judged: turn it on with /traffic alerts on.' };
    const checked = inHour.filter((v) => v.visitor_id && judged.checked.has(v.visitor_id));
    if (checked.length === 0) return { ok: false, error: `None of the hour's ${inHour.length} visits has been judged by the threat watch yet.` };
    const flagged = checked.filter((v) => judged.flagged.has(v.visitor_id!)).length;
    return { ok: true, value: (flagged / checked.length) * 100, label: `${label} (${flagged} of ${checked.length} judged visits)` };
  }
}

/** Figures not to be judged by yet: an empty answer between periods with visits, or one that did not come whole. */
class Unsettled extends Error {
  constructor(buckets: Bucket[]) {
    super(`The analytics API's figures for ${buckets.map((b) => (b.hour === undefined ? dayLabel(b.startDate) : `${dayLabel(b.startDate)} ${b.label}`)).join(', ')} are not settled yet (an empty or partial answer): they are asked again shortly.`);
  }
}
