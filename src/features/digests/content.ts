import type { SharedFetcher } from '../../platform/api/shared-fetcher.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import type { Logger } from '../../platform/log.js';
import type { Trend } from '../../kernel/trend.js';
import type { TrendService } from '../trends/index.js';
import { ApiError } from '../../platform/api/errors.js';
import { REPORTS, type ReportId, type ReportRow } from '../../kernel/catalog.js';
import { dayStart, previousPeriod, shiftDate, type DateRange } from '../../kernel/dates.js';
import { formatDateTime, formatField, counted } from '../../kernel/format.js';
import { fieldOf } from '../../kernel/records.js';
import type { FilterGroup } from '../../kernel/filters.js';
import type { SlackMessage } from '../../platform/slack/kit/messages.js';
import type { FlaggedSeen, FlaggedVisitors } from '../alerts/index.js';
import { digestMessage, type DigestLine, type DigestSection, type DigestTotals, type DigestView } from './blocks.js';
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

/** How many rows of the previous period are fetched to find each top row's earlier value. */
const PREVIOUS_DEPTH = 100;

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
  options: { title: string; demo: boolean; preview: boolean },
): Promise<DigestView> {
  const period = digestRange(spec.period, spec.timeZone, now);
  const previous = previousPeriod(period);
  const base = { filterGroups: spec.filters };
  const at = (range: DateRange) => ({ ...base, startDate: range.startDate, endDate: range.endDate });

  const totalsPromise = (async (): Promise<DigestTotals> => {
    // The API has no totals operation: every visit has one country, so the countries report sums to the total.
    const [now_, before] = await Promise.all([
      fetcher.all('countries', at(period)),
      fetcher.all('countries', at(previous)),
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
      const nameField = def.rowFilter?.rowField ?? def.columns[0]!.field;
      const durationField = def.columns.find((c) => c.format === 'duration')?.field;
      const [current, earlier] = await Promise.all([
        fetcher.report(id, { ...at(period), limit: spec.topN, page: 1 }),
        def.countField ? fetcher.report(id, { ...at(previous), limit: PREVIOUS_DEPTH, page: 1 }) : Promise.resolve([]),
      ]);
      // A row is the same row in both periods when its name and its label (where rows have one) match:
      // two cities may share a name (Paris, Île-de-France, FR and Paris, Texas, US), never a label.
      const keyOf = (row: ReportRow) => `${rowName(row, nameField)}\u0000${rowName(row, 'label')}`;
      const before = new Map(earlier.map((r) => [keyOf(r), r]));
      const nameFormat = def.columns.find((c) => c.field === nameField)?.format ?? 'text';
      const lines: DigestLine[] = current.map((row) => {
        const name = formatField(fieldOf(row, nameField), nameFormat, spec.timeZone, now, 200);
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
              : earlier.length < PREVIOUS_DEPTH
                ? 0
                : undefined,
          duration: num(row, durationField),
        };
      });
      return { def, lines };
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
  return {
    id: spec.id,
    title: options.title,
    period,
    previous,
    timeZone: spec.timeZone,
    filters: spec.filters,
    totals,
    totalsError,
    sections: await Promise.all(sections),
    demo: options.demo,
    preview: options.preview,
  };
}

/** A digest's workspace: its analytics account's answers, and whose flagged visitors its security line counts. */
export type DigestTenant = Pick<Tenant, 'team' | 'account' | 'fetcher'>;

/** A stored digest's message at a moment: its reports, totals and the security line. */
export class DigestContent {
  constructor(
    private readonly deps: {
      trends?: TrendService;
      flagged: Pick<FlaggedVisitors, 'seen'>;
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
    const view = await gatherDigest(tenant.fetcher, spec, at, { title, demo: this.deps.demo, preview });
    const [security, trend] = await Promise.all([
      this.securityLine(tenant, view.period, digest.timeZone, at),
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

  /** The security line of a period in its zone, once threat alerts are on anywhere. */
  private async securityLine(
    tenant: DigestTenant,
    period: DateRange,
    timeZone: string,
    now: Date,
  ): Promise<string | undefined> {
    const from = dayStart(period.startDate, timeZone);
    const to = dayStart(shiftDate(period.endDate, 1), timeZone);
    if (from === undefined || to === undefined) return undefined;
    const seen = await this.deps.flagged.seen(tenant, new Date(from), new Date(Math.min(to, now.getTime())));
    return seen && securityLine({ from, to: Math.min(to, now.getTime()), timeZone, now }, seen);
  }
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
  const since = seen.watchingSince.getTime();
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
