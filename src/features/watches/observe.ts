/**
 * What a watch measures for a period: the figures come from the trend service (finished
 * periods from the store, fetched once), the top rows and the hour's visits through the
 * shared fetcher, and which visitors are flagged from the threat scan's lookups. The
 * same question asked by many watches in one evaluation is fetched once.
 */
import { REPORTS } from '../../kernel/catalog.js';
import { apiDatesOf, dayStart, hourAt, hourEnd, shiftDate, type Zones } from '../../kernel/dates.js';
import type { FilterGroup } from '../../kernel/filters.js';
import { fieldOf, textOf, type VisitRecord } from '../../kernel/records.js';
import type { ApiDays, Bucket, TrendSpec } from '../../kernel/trend.js';
import { ApiError } from '../../platform/api/errors.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import type { Logger } from '../../platform/log.js';
import type { Verdicts } from '../threats/index.js';
import type { TrendService } from '../trends/index.js';
import { comparedWith, observationOf, type Observation, type WatchRule } from './plan.js';
import { periodBucket, periodLabel, type WatchPeriod, type Period } from './period.js';

/**
 * How far back the threat scan's verdicts on visitors are asked for: it keeps them for hours
 * (its recheck interval), so periods further back than this count as not judged.
 */
export const VERDICTS_KEPT_MS = 24 * 3_600_000;

/** A period's visits and what the threat scan made of their visitors. */
export interface JudgedVisits {
  visits: VisitRecord[];
  /** The threat scan is on in the workspace (when off, no visitor is judged). */
  scanOn: boolean;
  /** Visitors the scan has a verdict on, and those it flagged (threat, scraper, VPN abuser). */
  checked: Set<string>;
  flagged: Set<string>;
}

/** Visits by flagged visitors, and visits whose visitor has a verdict. */
export function judgedCounts(j: JudgedVisits): { visits: number; judgedVisits: number; flaggedVisits: number } {
  let judgedVisits = 0;
  let flaggedVisits = 0;
  for (const v of j.visits) {
    if (!v.visitor_id || !j.checked.has(v.visitor_id)) continue;
    judgedVisits++;
    if (j.flagged.has(v.visitor_id)) flaggedVisits++;
  }
  return { visits: j.visits.length, judgedVisits, flaggedVisits };
}

export interface ObserverDeps {
  trends: Pick<TrendService, 'values'>;
  flagged: Pick<Verdicts, 'judged'>;
  /** The API's days, for the length of a day the figures are counted per. */
  apiDays: ApiDays;
  log: Logger;
}

/** A watch's workspace: its analytics account's answers, and whose flagged visitors count as bots. */
export type WatchTenant = Pick<Tenant, 'team' | 'account' | 'fetcher' | 'api'>;

export class WatchObserver {
  constructor(private readonly deps: ObserverDeps) {}

  /** The watched visits (its report and filters) in each period, from the trend cache (finished periods kept once); undefined while any is unsettled. */
  async totals(
    tenant: WatchTenant,
    periods: readonly Pick<WatchPeriod, 'date' | 'hour'>[],
    timeZone: string,
    of: Pick<WatchRule, 'report' | 'filters'>,
  ): Promise<number[] | undefined> {
    const spec = { report: of.report, filters: of.filters, metric: 'visits' as const, timeZone };
    const buckets = periods.map((p) => periodBucket(p));
    const { values, unsettled } = await this.deps.trends.values(tenant, spec, buckets, this.deps.log);
    return unsettled.length > 0 ? undefined : values;
  }

  /**
   * A period's visits (an hour in the zone, or the API's day), those matching `filters`, and the
   * threat scan's verdicts on their visitors (none while the scan is off).
   */
  async judgedVisits(
    tenant: WatchTenant,
    period: Pick<WatchPeriod, 'date' | 'hour'>,
    timeZone: string,
    filters: FilterGroup[] = [],
  ): Promise<JudgedVisits> {
    const hourly = period.hour !== undefined;
    // An hour is read from its day's visits, asked exactly as the trend cache asks (the API's dates
    // the zone's day lies in), so within the fetcher's minute the two share one answer.
    const all = await tenant.fetcher.visits({
      ...(hourly
        ? apiDatesOf(period.date, timeZone, this.deps.apiDays.timeZone)
        : { startDate: period.date, endDate: period.date }),
      filterGroups: filters,
    });
    const visits = hourly
      ? all.filter((v) => {
          const at = v.date ? hourAt(Date.parse(v.date), timeZone) : undefined;
          return at?.date === period.date && at.hour === period.hour;
        })
      : all;
    const ids = [...new Set(visits.map((v) => v.visitor_id).filter((id): id is string => typeof id === 'string'))];
    const judged = await this.deps.flagged.judged(tenant, ids);
    return judged
      ? { visits, scanOn: true, ...judged }
      : { visits, scanOn: false, checked: new Set(), flagged: new Set() };
  }

  /** `tenant`: the watch's workspace, and its analytics account. */
  async observe(tenant: WatchTenant, rule: WatchRule, period: WatchPeriod, timeZone: string): Promise<Observation> {
    try {
      return await this.measure(tenant, rule, period, timeZone);
    } catch (error) {
      if (error instanceof Unsettled) return { ok: false, wait: true, error: error.message };
      if (!(error instanceof ApiError)) throw error;
      return { ok: false, error: error.message };
    }
  }

  private async measure(
    tenant: WatchTenant,
    rule: WatchRule,
    period: WatchPeriod,
    timeZone: string,
  ): Promise<Observation> {
    const zones = { timeZone, apiZone: this.deps.apiDays.timeZone };
    const { fetcher } = tenant;
    if (rule.metric === 'bots') return this.bots(tenant, period, zones);
    const c = rule.condition;
    if (c.kind === 'new') {
      const def = REPORTS[rule.report];
      const nameField = def.rowFilter!.rowField;
      const top = async (date: string) => {
        const rows = await fetcher.report(def.id, {
          startDate: date,
          endDate: date,
          filterGroups: rule.filters,
          page: 1,
          limit: c.top,
          sort: { key: def.countField!, value: -1 },
        });
        return rows.map((r) => textOf(fieldOf(r, nameField)));
      };
      const [now, before] = await Promise.all([top(period.date), top(shiftDate(period.date, -1))]);
      const entries = now.filter((name) => name && !before.includes(name));
      // The top rows are the API's day's: an hourly watch reads its day so far.
      const label = periodLabel({ date: period.date }, zones, period.hour === undefined ? undefined : 'the day so far');
      return { ok: true, value: entries.length, entries, label };
    }
    // The period and what it is compared with, from the trend cache; thrown out as a wait while any is not settled at the API.
    const figures = (await this.figuresOf(tenant, rule, [period], timeZone))[0]!;
    if (figures instanceof Unsettled) throw figures;
    if (!rule.who) return observationOf(rule, period, timeZone, this.deps.apiDays, figures);
    return this.byWhom(tenant, rule, period, timeZone, figures);
  }

  /**
   * Each period's figures and those it is compared with (`comparedWith`), from one read of the
   * trend cache; an Unsettled for a period whose figures are not settled at the API.
   */
  private async figuresOf(
    tenant: WatchTenant,
    rule: WatchRule,
    periods: readonly Period[],
    timeZone: string,
  ): Promise<(number[] | Unsettled)[]> {
    const zones = { timeZone, apiZone: this.deps.apiDays.timeZone };
    const wanted = periods.map((p) => [p, ...comparedWith(rule, p, timeZone)].map((q) => periodBucket(q)));
    const { spec, buckets } = trendAsk(rule, periods, timeZone);
    const { values, unsettled } = await this.deps.trends.values(tenant, spec, buckets, this.deps.log);
    const figure = new Map(buckets.map((b, i) => [b.key, values[i] ?? 0]));
    return wanted.map((own) => {
      const waiting = own.filter((b) => unsettled.includes(b.key));
      if (waiting.length > 0)
        return new Unsettled(waiting.map((b) => periodLabel({ date: b.startDate, hour: b.hour }, zones)));
      return own.map((b) => figure.get(b.key) ?? 0);
    });
  }

  /**
   * What the watch would have observed in each of these past periods, as `observe` observes one
   * (the same figures, baselines and "unknown"): from one read of the trend cache. Figures not
   * settled are unknown, as the evaluator records them once its wait is over. Only a rule whose
   * figures the trend cache keeps can look back: not `new`, `bots` or visits by people or bots
   * (the threat scan keeps its verdicts for hours).
   */
  async history(
    tenant: WatchTenant,
    rule: WatchRule,
    periods: readonly Period[],
    timeZone: string,
  ): Promise<Observation[]> {
    if (!canLookBack(rule)) throw new Error('this rule cannot look back');
    try {
      const all = await this.figuresOf(tenant, rule, periods, timeZone);
      return all.map((figures, i) =>
        figures instanceof Unsettled
          ? { ok: false, error: figures.message }
          : observationOf(rule, periods[i]!, timeZone, this.deps.apiDays, figures),
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return periods.map(() => ({ ok: false, error: error.message }));
    }
  }

  /**
   * Visits by people (visits less those by visitors the threat scan flagged) or by bots (those
   * visits): each period's total less, or only, its flagged visitors' visits. A period older
   * than the scan's verdicts counts no visit as flagged: for people its usual is all visits
   * (said so), for bots a usual cannot be told (unknown).
   */
  private async byWhom(
    tenant: WatchTenant,
    rule: WatchRule,
    period: WatchPeriod,
    timeZone: string,
    totals: readonly number[],
  ): Promise<Observation> {
    const periods = [period, ...comparedWith(rule, period, timeZone)];
    const judgedSince = period.dueAt - VERDICTS_KEPT_MS;
    let unjudged = 0;
    const figures: number[] = [];
    for (const [i, p] of periods.entries()) {
      const total = totals[i] ?? 0;
      const ended =
        (p.hour === undefined ? dayStart(shiftDate(p.date, 1), timeZone) : hourEnd(p.date, p.hour, timeZone)) ?? 0;
      if (i > 0 && ended < judgedSince) {
        // All the baseline's visits counted as people's would make a drop of people out of bots leaving.
        if (rule.who === 'bots' || (rule.condition.kind === 'change' && rule.condition.direction === 'drops'))
          return {
            ok: false,
            error: `The usual visits by ${rule.who} are not known: the threat scan keeps its verdicts on visitors for hours, not for the days or weeks this watch compares with.`,
          };
        unjudged++;
        figures.push(total);
        continue;
      }
      const judged = await this.judgedVisits(tenant, p, timeZone);
      if (!judged.scanOn)
        return {
          ok: false,
          error: `Visits by ${rule.who} need the threat scan, which is off: turn it on with /traffic alerts on.`,
        };
      const { flaggedVisits } = judgedCounts(judged);
      figures.push(rule.who === 'bots' ? flaggedVisits : Math.max(0, total - flaggedVisits));
    }
    const o = observationOf(rule, period, timeZone, this.deps.apiDays, figures);
    if (!o.ok || unjudged === 0 || !o.baselineLabel) return o;
    return {
      ...o,
      baselineLabel: `${o.baselineLabel} (all its visits: the threat scan's verdicts are not kept that long)`,
    };
  }

  /** The share of the hour's visits made by visitors the threat scan flagged, among the visits it has judged. */
  private async bots(tenant: WatchTenant, period: WatchPeriod, zones: Zones): Promise<Observation> {
    const judged = await this.judgedVisits(tenant, period, zones.timeZone);
    if (judged.visits.length === 0) return { ok: true, value: 0, label: periodLabel(period, zones) };
    if (!judged.scanOn)
      return {
        ok: false,
        error: 'The threat scan is off, so no visitor has been judged: turn it on with /traffic alerts on.',
      };
    const { visits, judgedVisits, flaggedVisits } = judgedCounts(judged);
    if (judgedVisits === 0)
      return { ok: false, error: `None of the hour's ${visits} visits has been judged by the threat scan yet.` };
    return {
      ok: true,
      value: (flaggedVisits / judgedVisits) * 100,
      label: periodLabel(period, zones, `${flaggedVisits} of ${judgedVisits} judged visits`),
    };
  }
}

/** What the trend cache is asked for these periods of a rule: its series and the buckets of the periods and those they are compared with. */
export function trendAsk(
  rule: WatchRule,
  periods: readonly Period[],
  timeZone: string,
): { spec: Omit<TrendSpec, 'range'>; buckets: Bucket[] } {
  const all = periods.flatMap((p) => [p, ...comparedWith(rule, p, timeZone)].map((q) => periodBucket(q)));
  const metric = rule.metric === 'unique' ? 'unique' : 'visits';
  return {
    spec: { report: rule.report, filters: rule.filters, metric, timeZone },
    buckets: [...new Map(all.map((b) => [b.key, b])).values()],
  };
}

/** Can a preview look back over this rule's past (are its figures kept)? */
export function canLookBack(rule: WatchRule): boolean {
  return rule.metric !== 'bots' && !rule.who && rule.condition.kind !== 'new';
}

/** Figures not to be judged by yet: an empty answer between periods with visits, or one that did not come whole. */
class Unsettled extends Error {
  /** `periods`: each in words, with its zone ("10:00–11:00 on Nov 22 (Europe/Berlin)", "on Nov 22 (in UTC, …)"). */
  constructor(periods: string[]) {
    super(
      `The analytics API's figures ${periods.join(', ')} are not settled yet (an empty or partial answer): they are asked again shortly.`,
    );
  }
}
