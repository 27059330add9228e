/**
 * The trend period cache: which periods' figures are kept in the store, which must be asked
 * of the API, and keeping what arrives. A period's figures are kept once it is over at the
 * API (its own day ended, plus a settling margin): for good once its answer is confirmed
 * whole and it is old enough, or provisionally, to be asked again once. A first read costs
 * one request a period and nothing checks that its last page was the last: it is served,
 * kept provisionally and confirmed by its re-check (3 days after the period, or after the
 * read), which asks for the row past its end only when the figure changed. A first read
 * that looks wrong (cut short beside its neighbours, or empty between periods with visits)
 * is asked again at once, whole. What a watch judges by is confirmed whole before it is
 * served. A period still open at the API is fetched live (shared for a minute through the
 * fetcher). A fill runs a few requests at a time and keeps each period as soon as it
 * arrives, so a restart half-way loses nothing already fetched. The same period asked by two
 * trends at once is fetched once.
 */
import pLimit from 'p-limit';
import { REPORTS, type ReportId } from '../../kernel/catalog.js';
import { apiDatesOf, hourAt, shiftDate } from '../../kernel/dates.js';
import type { FilterGroup } from '../../kernel/filters.js';
import type { MarketingRequest } from '../../kernel/query.js';
import { fieldOf, type VisitRecord } from '../../kernel/records.js';
import {
  finalAt,
  hoursOf,
  keeping,
  looksShort,
  TREND_METRICS,
  type ApiDays,
  type Bucket,
  type TrendMetric,
} from '../../kernel/trend.js';
import type { Answering } from '../../platform/answering.js';
import type { SharedFetcher } from '../../platform/api/shared-fetcher.js';
import type { Logger } from '../../platform/log.js';
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

/** Figures by `bucket|metric`. */
export type Figures = Map<string, number>;
const at = (bucket: string, metric: TrendMetric) => `${bucket}|${metric}`;

/** A bucket's figure of a metric (0 when it has none). */
export function figureOf(figures: Figures, bucket: string, metric: TrendMetric): number {
  return figures.get(at(bucket, metric)) ?? 0;
}

/**
 * How a unit is read: as it comes (a period still open at the API: not kept), a first read
 * (its pages up to a short one, nothing checked), whole (and the row past its last page), or
 * whole and fresh (no page shared with an earlier answer).
 */
type Reading = 'open' | 'first' | 'whole' | 'fresh';

/** What a unit's answer was: its figures, whether every page of it arrived, and whether it was empty. */
interface UnitAnswer {
  figures: Figures;
  /** No page failed short of the end that could be seen: a read that reached its cap of pages is not complete. */
  complete: boolean;
  /** Known whole: read whole, or the same figures as kept before. */
  confirmed: boolean;
  /** No visits at all in its buckets that are over at the API. */
  empty: boolean;
  /** The figures kept before were 0 too. */
  confirmsEmpty: boolean;
}

/** Figures of buckets, and those not to be judged by yet: a suspect empty answer, or one that did not come whole. */
export interface Known {
  figures: Figures;
  unsettled: Set<string>;
}

export interface TrendPeriodsDeps extends Pick<Answering, 'apiDays' | 'now'> {
  repo: TrendRepo;
  /** Requests a first fill makes at once. */
  concurrency?: number;
  /** Told how many periods came from the store, from the API, or met a store error (for /metrics). */
  observe?: (source: 'store' | 'api' | 'store_error', periods: number) => void;
  /** Told how many kept provisional periods were asked again, and whether that changed their figure (for /metrics). */
  observeRecheck?: (changed: boolean, periods: number) => void;
}

export class TrendPeriods {
  private readonly inFlight = new Map<string, Promise<UnitAnswer>>();
  private readonly limit: ReturnType<typeof pLimit>;

  constructor(private readonly deps: TrendPeriodsDeps) {
    this.limit = pLimit(deps.concurrency ?? 6);
  }

  /** How many requests these buckets need of the API: the units not kept and usable (an hourly day counts once). */
  async cold(key: TrendSeriesKey, buckets: readonly Bucket[], log: Logger): Promise<number> {
    const { needed } = await this.needs(key, buckets, log);
    return needed.length;
  }

  /** What of these buckets is kept and usable (`whole`: and confirmed whole), and which units must be asked of the API. */
  private async needs(key: TrendSeriesKey, buckets: readonly Bucket[], log: Logger, whole = false) {
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
      return point !== undefined && (point.final || ((point.recheckAt ?? 0) > now && (point.confirmed || !whole)));
    };
    const wanted = new Set(buckets.map((b) => b.key));
    const needed = units.filter((u) => u.buckets.some((b) => wanted.has(b.key) && !(over(u, b) && usable(b))));
    return { now, units, kept, wanted, needed };
  }

  /**
   * The figures of any buckets: kept ones from the store, the rest fetched (and kept); and
   * which are not to be judged by yet. `whole`: every figure is confirmed whole first (what a
   * watch judges by), where a chart takes a first read.
   */
  async figures(
    fetcher: SharedFetcher,
    key: TrendSeriesKey,
    buckets: readonly Bucket[],
    log: Logger,
    options: { onUnit?: () => void; whole?: boolean } = {},
  ): Promise<Known> {
    const { now, units, kept, wanted, needed } = await this.needs(key, buckets, log, options.whole);
    const figures: Figures = new Map();
    const unsettled = new Set<string>();
    for (const [k, point] of kept) figures.set(k, point.value);
    for (const u of units)
      for (const b of u.buckets)
        if (!needed.includes(u) && kept.get(at(b.key, 'visits'))?.suspect) unsettled.add(b.key);
    const fetched = needed.flatMap((u) => u.buckets).filter((b) => wanted.has(b.key)).length;
    this.deps.observe?.('store', buckets.length - fetched);
    this.deps.observe?.('api', fetched);

    const reading = options.whole ? 'whole' : 'first';
    const answers = await Promise.all(
      needed.map((unit) => this.once(fetcher, key, unit, kept, now, reading, log).finally(() => options.onUnit?.())),
    );
    for (const answer of answers) for (const [k, v] of answer.figures) figures.set(k, v);
    const emptyBeside = (u: Unit) => besideOf(u, units).some((o) => sumOf(o, figures) === 0);
    // A first read that looks wrong is asked again at once, whole and fresh.
    const wrong = needed.flatMap((u, i) => {
      const answer = answers[i]!;
      if (!answer.complete || answer.confirmed) return [];
      const looksWrong = answer.empty
        ? !(answer.confirmsEmpty || emptyBeside(u))
        : looksCut(u, besideOf(u, units), figures, now);
      return looksWrong ? [i] : [];
    });
    const again = await Promise.all(wrong.map((i) => this.once(fetcher, key, needed[i]!, kept, now, 'fresh', log)));
    wrong.forEach((i, j) => {
      answers[i] = again[j]!;
      for (const [k, v] of again[j]!.figures) figures.set(k, v);
    });
    answers.forEach((answer, i) => {
      if (!answer.complete) for (const b of needed[i]!.buckets) unsettled.add(b.key);
    });
    // An empty answer is kept once the periods beside it are known: empty too, it is corroborated.
    for (const [i, unit] of needed.entries()) {
      const answer = answers[i]!;
      if (!answer.complete || !answer.empty) continue;
      const points = this.points(unit, answer, now, answer.confirmsEmpty || emptyBeside(unit));
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
    reading: Reading,
    log: Logger,
  ): Promise<UnitAnswer> {
    const id = JSON.stringify([key.account, key.report, key.filters, key.timeZone, unit.key, reading]);
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = this.limit(() => this.fetchUnit(fetcher, key, unit, kept, now, reading, log)).finally(() =>
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
    asked: Reading,
    log: Logger,
  ): Promise<UnitAnswer> {
    const request = { ...unit.ask, filterGroups: key.filters as FilterGroup[] };
    const keepable = unit.buckets.filter((b) => (unit.finalAt.get(b.key) ?? Infinity) <= now);
    if (keepable.length === 0) {
      const { figures } = await this.ask(fetcher, key, unit, request, 'open');
      return { figures, complete: true, confirmed: false, empty: false, confirmsEmpty: false };
    }
    const due = (point: KeptPoint) => !point.final && (point.recheckAt ?? 0) <= now;
    const before = keepable.map((b) => TREND_METRICS.map((m) => kept.get(at(b.key, m))));
    // What is kept confirms a read that finds the same figures: it was confirmed whole, or this is its re-check (days later).
    const confirmable = before.every((p) => p.every((point) => point !== undefined && (point.confirmed || due(point))));
    const agrees = (figures: Figures) =>
      confirmable &&
      keepable.every((b, i) =>
        TREND_METRICS.every((m, j) => before[i]![j]!.value === (figures.get(at(b.key, m)) ?? 0)),
      );
    let reading: Reading = asked === 'whole' && confirmable ? 'first' : asked;
    let answer = await this.ask(fetcher, key, unit, request, reading);
    // A re-check that finds another figure, or a read that must be whole, is confirmed whole: its pages are shared for a minute, so that costs the row past its end.
    const rechecked = before.some(([visits]) => visits !== undefined && due(visits));
    if (reading === 'first' && answer.complete && (asked === 'whole' || rechecked) && !agrees(answer.figures)) {
      reading = 'whole';
      answer = await this.ask(fetcher, key, unit, request, reading);
    }
    // An answer that is not whole is asked for once more at once (the fetcher forgot it).
    if (!answer.complete) {
      reading = 'fresh';
      answer = await this.ask(fetcher, key, unit, request, reading);
    }
    if (!answer.complete) {
      log.warn(
        { report: key.report, from: unit.from, to: unit.to },
        'trend period answered in part twice: shown, not kept',
      );
      // A first read that looked wrong and is still not whole is not kept either.
      if (asked === 'fresh') await this.forget(key, keepable, unit, log);
      return { figures: answer.figures, complete: false, confirmed: false, empty: false, confirmsEmpty: false };
    }
    const confirmed = reading !== 'first' || agrees(answer.figures);
    const visits = keepable.map((b) => answer.figures.get(at(b.key, 'visits')) ?? 0);
    const empty = visits.every((v) => v === 0);
    // An empty answer agrees with the one kept before when what was kept of it was empty too (for a day's hours: its earlier hours).
    const keptVisits = before.flatMap(([visits]) => (visits === undefined ? [] : [visits]));
    const confirmsEmpty = keptVisits.length > 0 && keptVisits.every((p) => p.value === 0);
    // A unit asked again at once because its first read looked wrong was counted with that read.
    if (asked !== 'fresh') this.countRechecks(keepable, answer.figures, kept);
    const result = { figures: answer.figures, complete: true, confirmed, empty, confirmsEmpty };
    // Empty answers wait for the periods beside them (figures); the rest is kept now.
    if (!empty) await this.keep(key, this.points(unit, result, now, false), unit, log);
    return result;
  }

  /** One unit's figures from the API: its days' report rows summed, or its day's visits counted by the hour; and whether every row arrived, as far as `reading` checks. */
  private async ask(
    fetcher: SharedFetcher,
    key: TrendSeriesKey,
    unit: Unit,
    request: MarketingRequest,
    reading: Reading,
  ): Promise<{ figures: Figures; complete: boolean }> {
    const figures: Figures = new Map();
    const rowsOf = async (id: ReportId, asked: MarketingRequest) => {
      if (reading === 'whole' || reading === 'fresh') return fetcher.whole(id, asked, { fresh: reading === 'fresh' });
      const { rows, ended } = await fetcher.read(id, asked);
      return { rows, complete: ended || reading === 'open' };
    };
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

  /** The figures of a unit's buckets that are over at the API, as they are to be kept; `corroborated`: an empty answer is. */
  private points(unit: Unit, answer: UnitAnswer, now: number, corroborated: boolean): TrendPoint[] {
    const { settleMs } = this.deps.apiDays;
    const { figures, confirmed } = answer;
    return unit.buckets.flatMap((b) => {
      const final = unit.finalAt.get(b.key);
      if (final === undefined || final > now) return [];
      const empty = (figures.get(at(b.key, 'visits')) ?? 0) === 0 && sumOf(unit, figures) === 0;
      const how = keeping({ empty, corroborated, confirmed, now, finalAt: final, settleMs });
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

  private async forget(key: TrendSeriesKey, buckets: readonly Bucket[], unit: Unit, log: Logger): Promise<void> {
    await this.deps.repo
      .forget(
        key,
        buckets.map((b) => b.key),
      )
      .catch((error: unknown) => {
        this.deps.observe?.('store_error', unit.buckets.length);
        log.warn({ err: (error as Error).message }, 'trend figures not forgotten');
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
}

/** The units just before and after a unit. */
function besideOf(unit: Unit, units: readonly Unit[]): Unit[] {
  return units.filter((o) => o !== unit && (shiftDate(o.to, 1) === unit.from || shiftDate(unit.to, 1) === o.from));
}

/** Whether a unit's visits look cut short beside its neighbours' (looksShort), all of them over at the API. */
function looksCut(unit: Unit, beside: readonly Unit[], figures: Figures, now: number): boolean {
  const overSum = (u: Unit) =>
    u.buckets.every((b) => (u.finalAt.get(b.key) ?? Infinity) <= now) ? sumOf(u, figures) : undefined;
  const visits = overSum(unit);
  const others = beside.map(overSum).filter((n) => n !== undefined);
  return visits !== undefined && looksShort(visits, others);
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
