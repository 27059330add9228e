import { REPORTS } from '../../kernel/catalog.js';
import { formatCount } from '../../kernel/format.js';
import type { ReportQuery } from '../../kernel/query.js';
import { fieldOf, textOf } from '../../kernel/records.js';
import {
  begunCount,
  encodeTrendRef,
  finalAt,
  planTrend,
  summarize,
  trendSource,
  type Bucket,
  type Trend,
  type TrendMetric,
  type TrendSpec,
  withBack,
} from '../../kernel/trend.js';
import { resolveRange } from '../../kernel/range-dates.js';
import type { Answering, Where } from '../../platform/answering.js';
import { ApiError } from '../../platform/api/errors.js';
import type { Logger } from '../../platform/log.js';
import { withinQuota } from '../../platform/quota.js';
import { LIMITS } from '../../platform/slack/kit/limits.js';
import { problemMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { Account, Tenant } from '../../platform/tenancy/tenants.js';
import { trendMessage, type Share } from './blocks.js';
import { figureOf, TrendPeriods, type TrendPeriodsDeps } from './periods.js';
import type { TrendSeriesKey } from './repo.js';

export type { Trend, TrendSpec };

/** Where buttons find their query (the report service's refs), in the workspace they were made in. */
export interface Refs {
  ref(team: string, query: ReportQuery, max: number): Promise<string>;
  resolve(team: string, ref: string | undefined): Promise<ReportQuery | null>;
}

/** The analytics account a trend's periods are asked of (and kept for). */
export type TrendSource = Pick<Account, 'account' | 'fetcher'>;

/** The workspace a trend is asked in: its account, and its team (whose stash its buttons' long queries go to). */
export type TrendTenant = TrendSource & Pick<Tenant, 'team'>;

export interface TrendServiceDeps extends Answering, TrendPeriodsDeps {
  refs: Refs;
  /** The most periods not kept yet one trend may fetch (TREND_MAX_FETCH). */
  maxFetch?: number;
}

export const DEFAULT_TREND_MAX_FETCH = 200;

/** A trend's message; answered, also what it charts and its figures (for an agent's). */
export type TrendAnswer =
  { ok: true; message: SlackMessage; spec: TrendSpec; trend: Trend } | { ok: false; message: SlackMessage };

/** Cold periods (not kept yet) fetched for a trend without a word; past this, the person is told how many and how it goes. */
export const TREND_QUIET_FETCH = 31;

/** Where a trend's periods are kept: its account, the report its figures sum, its filters and zone. */
function seriesKey(from: TrendSource, spec: Omit<TrendSpec, 'range'>): TrendSeriesKey {
  return { account: from.account, report: trendSource(spec.report), filters: spec.filters, timeZone: spec.timeZone };
}

/**
 * Trends: per-period totals built from per-period report requests (the API has no time
 * series), their periods kept by TrendPeriods (periods.ts); and the answer to
 * `/traffic trend …` and the Trend buttons.
 */
export class TrendService {
  private readonly periods: TrendPeriods;

  constructor(private readonly deps: TrendServiceDeps) {
    this.periods = new TrendPeriods(deps);
  }

  get log(): Logger {
    return this.deps.log;
  }

  /** The query a button from workspace `team` carries (inline or stashed), or null when it is tampered with, forgotten or another workspace's. */
  resolve(team: string, ref: string | undefined): Promise<ReportQuery | null> {
    return this.deps.refs.resolve(team, ref);
  }

  async series(from: TrendSource, spec: TrendSpec, log: Logger = this.deps.log, onUnit?: () => void): Promise<Trend> {
    const plan = planTrend(spec.range, this.deps.weekStart);
    const source = trendSource(spec.report);
    const { figures } = await this.periods.figures(
      from.fetcher,
      seriesKey(from, spec),
      [...plan.buckets, ...plan.previous],
      log,
      onUnit ? { onUnit } : {},
    );
    const values = (buckets: Bucket[]) => buckets.map((b) => figureOf(figures, b.key, spec.metric));
    const last = finalAt(plan.buckets[plan.buckets.length - 1]!, spec.timeZone, this.deps.apiDays);
    return {
      plan,
      source,
      current: summarize(values(plan.buckets), plan.buckets),
      previous: summarize(values(plan.previous), plan.previous),
      partial: last === undefined || last > this.deps.now().getTime(),
      begun: begunCount(plan.buckets, this.deps.now(), spec.timeZone),
    };
  }

  /**
   * The figures of any buckets (hours, days, weeks) of a report's rows: kept ones from the
   * store, the rest fetched, each confirmed whole (a chart takes a first read; what is judged
   * by does not); and which of them are not to be judged by yet.
   */
  async values(
    from: TrendSource,
    spec: Omit<TrendSpec, 'range'>,
    buckets: readonly Bucket[],
    log: Logger = this.deps.log,
  ): Promise<{ values: number[]; unsettled: string[] }> {
    const { figures, unsettled } = await this.periods.figures(from.fetcher, seriesKey(from, spec), buckets, log, {
      whole: true,
    });
    return {
      values: buckets.map((b) => figureOf(figures, b.key, spec.metric)),
      unsettled: buckets.filter((b) => unsettled.has(b.key)).map((b) => b.key),
    };
  }

  /**
   * The API requests `values` costs for these buckets' periods not kept yet (the quota's estimate):
   * two each, as figures a watch judges by are confirmed whole by the request past their last page.
   */
  async cost(from: TrendSource, spec: Omit<TrendSpec, 'range'>, buckets: readonly Bucket[]): Promise<number> {
    return (await this.periods.cold(seriesKey(from, spec), buckets, this.deps.log)) * 2;
  }

  /** The top rows' share of the period's visits, for a pie: the five largest and the rest. */
  async share(from: TrendSource, spec: TrendSpec, total: number): Promise<Share | undefined> {
    const def = REPORTS[spec.report];
    if (spec.metric !== 'visits' || !def.countField || total <= 0) return undefined;
    const rows = await from.fetcher.report(def.id, {
      startDate: spec.range.startDate,
      endDate: spec.range.endDate,
      filterGroups: spec.filters,
      page: 1,
      limit: 5,
      sort: { key: def.countField, value: -1 },
    });
    const nameField = def.rowFilter?.rowField ?? def.columns[0]!.field;
    const top = rows
      .map((r) => ({ name: textOf(fieldOf(r, nameField)), value: Number(fieldOf(r, def.countField!)) || 0 }))
      .filter((s) => s.value > 0);
    const rest = total - top.reduce((n, s) => n + s.value, 0);
    return { def, top, rest: rest > 0 ? rest : 0, total };
  }

  /** The periods a trend must fetch before it can answer (an hourly day counts once). */
  async coldPeriods(from: TrendSource, spec: TrendSpec): Promise<number> {
    const plan = planTrend(spec.range, this.deps.weekStart);
    return this.periods.cold(seriesKey(from, spec), [...plan.buckets, ...plan.previous], this.deps.log);
  }

  /** `/traffic trend …` and the Trend buttons: the chart, its key figures in words, and what to do next. */
  async answer(tenant: TrendTenant, query: ReportQuery, metric: TrendMetric, where: Where): Promise<TrendAnswer> {
    const log = where.log ?? this.deps.log;
    const timeZone = await this.deps.timeZoneFor(where.channelId);
    const resolved = resolveRange(query.range, timeZone, this.deps.now(), this.deps.weekStart);
    if (!resolved.ok) return { ok: false, message: problemMessage(resolved.error, 'Pick another range.') };
    const spec: TrendSpec = { report: query.report, filters: query.filters, metric, range: resolved.range, timeZone };
    const withShare = query.report === trendSource(query.report);
    const cold = await this.coldPeriods(tenant, spec);
    const cap = this.deps.maxFetch ?? DEFAULT_TREND_MAX_FETCH;
    if (cold > cap) {
      return {
        ok: false,
        message: problemMessage(
          `That trend needs ${formatCount(cold)} periods Lookout has not kept yet; one trend fetches at most ${formatCount(cap)} (TREND_MAX_FETCH).`,
          'Ask for a shorter range (the periods it fetches are kept, so a longer one gets cheaper after), or weeks instead of days: `ytd` and `last365d` chart weeks.',
        ),
      };
    }
    let done = 0;
    let told = false;
    const onUnit = () => {
      done++;
      if (!told && cold > TREND_QUIET_FETCH && done >= cold / 2) {
        told = true;
        void where
          .progress?.(`Fetching ${formatCount(cold)} periods Lookout has not kept yet: ${formatCount(done)} done…`)
          .catch(() => undefined);
      }
    };
    if (cold > TREND_QUIET_FETCH)
      await where
        .progress?.(
          `Fetching ${formatCount(cold)} periods Lookout has not kept yet (they are kept after, so this is a one-time wait)…`,
        )
        .catch(() => undefined);
    const fetched = await withinQuota(
      this.deps.quota,
      tenant.team,
      where.user,
      cold + (withShare ? 1 : 0),
      async () => {
        const trend = await this.series(tenant, spec, log, onUnit);
        const share = withShare
          ? await this.share(tenant, { ...spec, range: trend.plan.range }, trend.current.total)
          : undefined;
        return { trend, share };
      },
    ).catch((error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      log.warn({ report: query.report, kind: error.kind, status: error.info.status }, 'trend failed');
      return { ok: false as const, problem: error.message };
    });
    if (!fetched.ok) return { ok: false, message: problemMessage(fetched.problem) };
    const { trend, share } = fetched.value;
    const back = where.ephemeral ? where.back : undefined;
    const ref = await this.deps.refs.ref(tenant.team, query, LIMITS.buttonValue - 4 - (back ? back.length + 1 : 0));
    return {
      ok: true,
      spec,
      trend,
      message: trendMessage({
        spec,
        trend,
        ...(share ? { share } : {}),
        timeZone,
        apiZone: this.deps.apiDays.timeZone,
        demo: this.deps.demo,
        ephemeral: where.ephemeral,
        ...(where.sharedBy ? { sharedBy: where.sharedBy } : {}),
        ref: encodeTrendRef(metric, ref),
        tableRef: withBack(ref, back),
        ...(back ? { back } : {}),
      }),
    };
  }
}
