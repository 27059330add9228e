import type { SharedFetcher } from '../../platform/api/shared-fetcher.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import type { Logger } from '../../platform/log.js';
import type { Trend } from '../../kernel/trend.js';
import type { TrendService } from '../trends/index.js';
import { ApiError } from '../../platform/api/errors.js';
import { REPORTS, type ReportId, type ReportRow } from '../../kernel/catalog.js';
import { apiDaysWords, dayStart, formatSpan, previousPeriod, shiftDate, type DateRange } from '../../kernel/dates.js';
import { formatDateTime, formatField, counted, formatCount } from '../../kernel/format.js';
import { shareBounds, shareKnown, shareRange, type PeriodJudgement } from '../../kernel/flagged-share.js';
import { acrossReports, movers, type Entry } from '../../kernel/movers.js';
import { fieldOf } from '../../kernel/records.js';
import type { FilterGroup } from '../../kernel/filters.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';
import type { FlaggedSeen, FlaggedVisitors } from '../alerts/index.js';
import {
  digestMessage,
  nameColumn,
  type DigestLine,
  type DigestMovers,
  type DigestSection,
  type DigestTotals,
  type DigestView,
} from './blocks.js';
import { digestRange, periodOf, type DigestPeriod } from './period.js';
import type { Digest } from './repo.js';

/** What a digest asks for: the parts of a stored digest the content depends on. */
export interface DigestSpec {
  id: number;
  reports: readonly ReportId[];
  filters: FilterGroup[];
  topN: number;
  period: DigestPeriod;
  timeZone: string;
}

/**
 * How many rows of each period are fetched for a report with counts: the previous period's
 * to find each top row's earlier value, and both for the top movers (the top N shown are
 * the current period's first rows). One page each: the API's largest.
 */
export const COMPARE_DEPTH = 1000;
/** Entries a digest's top movers name at most, across its reports. */
export const DIGEST_MOVERS = 5;
/** The flagged share reads a period's visits in pages of this many, at most VISIT_PAGES of them. */
export const VISIT_PAGE_SIZE = 1000;
export const VISIT_PAGES = 5;

function errorText(error: unknown): string {
  return error instanceof ApiError ? error.message : 'unexpected error';
}

function rowName(row: ReportRow, field: string): string {
  const value = (row as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : '';
}

function num(row: ReportRow | undefined, field: string | undefined): number | undefined {
  if (!row || !field) return undefined;
  const value = (row as Record<string, unknown>)[field];
  return typeof value === 'number' ? value : undefined;
}

/** Gathers a digest's content. A report that fails is marked in its section; the rest still posts. */
export async function gatherDigest(
  fetcher: SharedFetcher,
  spec: DigestSpec,
  now: Date,
  options: { title: string; demo: boolean; preview: boolean; apiZone: string },
): Promise<DigestView> {
  const period = digestRange(spec.period, spec.timeZone, now);
  const previous = previousPeriod(period);
  const base = { filterGroups: spec.filters };
  const at = (range: DateRange) => ({ ...base, startDate: range.startDate, endDate: range.endDate });
  // A slot's digests share every answer asked since the slot; a preview, those of the last minute.
  const asOf = options.preview ? undefined : now.getTime();

  const totalsPromise = (async (): Promise<DigestTotals> => {
    // The API has no totals operation: every visit has one country, so the countries report sums to the total.
    const [now_, before] = await Promise.all([
      fetcher.all('countries', at(period), { asOf }),
      fetcher.all('countries', at(previous), { asOf }),
    ]);
    const sum = (rows: ReportRow[], field: string) => rows.reduce((n, r) => n + (num(r, field) ?? 0), 0);
    return {
      visits: sum(now_, 'total_visits'),
      unique: sum(now_, 'unique_visitors'),
      previousVisits: sum(before, 'total_visits'),
      previousUnique: sum(before, 'unique_visitors'),
    };
  })();

  const sections = spec.reports.map(async (id): Promise<DigestSection> => {
    const def = REPORTS[id];
    try {
      const { field: nameField, format: nameFormat } = nameColumn(def);
      const durationField = def.columns.find((c) => c.format === 'duration')?.field;
      const depth = def.countField ? Math.max(spec.topN, COMPARE_DEPTH) : spec.topN;
      const [rows, earlier] = await Promise.all([
        fetcher.report(id, { ...at(period), page: 1, limit: depth }, asOf),
        def.countField ? fetcher.report(id, { ...at(previous), page: 1, limit: depth }, asOf) : Promise.resolve([]),
      ]);
      const current = rows.slice(0, spec.topN);
      // A row is the same row in both periods when its name and its label (where rows have one) match:
      // two cities may share a name (Paris, Île-de-France, FR and Paris, Texas, US), never a label.
      const keyOf = (row: ReportRow) => `${rowName(row, nameField)}\u0000${rowName(row, 'label')}`;
      const before = new Map(earlier.map((r) => [keyOf(r), r]));
      const nameOf = (row: ReportRow) => formatField(fieldOf(row, nameField), nameFormat, spec.timeZone, now, 200);
      const entries = (list: readonly ReportRow[]): Entry[] =>
        list.map((row) => ({ label: nameOf(row), visits: num(row, def.countField) ?? 0 }));
      const lines: DigestLine[] = current.map((row) => {
        const name = nameOf(row);
        const value = num(row, def.countField);
        const old = before.get(keyOf(row));
        return {
          name,
          value,
          // A row absent from the previous top rows shows as "new" only when the previous list was complete;
          // a report without counts (visitors, visits) was not compared at all.
          previous: !def.countField
            ? undefined
            : old
              ? num(old, def.countField)
              : earlier.length < depth
                ? 0
                : undefined,
          duration: num(row, durationField),
        };
      });
      if (!def.countField) return { def, lines };
      // A list as long as the depth may go on: its report is then not compared for the movers.
      const whole = rows.length < depth && earlier.length < depth;
      return { def, lines, compared: whole ? { current: entries(rows), previous: entries(earlier) } : 'cut' };
    } catch (error) {
      return { def, error: errorText(error) };
    }
  });

  let totals: DigestTotals | undefined;
  let totalsError: string | undefined;
  try {
    totals = await totalsPromise;
  } catch (error) {
    totalsError = errorText(error);
  }
  const gathered = await Promise.all(sections);
  const moved = digestMovers(gathered);
  return {
    id: spec.id,
    title: options.title,
    period,
    previous,
    timeZone: spec.timeZone,
    apiZone: options.apiZone,
    filters: spec.filters,
    totals,
    totalsError,
    sections: gathered,
    ...(moved ? { movers: moved } : {}),
    demo: options.demo,
    preview: options.preview,
  };
}

/**
 * The digest's top movers: each compared report's entries that account for most of its
 * change against the previous period (movers()), at most DIGEST_MOVERS across the reports
 * (acrossReports()). Reports cut at COMPARE_DEPTH rows are named as not compared; none
 * with counts loaded: undefined.
 */
export function digestMovers(sections: readonly DigestSection[]): DigestMovers | undefined {
  const compared = sections.filter((s) => s.lines && s.compared !== undefined);
  if (compared.length === 0) return undefined;
  const lists = compared.flatMap((s) =>
    s.compared && s.compared !== 'cut'
      ? [movers(s.compared.current, s.compared.previous, { max: DIGEST_MOVERS, report: s.def.id })]
      : [],
  );
  return {
    list: acrossReports(lists, DIGEST_MOVERS),
    compared: lists.length,
    cut: compared.filter((s) => s.compared === 'cut').map((s) => s.def.title),
    depth: COMPARE_DEPTH,
  };
}

/** A digest's workspace: its analytics account's answers, and whose flagged visitors its security line counts. */
export type DigestTenant = Pick<Tenant, 'team' | 'account' | 'fetcher'>;

/** A stored digest's message at a moment: its reports, totals and the security line. */
export class DigestContent {
  constructor(
    private readonly deps: {
      trends?: TrendService;
      flagged: Pick<FlaggedVisitors, 'seen' | 'judged'>;
      /** The zone the API counts its days in (ANALYTICS_API_TIMEZONE): a digest's figures are its days. */
      apiZone: string;
      demo: boolean;
      log?: Logger;
    },
  ) {}

  /** `tenant`: the digest's workspace, and its analytics account. */
  async render(tenant: DigestTenant, digest: Digest, at: Date, preview: boolean): Promise<SlackMessage> {
    const reports = digest.reports.filter((id): id is ReportId => Object.hasOwn(REPORTS, id));
    const title = `Digest: ${reports.map((id) => REPORTS[id].title).join(', ')}`;
    const spec = {
      id: digest.id,
      reports,
      filters: digest.filters,
      topN: digest.topN,
      period: periodOf(digest.period),
      timeZone: digest.timeZone,
    };
    const view = await gatherDigest(tenant.fetcher, spec, at, {
      title,
      demo: this.deps.demo,
      preview,
      apiZone: this.deps.apiZone,
    });
    const [security, trend] = await Promise.all([
      this.securityLine(tenant, view, digest.filters, at),
      this.trend(tenant, view, digest.filters),
    ]);
    return digestMessage({ ...view, security, ...(trend ? { trend } : {}) });
  }

  /** The period's visits against the previous period's, from the same kept days as /traffic trend. */
  private async trend(tenant: DigestTenant, view: DigestView, filters: Digest['filters']): Promise<Trend | undefined> {
    if (!this.deps.trends) return undefined;
    try {
      return await this.deps.trends.series(tenant, {
        report: 'visits',
        filters,
        metric: 'visits',
        range: view.period,
        timeZone: view.timeZone,
      });
    } catch (error) {
      this.deps.log?.warn({ digest: view.id, err: errorText(error) }, 'digest trend chart left out');
      return undefined;
    }
  }

  /**
   * The security line of a period, once threat alerts are on anywhere: the share of its
   * visits from flagged visitors against the previous period's, once the threat scan has
   * judged some of its visitors; else what the scan can say of the period. The period is the
   * API's days, as the digest's figures are (its times are said in the reader's zone).
   */
  private async securityLine(
    tenant: DigestTenant,
    view: DigestView,
    filters: Digest['filters'],
    now: Date,
  ): Promise<string | undefined> {
    const from = dayStart(view.period.startDate, view.apiZone);
    const to = dayStart(shiftDate(view.period.endDate, 1), view.apiZone);
    if (from === undefined || to === undefined) return undefined;
    const seen = await this.deps.flagged.seen(tenant, new Date(from), new Date(Math.min(to, now.getTime())));
    if (!seen) return undefined;
    // A period that ended before the scan began is said to be unchecked, whatever was judged of its visitors since.
    if (seen.scanningSince.getTime() >= Math.min(to, now.getTime()))
      return securityLine({ from, to: Math.min(to, now.getTime()), timeZone: view.timeZone, now }, seen);
    const share = await this.flaggedShares(tenant, view, filters).catch((error: unknown) => {
      this.deps.log?.warn({ digest: view.id, err: errorText(error) }, 'digest flagged share left out');
      return undefined;
    });
    return share ?? securityLine({ from, to: Math.min(to, now.getTime()), timeZone: view.timeZone, now }, seen);
  }

  /** The flagged share line, from each period's visits (at most VISIT_PAGES pages) and the scan's judgements. */
  private async flaggedShares(
    tenant: DigestTenant,
    view: DigestView,
    filters: Digest['filters'],
  ): Promise<string | undefined> {
    const read = (range: DateRange) =>
      tenant.fetcher.visits(
        { filterGroups: filters, startDate: range.startDate, endDate: range.endDate },
        VISIT_PAGE_SIZE,
        VISIT_PAGES,
      );
    const [current, previous] = await Promise.all([read(view.period), read(view.previous)]);
    const ids = [...new Set([...current, ...previous].map((v) => v.visitor_id).filter((id): id is string => !!id))];
    const judged = await this.deps.flagged.judged(tenant, ids);
    if (!judged) return undefined;
    const cap = VISIT_PAGE_SIZE * VISIT_PAGES;
    return flaggedShareLine({
      current: periodShare(current, judged, cap, view.totals?.visits),
      previous: periodShare(previous, judged, cap, view.totals?.previousVisits),
      period: view.period,
      previousPeriod: view.previous,
      apiZone: view.apiZone,
    });
  }
}

/** What a period's visits say of flagged visitors: counts of the visits read, and of their visitors. */
export interface PeriodShare {
  /** Visits read (all of the period's, unless `sampled`). */
  visits: number;
  /** The period's visits were more than those read: these are its latest. */
  sampled: boolean;
  /** The period's visits as its totals count them, when known (stated beside a sample). */
  total?: number;
  visitors: number;
  judgedVisitors: number;
  /** Visits by visitors the threat scan judged, flagged or not. */
  judgedVisits: number;
  /** Visits by visitors the threat scan judged flagged. */
  flaggedVisits: number;
}

/** Counts a period's visits against the threat scan's judgements; read up to `cap` visits. */
export function periodShare(
  visits: readonly { visitor_id?: string }[],
  judged: { checked: ReadonlySet<string>; flagged: ReadonlySet<string> },
  cap: number,
  total?: number,
): PeriodShare {
  const visitors = new Set<string>();
  let judgedVisits = 0;
  let flaggedVisits = 0;
  for (const v of visits) {
    if (!v.visitor_id) continue;
    visitors.add(v.visitor_id);
    if (judged.checked.has(v.visitor_id)) judgedVisits++;
    if (judged.flagged.has(v.visitor_id)) flaggedVisits++;
  }
  const judgedVisitors = [...visitors].filter((id) => judged.checked.has(id)).length;
  const sampled = visits.length >= cap && (total === undefined || total > visits.length);
  return {
    visits: visits.length,
    sampled,
    ...(sampled && total !== undefined ? { total } : {}),
    visitors: visitors.size,
    judgedVisitors,
    judgedVisits,
    flaggedVisits,
  };
}

const judgementOf = (p: PeriodShare): PeriodJudgement => ({
  visits: p.visits,
  judgedVisits: p.judgedVisits,
  flaggedVisits: p.flaggedVisits,
});

/**
 * "12% of the 4,210 visits", "12–30% of the 4,210 visits" (not all judged: the bounds),
 * "an unknown share of the 4,210 visits" (under half judged), "12% of the latest 5,000 of
 * the 12,345 visits (a sample)".
 */
function shareOfVisits(p: PeriodShare): string {
  const bounds = shareBounds(judgementOf(p));
  const known = shareKnown(judgementOf(p));
  const share = !bounds ? '0%' : known === 'unknown' ? 'an unknown share' : shareRange(bounds);
  if (!p.sampled) return `${share} of the ${counted(p.visits, 'visit')}`;
  const of = p.total !== undefined ? ` of the ${counted(p.total, 'visit')}` : ' visits';
  return `${share} of the latest ${formatCount(p.visits)}${of} (a sample)`;
}

/** How many of the visits named were judged, where not all were: "; 3,400 of those visits judged". */
const judging = (p: PeriodShare): string =>
  p.judgedVisits < p.visits ? `; ${formatCount(p.judgedVisits)} of those visits judged` : '';

/** Whole points between two shares known exactly, as `percent` shows them: "+7 points", "-1 point", "no change". */
function pointsChange(now: PeriodShare, before: PeriodShare): string {
  const points = (p: PeriodShare) => Math.round((p.visits === 0 ? 0 : p.flaggedVisits / p.visits) * 100);
  const d = points(now) - points(before);
  if (d === 0) return 'no change';
  return `${d > 0 ? '+' : '-'}${counted(Math.abs(d), 'point')}`;
}

/**
 * The digest's flagged share in words, plain (not yet escaped): "Flagged visitors made 12%
 * of the 4,210 visits of Nov 18 – Nov 24, 2026 (days in UTC, as the analytics API counts
 * them), +7 points against
 * the previous period (Nov 11 – Nov 17, 2026: 5% of the 3,980 visits)." Each share is of the
 * visits it names, as far as the threat scan's judgements tell it (kernel/flagged-share.ts):
 * one figure where every visit was judged, its bounds where half or more were, unknown
 * below that, with how many were judged; the change in points only between two figures.
 * Undefined when no visit of the period was judged (the scan's own line says why).
 */
export function flaggedShareLine(input: {
  current: PeriodShare;
  previous: PeriodShare;
  period: DateRange;
  previousPeriod: DateRange;
  /** The zone the API counts its days in. */
  apiZone: string;
}): string | undefined {
  const { current, previous } = input;
  if (current.visits === 0 || current.judgedVisits === 0) return undefined;
  const span = (r: DateRange) => formatSpan(r.startDate, r.endDate);
  const head = `Flagged visitors made ${shareOfVisits(current)} of ${span(input.period)} (${apiDaysWords(input.apiZone)}${judging(current)})`;
  const before = `the previous period (${span(input.previousPeriod)}`;
  if (previous.visits === 0) return `${head}; ${before}) had no visits.`;
  if (previous.judgedVisits === 0)
    return `${head}; in ${before}) ${previous.visits === 1 ? 'its one visit was not judged' : `none of the ${formatCount(previous.visits)} visits was judged`}.`;
  const exact = shareKnown(judgementOf(current)) === 'exact' && shareKnown(judgementOf(previous)) === 'exact';
  return `${head}, ${exact ? `${pointsChange(current, previous)} ` : ''}against ${before}: ${shareOfVisits(previous)}${judging(previous)}).`;
}

/**
 * What the threat scan can say of a span, and nothing more: when it began after the span,
 * that the span was not checked; when it began inside it, from when it counts; when its
 * scans have not reached the span's end yet, up to when.
 */
export function securityLine(
  span: { from: number; to: number; timeZone: string; now: Date },
  seen: FlaggedSeen,
): string {
  const at = (ms: number) =>
    `${formatDateTime(new Date(ms).toISOString(), span.timeZone, span.now)} (${span.timeZone})`;
  const since = seen.scanningSince.getTime();
  if (since >= span.to) return `The threat scan began ${at(since)}, after this period: its visitors were not checked.`;
  const visitors = seen.count === 0 ? 'no flagged visitors' : counted(seen.count, 'flagged visitor');
  const reached = seen.checkedUpTo?.getTime() ?? since;
  const upTo =
    reached >= span.to
      ? ''
      : reached <= since
        ? '; it has not checked any visits yet'
        : `; it has checked visits up to ${at(reached)}, not the rest yet`;
  if (since > span.from)
    return `The threat scan began ${at(since)}, during this period: ${visitors} since then; visits before it were not checked${upTo}.`;
  if (upTo) return `The threat scan: ${visitors} in this period${upTo}.`;
  return seen.count === 0
    ? 'The threat scan checked this whole period: no flagged visitors.'
    : `The threat scan checked this whole period: ${visitors} (see the threat alerts).`;
}
