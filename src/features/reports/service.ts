import type { Seal } from '../../platform/slack/kit/seal.js';
import { sortFields, type ReportCatalog, type ReportId, type ReportRow } from '../../kernel/catalog.js';
import { fieldOf } from '../../kernel/records.js';
import type { DateRange } from '../../kernel/dates.js';
import { resolveRange } from '../../kernel/range-dates.js';
import { averageSortOf, rankedPage, type RankingRule } from '../../kernel/ranking.js';
import {
  toMarketingRequest,
  withFilter,
  withPage,
  withReport,
  withSort,
  type ReportQuery,
} from '../../kernel/query.js';
import type { Answering, Where } from '../../platform/answering.js';
import { defaultMetric, encodeTrendRef, type TrendMetric } from '../../kernel/trend.js';
import { ApiError } from '../../platform/api/errors.js';
import type { Logger } from '../../platform/log.js';
import { withinQuota } from '../../platform/quota.js';
import { LIMITS } from '../../platform/slack/kit/limits.js';
import { problemMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { QueryStash } from '../../platform/store/index.js';
import type { Tenant } from '../../platform/tenancy/tenants.js';
import { MENU_BLOCK_PREFIX, reportMessage } from './blocks.js';
import { drillValue } from './modals.js';
import { QueryRefs } from './refs.js';
import { parseReportTokens, type TrafficCommand } from './parse.js';
import type { Token } from '../../kernel/text.js';

export interface ReportServiceDeps extends Answering {
  stash: QueryStash;
  catalog: ReportCatalog;
  /** Binds what a modal carries (its response_url) to Lookout. */
  seal: Seal;
}

/** The workspace a report is asked in: its analytics account, and its team (whose stash its buttons' long queries go to). */
export type ReportTenant = Pick<Tenant, 'team' | 'api'>;

/** A report sorted by unique visitors trends by unique visitors; otherwise by its default. */
function trendMetricOf(def: ReportCatalog[ReportId], query: ReportQuery): TrendMetric {
  const unique = def.sortKeys.unique;
  return unique !== undefined && query.sort?.key === unique ? 'unique' : defaultMetric(def.id);
}

/** An answer's message; answered, also the page it shows (for an agent's figures). */
export type Answer =
  { ok: true; message: SlackMessage; rows: Extract<Rows, { ok: true }> } | { ok: false; message: SlackMessage };
export type Rows =
  | {
      ok: true;
      rows: readonly ReportRow[];
      range: DateRange;
      timeZone: string;
      barMax?: number;
      /** Sorted by an average: the rule that chose the rows ranked (kernel/ranking.ts). */
      ranking?: RankingRule;
      /** Whether a page follows (absent: a full page may have one). */
      more?: boolean;
    }
  | { ok: false; problem: string; hint?: string };

/** A report sorted by an average is read whole, by visits, in pages this long, at most this many. */
const WHOLE_PAGE_SIZE = 1000;
const WHOLE_MAX_PAGES = 10;

/**
 * Report answers: resolve the range in the channel's zone, fetch one page, render.
 * Every failure becomes a message that says what happened (and a log line); nothing
 * is thrown for the API.
 */
export class ReportService {
  readonly refs: QueryRefs;
  readonly catalog: ReportCatalog;
  readonly seal: Seal;

  constructor(private readonly deps: ReportServiceDeps) {
    this.refs = new QueryRefs(deps.stash, deps.catalog);
    this.catalog = deps.catalog;
    this.seal = deps.seal;
  }

  get log(): Logger {
    return this.deps.log;
  }

  /** A report and its refinements as `/traffic` reads them (`sources last30d country:DE`). */
  parse(tokens: Token[]): TrafficCommand {
    return parseReportTokens(tokens, this.catalog);
  }

  /** The page of rows a query asks for. */
  async rows(
    tenant: Pick<Tenant, 'api' | 'team'>,
    query: ReportQuery,
    channelId: string | undefined,
    log: Logger = this.deps.log,
    user?: string,
  ): Promise<Rows> {
    const timeZone = await this.deps.timeZoneFor(channelId);
    const resolved = resolveRange(query.range, timeZone, this.deps.now(), this.deps.weekStart);
    if (!resolved.ok) return { ok: false, problem: resolved.error, hint: 'Pick another range.' };
    try {
      const request = toMarketingRequest(query, this.catalog, resolved.range);
      const def = this.catalog[query.report];
      const count = def.countField;
      const average = averageSortOf(def, query);
      if (average !== undefined && count !== undefined) {
        // The minimum is a share of every visit: the whole report is read, by visits.
        const whole = await withinQuota(this.deps.quota, tenant.team, user, 1, async () => {
          const rows: ReportRow[] = [];
          for (let page = 1; page <= WHOLE_MAX_PAGES; page++) {
            const sort = { key: count, value: -1 as const };
            const batch = await tenant.api.report(query.report, { ...request, page, limit: WHOLE_PAGE_SIZE, sort });
            rows.push(...batch);
            if (batch.length < WHOLE_PAGE_SIZE) return { rows, complete: true };
          }
          return { rows, complete: false };
        });
        if (!whole.ok) {
          log.info({ user }, 'request refused: over the per-person limit');
          return { ok: false, problem: whole.problem };
        }
        const page = rankedPage(def, query, whole.value.rows, whole.value.complete, average);
        return { ok: true, range: resolved.range, timeZone, ...page };
      }
      // A page other than the first by count needs the top row's count, so its bars keep their length.
      const topNeeded =
        count !== undefined &&
        sortFields(def).includes(count) &&
        (query.page > 1 || request.sort?.key !== count || request.sort.value !== -1);
      const fetched = await withinQuota(this.deps.quota, tenant.team, user, topNeeded ? 2 : 1, () =>
        Promise.all([
          tenant.api.report(query.report, request),
          topNeeded
            ? tenant.api.report(query.report, { ...request, page: 1, limit: 1, sort: { key: count, value: -1 } })
            : Promise.resolve(undefined),
        ]),
      );
      if (!fetched.ok) {
        log.info({ user }, 'request refused: over the per-person limit');
        return { ok: false, problem: fetched.problem };
      }
      const [rows, top] = fetched.value;
      const barMax = top?.[0] && count ? Number(fieldOf(top[0], count)) || undefined : undefined;
      return { ok: true, rows, range: resolved.range, timeZone, ...(barMax ? { barMax } : {}) };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      log.warn({ report: query.report, kind: error.kind, status: error.info.status }, 'report failed');
      return { ok: false, problem: error.message };
    }
  }

  /** The answer to a query, with the buttons and menus that page and refine it. */
  async answer(tenant: ReportTenant, query: ReportQuery, where: Where): Promise<Answer> {
    const now = this.deps.now();
    const fetched = await this.rows(tenant, query, where.channelId, where.log, where.user);
    if (!fetched.ok) return { ok: false, message: problemMessage(fetched.problem, fetched.hint) };
    const { rows, range, timeZone, barMax, ranking, more } = fetched;
    const ref = (q: ReportQuery, max: number) => this.refs.ref(tenant.team, q, max);
    const back = where.ephemeral ? where.back : undefined;
    const message = reportMessage({
      def: this.catalog[query.report],
      query,
      range,
      rows,
      timeZone,
      apiZone: this.deps.apiDays.timeZone,
      now,
      demo: this.deps.demo,
      ephemeral: where.ephemeral,
      ...(barMax ? { barMax } : {}),
      ...(ranking ? { ranking } : {}),
      ...(where.sharedBy ? { sharedBy: where.sharedBy } : {}),
      ...(back ? { back } : {}),
      refs: {
        current: await ref(query, LIMITS.buttonValue),
        block: await ref(query, LIMITS.blockId - MENU_BLOCK_PREFIX.length),
        prev: query.page > 1 ? await ref(withPage(query, query.page - 1), LIMITS.buttonValue) : undefined,
        next:
          (more ?? rows.length >= query.top)
            ? await ref(withPage(query, query.page + 1), LIMITS.buttonValue)
            : undefined,
        trend: encodeTrendRef(
          trendMetricOf(this.catalog[query.report], query),
          await ref(query, LIMITS.buttonValue - 4 - (back ? back.length + 1 : 0)),
          back,
        ),
      },
    });
    return { ok: true, message, rows: fetched };
  }

  /** Drill down: the chosen row of the page becomes a filter, and `report` breaks it down. */
  async drill(
    tenant: Pick<Tenant, 'api' | 'team'>,
    query: ReportQuery,
    rowIndex: number,
    report: ReportId,
    channelId: string | undefined,
    user?: string,
  ): Promise<{ ok: true; query: ReportQuery } | { ok: false; problem: string }> {
    const def = this.catalog[query.report];
    if (!def.rowFilter || !def.drillTo) return { ok: false, problem: `${def.title} rows cannot be drilled into.` };
    const fetched = await this.rows(tenant, query, channelId, this.deps.log, user);
    if (!fetched.ok) return fetched;
    const value = drillValue(def, fetched.rows[rowIndex]);
    if (value === undefined) return { ok: false, problem: 'That row is no longer there. Run the report again.' };
    const filtered = withFilter(query, {
      object: def.rowFilter.object,
      field: def.rowFilter.field,
      operator: 'is_any_of',
      value: [value],
    });
    // A breakdown reads best by most visits, whatever order the rows were picked from.
    return { ok: true, query: withSort(withReport(filtered, report, this.catalog), undefined) };
  }
}
