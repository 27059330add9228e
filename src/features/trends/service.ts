import pLimit from 'p-limit';
import { REPORTS, type ReportId } from '../../kernel/catalog.js';
export type { Trend, TrendSpec };
import { apiDatesOf, hourAt, shiftDate } from '../../kernel/dates.js';
import { resolveRange } from '../../kernel/when.js';
import type { FilterGroup } from '../../kernel/filters.js';
import type { MarketingRequest, ReportQuery } from '../../kernel/query.js';
import { fieldOf, textOf, type VisitRecord } from '../../kernel/records.js';
import {
  begunCount,
  encodeTrendRef,
  finalAt,
  hoursOf,
  keeping,
  planTrend,
  summarize,
  trendSource,
  TREND_METRICS,
  type ApiDays,
  type Bucket,
  type Trend,
  type TrendMetric,
  type TrendSpec,
  withBack,
} from '../../kernel/trend.js';
import type { Answering } from '../../platform/answering.js';
import { ApiError } from '../../platform/api/errors.js';
import type { SharedFetcher } from '../../platform/api/shared-fetcher.js';
import type { Account, Tenant } from '../../platform/tenancy/tenants.js';
import type { Logger } from '../../platform/log.js';
import { withinQuota } from '../../platform/quota.js';
import { formatCount } from '../../kernel/format.js';
import { LIMITS } from '../../platform/slack/kit/limits.js';
import { problemMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import { trendMessage, type Share } from './blocks.js';
import type { KeptPoint, TrendPoint, TrendRepo, TrendSeriesKey } from './repo.js';

/** One request to the API and the buckets its answer fills: a day or week, or a day's hours. */
interface Unit {
  key: string;
  /** The API's dates asked for. */
  ask: { startDate: string; endDate: string };
  /** The dates its buckets cover (the zone's day, for hours). */
  from: string;
  to: string;
  hourly: boolean;
  buckets: Bucket[];
  /** When each bucket is final at the API (ms); absent when it cannot be told. */
  finalAt: Map<string, number>;
}

type Figures = Map<string, number>;
const at = (bucket: string, metric: TrendMetric) => `${bucket}|${metric}`;

/** What a unit's answer was: its figures, whether every page of it arrived, and whether it was empty. */
interface Answer {
  figures: Figures;
  complete: boolean;
  /** No visits at all in its buckets that are over at the API. */
  empty: boolean;
  /** The figures kept before were 0 too. */
  confirmsEmpty: boolean;
}

/** Figures of buckets, and those not to be judged by yet: a suspect empty answer, or one that did not come whole. */
interface Known {
  figures: Figures;
  unsettled: Set<string>;
}

/** Where buttons find their query (the report service's refs), in the workspace they were made in. */
export interface Refs {
  ref(team: string, query: ReportQuery, max: number): Promise<string>;
  resolve(team: string, ref: string | undefined): Promise<ReportQuery | null>;
}

/** The analytics account a trend's periods are asked of (and kept for). */
export type TrendSource = Pick<Account, 'account' | 'fetcher'>;

/** The workspace a trend is asked in: its account, and its team (whose stash its buttons' long queries go to). */
export type TrendTenant = TrendSource & Pick<Tenant, 'team'>;

export interface TrendServiceDeps extends Answering {
  repo: TrendRepo;
  refs: Refs;
  /** Requests a first fill makes at once. */
  concurrency?: number;
  /** Told how many periods came from the store, from the API, or met a store error (for /metrics). */
  observe?: (source: 'store' | 'api' | 'store_error', periods: number) => void;
  /** Told how many kept provisional periods were asked again, and whether that changed their figure (for /metrics). */
  observeRecheck?: (changed: boolean, periods: number) => void;
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
  /** The visitor card it was opened from (its ref): the answer offers the way back. */
  back?: string;
  /** Told, in words, how a long fetch is going (a trend with more cold periods than a page's worth). */
  progress?: (text: string) => Promise<void>;
}

/** Cold periods (not kept yet) fetched for a trend without a word; past this, the person is told how many and how it goes. */
export const TREND_QUIET_FETCH = 31;
/** A period fetched to be kept costs its request and the one that checks nothing follows its last page. */
const REQUESTS_A_PERIOD = 2;

/**
 * Trends: per-period totals built from per-period report requests (the API has no time
 * series). A period's figures are kept once it is over at the API (its own day ended, plus
 * a settling margin) and its answer came whole: for good when it was old enough, or
 * provisionally (a period younger than a few days, an empty answer between periods with
 * visits), to be asked again once. A period still open at the API is fetched live
 * (shared for a minute through the fetcher). A fill runs a few requests at a time and
 * keeps each period as soon as it arrives, so a restart half-way loses nothing already
 * fetched. The same period asked by two trends at once is fetched once.
 */
export class TrendService {
  private readonly inFlight = new Map<string, Promise<Answer>>();
  private readonly limit: ReturnType<typeof pLimit>;

  constructor(private readonly deps: TrendServiceDeps) {
    this.limit = pLimit(deps.concurrency ?? 6);
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
    const { figures } = await this.figures(
      from.fetcher,
      { account: from.account, report: source, filters: spec.filters, timeZone: spec.timeZone },
      [...plan.buckets, ...plan.previous],
      log,
      onUnit,
    );
    const values = (buckets: Bucket[]) => buckets.map((b) => figures.get(at(b.key, spec.metric)) ?? 0);
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
   * store, the rest fetched; and which of them are not to be judged by yet.
   */
  async values(
    from: TrendSource,
    spec: Omit<TrendSpec, 'range'>,
    buckets: readonly Bucket[],
    log: Logger = this.deps.log,
  ): Promise<{ values: number[]; unsettled: string[] }> {
    const { figures, unsettled } = await this.figures(
      from.fetcher,
      {
        account: from.account,
        report: trendSource(spec.report),
        filters: spec.filters,
        timeZone: spec.timeZone,
      },
      buckets,
      log,
    );
    return {
      values: buckets.map((b) => figures.get(at(b.key, spec.metric)) ?? 0),
      unsettled: buckets.filter((b) => unsettled.has(b.key)).map((b) => b.key),
    };
  }

  /** What of these buckets is kept and usable, and which units must be asked of the API. */
  private async needs(key: TrendSeriesKey, buckets: readonly Bucket[], log: Logger) {
    const now = this.deps.now().getTime();
    const units = unitsOf(buckets, key.timeZone, this.deps.apiDays);
    const over = (u: Unit, b: Bucket) => (u.finalAt.get(b.key) ?? Infinity) <= now;
    let kept = new Map<string, KeptPoint>();
    const keepable = units.flatMap((u) => u.buckets.filter((b) => over(u, b)).map((b) => b.key));
    try {
      kept = await this.deps.repo.get(key, keepable);
    } catch (error) {
      this.deps.observe?.('store_error', keepable.length);
      log.warn({ err: (error as Error).message }, 'trend store unavailable: fetching every period');
    }
    const usable = (b: Bucket) => {
      const point = kept.get(at(b.key, 'visits'));
      return point !== undefined && (point.final || (point.recheckAt ?? 0) > now);
    };
    const wanted = new Set(buckets.map((b) => b.key));
    const needed = units.filter((u) => u.buckets.some((b) => wanted.has(b.key) && !(over(u, b) && usable(b))));
    return { now, units, kept, wanted, needed };
  }

  private async figures(
    fetcher: SharedFetcher,
    key: TrendSeriesKey,
    buckets: readonly Bucket[],
    log: Logger,
    onUnit?: () => void,
  ): Promise<Known> {
    const { now, units, kept, wanted, needed } = await this.needs(key, buckets, log);
    const figures: Figures = new Map();
    const unsettled = new Set<string>();
    for (const [k, point] of kept) figures.set(k, point.value);
    for (const u of units)
      for (const b of u.buckets)
        if (!needed.includes(u) && kept.get(at(b.key, 'visits'))?.suspect) unsettled.add(b.key);
    const fetched = needed.flatMap((u) => u.buckets).filter((b) => wanted.has(b.key)).length;
    this.deps.observe?.('store', buckets.length - fetched);
    this.deps.observe?.('api', fetched);

    const answers = await Promise.all(
      needed.map((unit) => this.once(fetcher, key, unit, kept, now, log).finally(() => onUnit?.())),
    );
    answers.forEach((answer, i) => {
      for (const [k, v] of answer.figures) figures.set(k, v);
      if (!answer.complete) for (const b of needed[i]!.buckets) unsettled.add(b.key);
    });
    // An empty answer is kept once the periods beside it are known: empty too, it is confirmed.
    const emptyBeside = (u: Unit) =>
      units.some(
        (o) => o !== u && (shiftDate(o.to, 1) === u.from || shiftDate(u.to, 1) === o.from) && sumOf(o, figures) === 0,
      );
    for (const [i, unit] of needed.entries()) {
      const answer = answers[i]!;
      if (!answer.complete || !answer.empty) continue;
      const points = this.points(unit, answer.figures, now, answer.confirmsEmpty || emptyBeside(unit));
      if (points.some((p) => p.suspect)) for (const b of unit.buckets) unsettled.add(b.key);
      await this.keep(key, points, unit, log);
    }
    return { figures, unsettled };
  }

  /** A unit being fetched is shared by every trend asking for it meanwhile. */
  private once(
    fetcher: SharedFetcher,
    key: TrendSeriesKey,
    unit: Unit,
    kept: ReadonlyMap<string, KeptPoint>,
    now: number,
    log: Logger,
  ): Promise<Answer> {
    const id = JSON.stringify([key.account, key.report, key.filters, key.timeZone, unit.key]);
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = this.limit(() => this.fetchUnit(fetcher, key, unit, kept, now, log)).finally(() =>
        this.inFlight.delete(id),
      );
      this.inFlight.set(id, pending);
    }
    return pending;
  }

  private async fetchUnit(
    fetcher: SharedFetcher,
    key: TrendSeriesKey,
    unit: Unit,
    kept: ReadonlyMap<string, KeptPoint>,
    now: number,
    log: Logger,
  ): Promise<Answer> {
    const request = { ...unit.ask, filterGroups: key.filters as FilterGroup[] };
    const keepable = unit.buckets.filter((b) => (unit.finalAt.get(b.key) ?? Infinity) <= now);
    // Only what may be kept is confirmed whole; an answer that is not is asked for once more at once (the fetcher forgot it).
    const confirm = keepable.length > 0;
    let answer = await this.ask(fetcher, key, unit, request, confirm);
    if (!answer.complete) answer = await this.ask(fetcher, key, unit, request, confirm);
    if (!answer.complete) {
      if (keepable.length > 0)
        log.warn(
          { report: key.report, from: unit.from, to: unit.to },
          'trend period answered in part twice: shown, not kept',
        );
      return { figures: answer.figures, complete: false, empty: false, confirmsEmpty: false };
    }
    const visits = keepable.map((b) => answer.figures.get(at(b.key, 'visits')) ?? 0);
    const empty = keepable.length > 0 && visits.every((v) => v === 0);
    // An empty answer agrees with the one kept before when what was kept of it was empty too (for a day's hours: its earlier hours).
    const before = keepable.map((b) => kept.get(at(b.key, 'visits'))).filter((p) => p !== undefined);
    const confirmsEmpty = before.length > 0 && before.every((p) => p.value === 0);
    this.countRechecks(keepable, answer.figures, kept);
    // Empty answers wait for the periods beside them (figures); the rest is kept now.
    if (!empty) await this.keep(key, this.points(unit, answer.figures, now, false), unit, log);
    return { figures: answer.figures, complete: true, empty, confirmsEmpty };
  }

  /** One unit's figures from the API: its days' report rows summed, or its day's visits counted by the hour; `confirm`: and whether every row arrived. */
  private async ask(
    fetcher: SharedFetcher,
    key: TrendSeriesKey,
    unit: Unit,
    request: MarketingRequest,
    confirm: boolean,
  ): Promise<{ figures: Figures; complete: boolean }> {
    const figures: Figures = new Map();
    const rowsOf = async (id: ReportId, asked: MarketingRequest) =>
      confirm ? fetcher.whole(id, asked) : { rows: await fetcher.all(id, asked), complete: true };
    if (unit.hourly) {
      const { rows, complete } = await rowsOf('visits', {
        ...request,
        sort: { key: REPORTS.visits.defaultSort, value: -1 },
      });
      const counts = new Map(unit.buckets.map((b) => [b.hour!, { visits: 0, visitors: new Set<string>() }]));
      for (const visit of rows as VisitRecord[]) {
        // Counted by the hour of the zone's day the visit falls in: both passes of an hour the clocks repeat count in it.
        const at = visit.date ? hourAt(Date.parse(visit.date), key.timeZone) : undefined;
        const slot = at?.date === unit.from ? counts.get(at.hour) : undefined;
        if (!slot) continue;
        slot.visits++;
        if (visit.visitor_id) slot.visitors.add(visit.visitor_id);
      }
      for (const b of unit.buckets) {
        figures.set(at(b.key, 'visits'), counts.get(b.hour!)!.visits);
        figures.set(at(b.key, 'unique'), counts.get(b.hour!)!.visitors.size);
      }
      return { figures, complete };
    }
    const def = REPORTS[key.report as ReportId];
    const { rows, complete } = await rowsOf(def.id, request);
    const uniqueField = def.sortKeys.unique ?? 'unique_visitors';
    const sum = (field: string) => rows.reduce((n, r) => n + (Number(fieldOf(r, field)) || 0), 0);
    const bucket = unit.buckets[0]!;
    figures.set(at(bucket.key, 'visits'), sum(def.countField ?? 'total_visits'));
    figures.set(at(bucket.key, 'unique'), sum(uniqueField));
    return { figures, complete };
  }

  /** The figures of a unit's buckets that are over at the API, as they are to be kept. */
  private points(unit: Unit, figures: Figures, now: number, confirmedEmpty: boolean): TrendPoint[] {
    const { settleMs } = this.deps.apiDays;
    return unit.buckets.flatMap((b) => {
      const final = unit.finalAt.get(b.key);
      if (final === undefined || final > now) return [];
      const empty = (figures.get(at(b.key, 'visits')) ?? 0) === 0 && sumOf(unit, figures) === 0;
      const how = keeping({ empty, confirmed: confirmedEmpty, now, finalAt: final, settleMs });
      return TREND_METRICS.map((metric) => ({
        bucket: b.key,
        metric,
        value: figures.get(at(b.key, metric)) ?? 0,
        ...how,
      }));
    });
  }

  private async keep(key: TrendSeriesKey, points: TrendPoint[], unit: Unit, log: Logger): Promise<void> {
    await this.deps.repo.put(key, points).catch((error: unknown) => {
      this.deps.observe?.('store_error', unit.buckets.length);
      log.warn({ err: (error as Error).message }, 'trend figures not kept');
    });
  }

  /** Kept provisional figures asked again: how many changed, how many did not. */
  private countRechecks(buckets: readonly Bucket[], figures: Figures, kept: ReadonlyMap<string, KeptPoint>): void {
    let changed = 0;
    let same = 0;
    for (const b of buckets) {
      const before = TREND_METRICS.map((m) => kept.get(at(b.key, m)));
      if (before.some((p) => p === undefined || p.final)) continue;
      if (TREND_METRICS.some((m, i) => before[i]!.value !== (figures.get(at(b.key, m)) ?? 0))) changed++;
      else same++;
    }
    if (changed > 0) this.deps.observeRecheck?.(true, changed);
    if (same > 0) this.deps.observeRecheck?.(false, same);
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

  /** `/traffic trend …` and the Trend buttons: the chart, its key figures in words, and what to do next. */
  /** The periods a trend must fetch before it can answer (an hourly day counts once). */
  async coldPeriods(from: TrendSource, spec: TrendSpec): Promise<number> {
    const plan = planTrend(spec.range, this.deps.weekStart);
    const { needed } = await this.needs(
      {
        account: from.account,
        report: trendSource(spec.report),
        filters: spec.filters,
        timeZone: spec.timeZone,
      },
      [...plan.buckets, ...plan.previous],
      this.deps.log,
    );
    return needed.length;
  }

  /** `/traffic trend …` and the Trend buttons: the chart, its key figures in words, and what to do next. */
  async answer(tenant: TrendTenant, query: ReportQuery, metric: TrendMetric, where: TrendWhere): Promise<TrendAnswer> {
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
      cold * REQUESTS_A_PERIOD + (withShare ? 1 : 0),
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

/** The visits of buckets that have a figure; undefined when one has none. */
function sumOf(unit: Unit, figures: Figures): number | undefined {
  let n = 0;
  for (const b of unit.buckets) {
    const v = figures.get(at(b.key, 'visits'));
    if (v === undefined) return undefined;
    n += v;
  }
  return n;
}

/** Which bucket each API request fills, and when each is final at the API. Hours come a day at a time, from that day's visits. */
function unitsOf(buckets: readonly Bucket[], timeZone: string, api: ApiDays): Unit[] {
  const units = new Map<string, Unit>();
  for (const bucket of buckets) {
    const hourly = bucket.hour !== undefined;
    const key = hourly ? bucket.startDate : bucket.key;
    let unit = units.get(key);
    if (!unit) {
      // An hourly unit is the whole day: its hours come from one request for the API's dates it spans.
      const day = bucket.startDate;
      const ask = hourly
        ? apiDatesOf(day, timeZone, api.timeZone)
        : { startDate: bucket.startDate, endDate: bucket.endDate };
      unit = {
        key,
        ask,
        from: bucket.startDate,
        to: bucket.endDate,
        hourly,
        buckets: hourly ? hoursOf(day) : [bucket],
        finalAt: new Map(),
      };
      for (const b of unit.buckets) {
        const final = finalAt(b, timeZone, api);
        if (final !== undefined) unit.finalAt.set(b.key, final);
      }
      units.set(key, unit);
    }
  }
  return [...units.values()];
}
