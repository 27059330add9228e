/**
 * A Marketing request (query string + JSON body) → a validated ReportQuery,
 * or a 400 ApiFailure saying exactly what is wrong.
 */

import type { ReportSpec, SortParams } from './aggregate.js';
import { badRequest } from './errors.js';
import { groupsKey, parseFilterGroups, type CompiledGroups } from './filters.js';

/** The spec's defaults, followed literally. */
export const DEFAULT_START_DATE = '1970-01-01';
export const DEFAULT_END_DATE = '2024-11-28';
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface ReportQuery {
  readonly report: ReportSpec;
  readonly startDay: string;
  readonly endDay: string;
  readonly groups: CompiledGroups;
  readonly groupsKey: string;
  readonly sort: SortParams;
  readonly page: number;
  readonly limit: number;
}

const BODY_MEMBERS = ['filter_groups', 'pagination', 'sort_params'];
const PAGINATION_MEMBERS = ['current_page', 'limit'];
const SORT_MEMBERS = ['key', 'value'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A real calendar date in the form YYYY-MM-DD. */
export function isDay(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function dateParam(query: URLSearchParams, name: string, fallback: string): string {
  const values = query.getAll(name);
  if (values.length > 1) throw badRequest(`${name} is given more than once`);
  const value = values[0];
  if (value === undefined) return fallback;
  if (!isDay(value)) throw badRequest(`${name} must be a date in the form YYYY-MM-DD, got '${value.slice(0, 40)}'`);
  return value;
}

function onlyMembers(value: Record<string, unknown>, known: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw badRequest(`${where} has an unknown member '${key}' (known: ${known.join(', ')})`);
  }
}

function integer(value: unknown, where: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `${min}..${max}`;
    throw badRequest(`${where} must be an integer ${range}, got ${JSON.stringify(value) ?? String(value)}`);
  }
  return value;
}

/** Parses the raw body text: empty means {}; anything else must be a JSON object. */
export function parseBody(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw badRequest('the request body is not valid JSON');
  }
  if (!isRecord(body)) throw badRequest('the request body must be a JSON object');
  return body;
}

export function parseReportQuery(report: ReportSpec, query: URLSearchParams, rawBody: string): ReportQuery {
  const startDay = dateParam(query, 'start_date', DEFAULT_START_DATE);
  const endDay = dateParam(query, 'end_date', DEFAULT_END_DATE);
  if (startDay > endDay) throw badRequest(`start_date ${startDay} is after end_date ${endDay}`);

  const body = parseBody(rawBody);
  onlyMembers(body, BODY_MEMBERS, 'the request body');

  const groups = parseFilterGroups(body['filter_groups']);

  let page = 1;
  let limit = DEFAULT_LIMIT;
  const pagination = body['pagination'];
  if (pagination !== undefined && pagination !== null) {
    if (!isRecord(pagination)) throw badRequest('pagination must be an object with current_page and limit');
    onlyMembers(pagination, PAGINATION_MEMBERS, 'pagination');
    if (pagination['current_page'] !== undefined)
      page = integer(pagination['current_page'], 'pagination.current_page', 1, Number.MAX_SAFE_INTEGER);
    if (pagination['limit'] !== undefined) limit = integer(pagination['limit'], 'pagination.limit', 1, MAX_LIMIT);
  }

  let sort: SortParams = report.defaultSort;
  const sortParams = body['sort_params'];
  if (sortParams !== undefined && sortParams !== null) {
    if (!isRecord(sortParams)) throw badRequest('sort_params must be an object with key and value');
    onlyMembers(sortParams, SORT_MEMBERS, 'sort_params');
    const key = sortParams['key'] ?? report.defaultSort.key;
    if (typeof key !== 'string' || !report.sortKeys.includes(key)) {
      throw badRequest(
        `unknown sort key ${JSON.stringify(key)} for ${report.path} (known: ${report.sortKeys.join(', ')})`,
      );
    }
    const value = sortParams['value'] ?? -1;
    if (value !== 1 && value !== -1)
      throw badRequest(`sort_params.value must be -1 (descending) or 1 (ascending), got ${JSON.stringify(value)}`);
    sort = { key, value };
  }

  return { report, startDay, endDay, groups, groupsKey: groupsKey(groups), sort, page, limit };
}
