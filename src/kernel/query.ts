/**
 * ReportQuery: what a person asked for, kept relative (a range word, not dates) so a
 * button pressed next week still means "last 7 days". Converts to the API's request
 * and to a compact, versioned string for Slack button values.
 */
import { z } from 'zod';
import { sortFields, type ReportCatalog, type ReportId } from './catalog.js';
import { DEFAULT_RANGE } from './ranges.js';
import { normalizeRange } from './range-words.js';
import {
  cloneGroups,
  DEFAULT_FILTER_FIELD,
  isFilterField,
  MAX_FILTERS,
  sameCondition,
  type FilterCondition,
  type FilterGroup,
} from './filters.js';

export type SortDir = 'asc' | 'desc';

export interface ReportQuery {
  v: 1;
  report: ReportId;
  /** A range in its canonical form (when.ts): a word or explicit dates; resolved only when fetching. */
  range: string;
  filters: FilterGroup[];
  /** key is the API's field name. */
  sort?: { key: string; dir: SortDir };
  page: number;
  top: number;
  public?: boolean;
}

export const DEFAULT_TOP = 10;
export const MAX_TOP = 100;
export const MAX_PAGE = 100_000;

export type SortDirection = 1 | -1;

/** One Marketing request: dates go in the query string, the rest in the JSON body. */
export interface MarketingRequest {
  startDate?: string;
  endDate?: string;
  filterGroups?: FilterGroup[];
  page?: number;
  limit?: number;
  sort?: { key: string; value: SortDirection };
}

export function newQuery(report: ReportId, range: string = DEFAULT_RANGE): ReportQuery {
  return { v: 1, report, range, filters: [], page: 1, top: DEFAULT_TOP };
}

export function toMarketingRequest(
  query: ReportQuery,
  catalog: ReportCatalog,
  range: { startDate: string; endDate: string },
): MarketingRequest {
  const def = catalog[query.report];
  return {
    startDate: range.startDate,
    endDate: range.endDate,
    filterGroups: cloneGroups(query.filters),
    page: query.page,
    limit: query.top,
    sort: query.sort
      ? { key: query.sort.key, value: query.sort.dir === 'asc' ? 1 : -1 }
      : { key: def.defaultSort, value: -1 },
  };
}

// --- Button value codec -------------------------------------------------------
//
// "q1." + base64url(JSON of a positional array):
//   [report, range, groups, sort, page, top, public]
//   groups: [[filter, …], …]; filter: [object or "object.field", ":" | "~", value]
//   (":" is is_any_of with an array value, "~" is contains with a string value)
//   sort: 0 for the report's default, or [apiField, 1 | -1]; public: 0 | 1

const PREFIX = 'q1.';
/** Bigger than any value the parser can produce; the codec refuses anything larger. */
const MAX_ENCODED_LENGTH = 64 * 1024;

type WireFilter = [string, ':', string[]] | [string, '~', string];
type WireQuery = [string, string, WireFilter[][], 0 | [string, 1 | -1], number, number, 0 | 1];

const nonEmpty = z.string().min(1);
const wireFilter = z.union([
  z.tuple([nonEmpty, z.literal(':'), z.array(nonEmpty).min(1)]),
  z.tuple([nonEmpty, z.literal('~'), nonEmpty]),
]);
const wireQuery = z.tuple([
  nonEmpty,
  nonEmpty,
  z.array(z.array(wireFilter).min(1)),
  z.union([z.literal(0), z.tuple([nonEmpty, z.union([z.literal(1), z.literal(-1)])])]),
  z.number().int().min(1).max(MAX_PAGE),
  z.number().int().min(1).max(MAX_TOP),
  z.union([z.literal(0), z.literal(1)]),
]);

function toWireFilter(f: FilterCondition): WireFilter {
  const target = f.field === DEFAULT_FILTER_FIELD ? f.object : `${f.object}.${f.field}`;
  return f.operator === 'is_any_of'
    ? [target, ':', Array.isArray(f.value) ? [...f.value] : [f.value]]
    : [target, '~', Array.isArray(f.value) ? f.value.join(',') : f.value];
}

function fromWireFilter([target, op, value]: WireFilter): FilterCondition | undefined {
  const dot = target.indexOf('.');
  const object = dot < 0 ? target : target.slice(0, dot);
  const field = dot < 0 ? DEFAULT_FILTER_FIELD : target.slice(dot + 1);
  if (!isFilterField(object, field)) return undefined;
  return op === ':'
    ? { object, field, operator: 'is_any_of', value: [...value] }
    : { object, field, operator: 'contains', value };
}

export function encodeQuery(q: ReportQuery): string {
  const wire: WireQuery = [
    q.report,
    q.range,
    q.filters.map((g) => g.filters.map(toWireFilter)),
    q.sort ? [q.sort.key, q.sort.dir === 'asc' ? 1 : -1] : 0,
    q.page,
    q.top,
    q.public ? 1 : 0,
  ];
  return PREFIX + Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
}

/**
 * The query a button value holds, checked against the catalog; null for anything
 * tampered, garbled, from another version, or naming what the catalog does not know.
 */
export function decodeQuery(s: string, catalog: ReportCatalog): ReportQuery | null {
  if (typeof s !== 'string' || s.length > MAX_ENCODED_LENGTH || !s.startsWith(PREFIX)) return null;
  const body = s.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return null;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = wireQuery.safeParse(json);
  if (!parsed.success) return null;
  const [report, range, groups, sort, page, top, pub] = parsed.data;
  if (!Object.hasOwn(catalog, report)) return null;
  const def = catalog[report as ReportId];
  const normalized = normalizeRange(range);
  if (!normalized.ok) return null;
  if (sort !== 0 && !sortFields(def).includes(sort[0])) return null;
  if (groups.reduce((n, g) => n + g.length, 0) > MAX_FILTERS) return null;
  const filters: FilterGroup[] = [];
  for (const group of groups) {
    const conditions = group.map(fromWireFilter);
    if (conditions.some((c) => c === undefined)) return null;
    filters.push({ filters: conditions as FilterCondition[] });
  }
  const query: ReportQuery = { v: 1, report: def.id, range: normalized.range, filters, page, top };
  if (sort !== 0) query.sort = { key: sort[0], dir: sort[1] === 1 ? 'asc' : 'desc' };
  if (pub === 1) query.public = true;
  return query;
}

// --- Changing one thing ------------------------------------------------------

function copy(q: ReportQuery): ReportQuery {
  const out: ReportQuery = { ...q, filters: cloneGroups(q.filters) };
  if (q.sort) out.sort = { ...q.sort };
  return out;
}

export function withPage(q: ReportQuery, page: number): ReportQuery {
  const p = Number.isFinite(page) ? Math.min(MAX_PAGE, Math.max(1, Math.trunc(page))) : 1;
  return { ...copy(q), page: p };
}

/** A range when.ts does not read leaves the query as it was. */
export function withRange(q: ReportQuery, range: string): ReportQuery {
  const normalized = normalizeRange(range);
  return normalized.ok ? { ...copy(q), range: normalized.range, page: 1 } : copy(q);
}

/** undefined goes back to the report's default sort. */
export function withSort(q: ReportQuery, sort: { key: string; dir: SortDir } | undefined): ReportQuery {
  const out = { ...copy(q), page: 1 };
  if (sort) out.sort = { ...sort };
  else delete out.sort;
  return out;
}

/**
 * Adds a condition. Without groupIndex it narrows the whole result: ANDed into every
 * group (a new group when there is none). With groupIndex it goes into that group, or
 * starts a new ORed group when groupIndex is the number of groups. Other indexes, an
 * identical condition already present, or the MAX_FILTERS cap leave the query as it was.
 */
export function withFilter(q: ReportQuery, condition: FilterCondition, groupIndex?: number): ReportQuery {
  const out = copy(q);
  const groups = out.filters;
  const add = (g: FilterGroup) => {
    if (!g.filters.some((f) => sameCondition(f, condition))) g.filters.push({ ...condition });
  };
  if (groupIndex === undefined) {
    if (groups.length === 0) groups.push({ filters: [] });
    groups.forEach(add);
  } else if (groupIndex === groups.length) {
    groups.push({ filters: [{ ...condition }] });
  } else {
    const group = groups[groupIndex];
    if (!group) return copy(q);
    add(group);
  }
  if (groups.reduce((n, g) => n + g.filters.length, 0) > MAX_FILTERS) return copy(q);
  return { ...out, page: 1 };
}

/** Removes one condition; a group left empty goes too. Unknown indexes change nothing. */
export function withoutFilter(q: ReportQuery, groupIndex: number, filterIndex: number): ReportQuery {
  const out = copy(q);
  const group = out.filters[groupIndex];
  if (!group || filterIndex < 0 || filterIndex >= group.filters.length) return out;
  group.filters.splice(filterIndex, 1);
  if (group.filters.length === 0) out.filters.splice(groupIndex, 1);
  return { ...out, page: 1 };
}

/**
 * Switches report, keeping range, filters and page size. A sort carries over by its
 * friendly name (visits, duration, …) when the new report has one; otherwise the new
 * report's default applies.
 */
export function withReport(q: ReportQuery, report: ReportId, catalog: ReportCatalog): ReportQuery {
  const out: ReportQuery = { ...copy(q), report, page: 1 };
  delete out.sort;
  if (q.sort) {
    const from = catalog[q.report];
    const to = catalog[report];
    const alias = Object.keys(from.sortKeys).find((k) => from.sortKeys[k] === q.sort?.key);
    const key = alias !== undefined ? to.sortKeys[alias] : undefined;
    if (key !== undefined) out.sort = { key, dir: q.sort.dir };
    else if (sortFields(to).includes(q.sort.key)) out.sort = { ...q.sort };
  }
  return out;
}
