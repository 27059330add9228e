/**
 * What a watch measures for a period: the figures come from the trend service (finished
 * periods from the store, fetched once), the top rows and the hour's visits through the
 * shared fetcher, and which visitors are flagged from the threat scan's lookups. The
 * same question asked by many watches in one evaluation is fetched once.
 */
import { REPORTS } from '../../kernel/catalog.js';
import { hourAt, shiftDate } from '../../kernel/dates.js';
import { fieldOf } from '../../kernel/records.js';
import { dayLabel, type ApiDays, type Bucket } from '../../kernel/trend.js';
import { ApiError } from '../../platform/api/errors.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import type { Logger } from '../../platform/log.js';
import type { FlaggedVisitors } from '../alerts/index.js';
import type { TrendService } from '../trends/index.js';
import {
  comparedWith,
  observationOf,
  periodBucket,
  periodLabel,
  type Observation,
  type WatchPeriod,
  type WatchRule,
} from './plan.js';

export interface ObserverDeps {
  trends: Pick<TrendService, 'values'>;
  flagged: Pick<FlaggedVisitors, 'judged'>;
  /** The API's days, for the length of a day the figures are counted per. */
  apiDays: ApiDays;
  log: Logger;
}

/** A watch's workspace: its analytics account's answers, and whose flagged visitors count as bots. */
export type WatchTenant = Pick<Tenant, 'team' | 'account' | 'fetcher'>;

export class WatchObserver {
  constructor(private readonly deps: ObserverDeps) {}

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
    const label = periodLabel(period);
    const { fetcher } = tenant;
    if (rule.metric === 'bots') return this.bots(tenant, period, timeZone, label);
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
        return rows.map((r) => String(fieldOf(r, nameField) ?? ''));
      };
      const [now, before] = await Promise.all([top(period.date), top(shiftDate(period.date, -1))]);
      const entries = now.filter((name) => name && !before.includes(name));
      return { ok: true, value: entries.length, entries, label };
    }
    // The period and what it is compared with, from the trend cache; thrown out as a wait while any is not settled at the API.
    const buckets = [period, ...comparedWith(rule, period, timeZone)].map((p) => periodBucket(p));
    const spec = { report: rule.report, filters: rule.filters, metric: rule.metric, timeZone };
    const { values, unsettled } = await this.deps.trends.values(tenant, spec, buckets, this.deps.log);
    if (unsettled.length > 0) throw new Unsettled(buckets.filter((b) => unsettled.includes(b.key)));
    return observationOf(rule, period, timeZone, this.deps.apiDays, values);
  }

  /** The share of the hour's visits made by visitors the threat scan flagged, among the visits it has judged. */
  private async bots(tenant: WatchTenant, period: WatchPeriod, timeZone: string, label: string): Promise<Observation> {
    // The zone's hour lies within the API's day before, the day or the day after.
    const visits = await tenant.fetcher.visits({
      startDate: shiftDate(period.date, -1),
      endDate: shiftDate(period.date, 1),
    });
    const inHour = visits.filter((v) => {
      const at = v.date ? hourAt(Date.parse(v.date), timeZone) : undefined;
      return at?.date === period.date && at.hour === period.hour;
    });
    if (inHour.length === 0) return { ok: true, value: 0, label };
    const ids = [...new Set(inHour.map((v) => v.visitor_id).filter((id): id is string => typeof id === 'string'))];
    const judged = await this.deps.flagged.judged(tenant, ids);
    if (!judged)
      return {
        ok: false,
        error: 'The threat scan is off, so no visitor has been judged: turn it on with /traffic alerts on.',
      };
    const checked = inHour.filter((v) => v.visitor_id && judged.checked.has(v.visitor_id));
    if (checked.length === 0)
      return { ok: false, error: `None of the hour's ${inHour.length} visits has been judged by the threat scan yet.` };
    const flagged = checked.filter((v) => judged.flagged.has(v.visitor_id!)).length;
    return {
      ok: true,
      value: (flagged / checked.length) * 100,
      label: `${label} (${flagged} of ${checked.length} judged visits)`,
    };
  }
}

/** Figures not to be judged by yet: an empty answer between periods with visits, or one that did not come whole. */
class Unsettled extends Error {
  constructor(buckets: Bucket[]) {
    super(
      `The analytics API's figures for ${buckets.map((b) => (b.hour === undefined ? dayLabel(b.startDate) : `${dayLabel(b.startDate)} ${b.label}`)).join(', ')} are not settled yet (an empty or partial answer): they are asked again shortly.`,
    );
  }
}
