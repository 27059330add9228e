import pLimit from 'p-limit';
import { REPORTS, type ReportId } from '../../kernel/catalog.js';
export type { Trend, TrendSpec };
import { localDate, resolveRange, shiftDate } from '../../kernel/dates.js';
import type { FilterGroup } from '../../kernel/filters.js';
import type { ReportQuery } from '../../kernel/query.js';
import { fieldOf } from '../../kernel/records.js';
import { encodeTrendRef, hourIn, hoursOf, isFinished, planTrend, summarize, trendSource, type Bucket, type Trend, type TrendMetric, type TrendSpec } from '../../kernel/trend.js';
import type { Answering } from '../../platform/answering.js';
import { ApiError } from '../../platform/api/errors.js';
import type { SharedFetcher } from '../../platform/api/shared-fetcher.js';
import type { Logger } from '../../platform/log.js';
import { withinQuota } from '../../platform/quota.js';
import { formatCount } from '../../kernel/format.js';
import { LIMITS } from '../../platform/slack/kit/limits.js';
import { problemMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import { trendMessage, type Share } from './blocks.js';
import type { TrendRepo, TrendSeriesKey } from './repo.js';

/** One request to the API and the buckets its answer fills: a day or week, or a day's 24 hours. */
interface Unit {
  key: string;
  startDate: string;
  endDate: string;
  hourly: boolean;
  buckets: Bucket[];
  finished: boolean;
}

type Figures = Map<string, number>;
const at = (bucket: string, metric: TrendMetric) => `${bucket}|${metric}`;

/** Where buttons find their query (the report service's refs). */
export interface Refs {
  ref(query: ReportQuery, max: number): Promise<string>;
  resolve(ref: string | undefined): Promise<ReportQuery | null>;
}

export interface TrendServiceDeps extends Answering {
  fetcher: SharedFetcher;
  repo: TrendRepo;
  refs: Refs;
  /** Requests a first fill makes at once. */
  concurrency?: number;
  /** Told how many periods came from the store, from the API, or met a store error (for /metrics). */
  observe?: (source: 'store' | 'api' | 'store_error', periods: number) => void;
  /** The most periods not kept yet one trend may fetch (TREND_MAX_FETCH). */
  maxFetch?: number;
}

export const DEFAULT_TREND_MAX_FETCH = 200;

export type TrendAnswer = { ok: true; message: SlackMessage } | { ok: false; message: SlackMessage };

export interface TrendWhere {
  channelId?: string;
  ephemeral: boolean;
  user?: string;
  sharedBy?: string;
  log?: Logger;
  /** Told, in words, how a long fetch is going (a trend with more cold periods than a page's worth). */
  progress?: (text: string) => Promise<void>;
}

/** Cold periods (not kept yet) fetched for a trend without a word; past this, the person is told how many and how it goes. */
export const TREND_QUIET_FETCH = 31;

/**
 * Trends: per-period totals built from per-period report requests (the API has no time
 * series). Finished periods are kept in the store and fetched once, ever; the current
 * period is fetched live (shared for a minute through the fetcher). A fill runs a few
 * requests at a time and keeps each period as soon as it arrives, so a restart half-way
 * loses nothing already fetched. The same period asked by two trends at once is fetched once.
 */
export class TrendService {
  private readonly inFlight = new Map<string, Promise<Figures>>();
  private readonly limit: ReturnType<typeof pLimit>;

  constructor(private readonly deps: TrendServiceDeps) {
    this.limit = pLimit(deps.concurrency ?? 6);
  }

  get log(): Logger {
    return this.deps.log;
  }

  /** The query a button carries (inline or stashed), or null when it is tampered with or forgotten. */
  resolve(ref: string | undefined): Promise<ReportQuery | null> {
    return this.deps.refs.resolve(ref);
  }

  async series(spec: TrendSpec, log: Logger = this.deps.log, onUnit?: () => void): Promise<Trend> {
    const plan = planTrend(spec.range);
    const source = trendSource(spec.report);
    const today = this.today(spec.timeZone);
    const figures = await this.figures({ report: source, filters: spec.filters, timeZone: spec.timeZone }, [...plan.buckets, ...plan.previous], today, log, onUnit);
    const values = (buckets: Bucket[]) => buckets.map((b) => figures.get(at(b.key, spec.metric)) ?? 0);
    return {
      plan,
      source,
      current: summarize(values(plan.buckets), plan.buckets),
      previous: summarize(values(plan.previous), plan.previous),
      partial: !isFinished(plan.buckets[plan.buckets.length - 1]!, today),
    };
  }

  /** The figures of any buckets (hours, days, weeks) of a report's rows: kept ones from the store, the rest fetched. */
  async values(spec: Omit<TrendSpec, 'range'>, buckets: readonly Bucket[], log: Logger = this.deps.log): Promise<number[]> {
    const figures = await this.figures({ report: trendSource(spec.report), filters: spec.filters, timeZone: spec.timeZone }, buckets, this.today(spec.timeZone), log);
    return buckets.map((b) => figures.get(at(b.key, spec.metric)) ?? 0);
  }

  private today(timeZone: string): string {
    return localDate(this.deps.now(), timeZone) ?? this.deps.now().toISOString().slice(0, 10);
  }

  private async figures(key: TrendSeriesKey, buckets: readonly Bucket[], today: string, log: Logger, onUnit?: () => void): Promise<Figures> {
    const units = unitsOf(buckets, today);
    const figures: Figures = new Map();
    const finished = units.filter((u) => u.finished).flatMap((u) => u.buckets.map((b) => b.key));
    try {
      for (const [k, v] of await this.deps.repo.get(key, finished)) figures.set(k, v);
    } catch (error) {
      this.deps.observe?.('store_error', finished.length);
      log.warn({ err: (error as Error).message }, 'trend store unavailable: fetching every period');
    }
    const missing = units.filter((u) => u.buckets.some((b) => !figures.has(at(b.key, 'visits'))));
    const wanted = new Set(buckets.map((b) => b.key));
    const fetched = missing.flatMap((u) => u.buckets).filter((b) => wanted.has(b.key)).length;
    this.deps.observe?.('store', buckets.length - fetched);
    this.deps.observe?.('api', fetched);
    const results = await Promise.all(missing.map((unit) => this.once(key, unit, log).finally(() => onUnit?.())));
    for (const result of results) for (const [k, v] of result) figures.set(k, v);
    return figures;
  }

  /** A unit being fetched is shared by every trend asking for it meanwhile. */
  private once(key: TrendSeriesKey, unit: Unit, log: Logger): Promise<Figures> {
    const id = JSON.stringify([key.report, key.filters, key.timeZone, unit.key, unit.finished]);
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = this.limit(() => this.fetchUnit(key, unit, log)).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, pending);
    }
    return pending;
  }

  private async fetchUnit(key: TrendSeriesKey, unit: Unit, log: Logger): Promise<Figures> {
    const request = { startDate: unit.startDate, endDate: unit.endDate, filterGroups: key.filters as FilterGroup[] };
    const figures: Figures = new Map();
    if (unit.hourly) {
      // The API's days need not be the zone's: the zone's day lies within the API's day before, the day and the day after.
      const around = { ...request, startDate: shiftDate(unit.startDate, -1), endDate: shiftDate(unit.startDate, 1) };
      const visits = await this.deps.fetcher.visits(around);
      const counts = unit.buckets.map(() => ({ visits: 0, visitors: new Set<string>() }));
      for (const visit of visits) {
        const hour = hourOfDay(visit.date, unit.startDate, key.timeZone);
        if (hour === undefined) continue;
        const slot = counts[hour]!;
        slot.visits++;
        if (visit.visitor_id) slot.visitors.add(visit.visitor_id);
      }
      unit.buckets.forEach((b, i) => {
        figures.set(at(b.key, 'visits'), counts[i]!.visits);
        figures.set(at(b.key, 'unique'), counts[i]!.visitors.size);
      });
    } else {
      const def = REPORTS[key.report as ReportId];
      const rows = await this.deps.fetcher.all(def.id, request);
      const uniqueField = def.sortKeys.unique ?? 'unique_visitors';
      const sum = (field: string) => rows.reduce((n, r) => n + (Number(fieldOf(r, field)) || 0), 0);
      const bucket = unit.buckets[0]!;
      figures.set(at(bucket.key, 'visits'), sum(def.countField ?? 'total_visits'));
      figures.set(at(bucket.key, 'unique'), sum(uniqueField));
    }
    if (unit.finished) {
      const points = [...figures].map(([k, value]) => {
        const [bucket, metric] = k.split('|') as [string, TrendMetric];
        return { bucket, metric, value };
      });
      await this.deps.repo.put(key, points).catch((error: unknown) => {
        this.deps.observe?.('store_error', unit.buckets.length);
        log.warn({ err: (error as Error).message }, 'trend figures not kept');
      });
    }
    return figures;
  }

  /** The top rows' share of the period's visits, for a pie: the five largest and the rest. */
  async share(spec: TrendSpec, total: number): Promise<Share | undefined> {
    const def = REPORTS[spec.report];
    if (spec.metric !== 'visits' || !def.countField || total <= 0) return undefined;
    const rows = await this.deps.fetcher.report(def.id, {
      startDate: spec.range.startDate,
      endDate: spec.range.endDate,
      filterGroups: spec.filters,
      page: 1,
      limit: 5,
      sort: { key: def.countField, value: -1 },
    });
    const nameField = def.rowFilter?.rowField ?? def.columns[0]!.field;
    const top = rows
      .map((r) => ({ name: String(fieldOf(r, nameField) ?? ''), value: Number(fieldOf(r, def.countField!)) || 0 }))
      .filter((s) => s.value > 0);
    const rest = total - top.reduce((n, s) => n + s.value, 0);
    return { def, top, rest: rest > 0 ? rest : 0, total };
  }

  /** How many API requests a trend needs before it starts: one a period not kept yet (an hourly day is one). */
  async coldPeriods(spec: TrendSpec): Promise<number> {
    const plan = planTrend(spec.range);
    const units = unitsOf([...plan.buckets, ...plan.previous], this.today(spec.timeZone));
    const finished = units.filter((u) => u.finished).flatMap((u) => u.buckets.map((b) => b.key));
    const kept = await this.deps.repo.get({ report: trendSource(spec.report), filters: spec.filters, timeZone: spec.timeZone }, finished).catch(() => new Map<string, number>());
    return units.filter((u) => u.buckets.some((b) => !kept.has(at(b.key, 'visits')))).length;
  }

  /** `/traffic trend …` and the Trend buttons: the chart, its key figures in words, and what to do next. */
  async answer(query: ReportQuery, metric: TrendMetric, where: TrendWhere): Promise<TrendAnswer> {
    const log = where.log ?? this.deps.log;
    const timeZone = await this.deps.timeZoneFor(where.channelId);
    const resolved = resolveRange(query.range, timeZone, this.deps.now());
    if (!resolved.ok) return { ok: false, message: problemMessage(resolved.error, 'Pick another range.') };
    const spec: TrendSpec = { report: query.report, filters: query.filters, metric, range: resolved.range, timeZone };
    const withShare = query.report === trendSource(query.report);
    const cold = await this.coldPeriods(spec);
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
        void where.progress?.(`Fetching ${formatCount(cold)} periods Lookout has not kept yet: ${formatCount(done)} done…`).catch(() => undefined);
      }
    };
    if (cold > TREND_QUIET_FETCH) await where.progress?.(`Fetching ${formatCount(cold)} periods Lookout has not kept yet (one request each; they are kept after, so this is a one-time wait)…`).catch(() => undefined);
    const fetched = await withinQuota(this.deps.quota, where.user, cold + (withShare ? 1 : 0), async () => {
      const trend = await this.series(spec, log, onUnit);
      const share = withShare ? await this.share({ ...spec, range: trend.plan.range }, trend.current.total) : undefined;
      return { trend, share };
    }).catch((error: unknown) => {
      if (!(error instanceof ApiError)) throw error;
      log.warn({ report: query.report, kind: error.kind, status: error.info.status }, 'trend failed');
      return { ok: false as const, problem: error.message };
    });
    if (!fetched.ok) return { ok: false, message: problemMessage(fetched.problem) };
    const { trend, share } = fetched.value;
    const ref = await this.deps.refs.ref(query, LIMITS.buttonValue - 4);
    return {
      ok: true,
      message: trendMessage({
        spec,
        trend,
        ...(share ? { share } : {}),
        timeZone,
        demo: this.deps.demo,
        ephemeral: where.ephemeral,
        ...(where.sharedBy ? { sharedBy: where.sharedBy } : {}),
        ref: encodeTrendRef(metric, ref),
        tableRef: ref,
      }),
    };
  }

}

/** Which bucket each API request fills. Hours come a day at a time, from that day's visits. */
function unitsOf(buckets: readonly Bucket[], today: string): Unit[] {
  const units = new Map<string, Unit>();
  for (const bucket of buckets) {
    const hourly = bucket.hour !== undefined;
    const key = hourly ? bucket.startDate : bucket.key;
    let unit = units.get(key);
    if (!unit) {
      // An hourly unit is the whole day: its hours come from one request.
      unit = { key, startDate: bucket.startDate, endDate: bucket.endDate, hourly, buckets: hourly ? hoursOf(bucket.startDate) : [], finished: isFinished(bucket, today) };
      units.set(key, unit);
    }
    if (!hourly) unit.buckets.push(bucket);
  }
  return [...units.values()];
}

/** The hour of `day` in the zone a visit falls in; undefined for a visit on another day there. */
function hourOfDay(iso: string | undefined, day: string, timeZone: string): number | undefined {
  if (!iso) return undefined;
  const t = new Date(iso);
  return localDate(t, timeZone) === day ? hourIn(iso, timeZone) : undefined;
}

