/**
 * The 13 Marketing reports: which rows each builds from a list of visits,
 * its sort keys and default sort, and pure sorting and paging.
 */

import { SOURCE_LABELS } from './catalog.js';
import type { Visit, VisitEntry, Visitor } from './model.js';
import { uuidFromName } from './random.js';

export type ReportKind = 'location' | 'traffic' | 'user-agent' | 'pages' | 'visitors' | 'visits';

export interface SortParams {
  readonly key: string;
  readonly value: 1 | -1;
}

export interface ReportSpec {
  readonly path: string;
  readonly kind: ReportKind;
  readonly defaultSort: SortParams;
  /** Keys accepted in sort_params.key. */
  readonly sortKeys: readonly string[];
  /** The unique field that breaks ties (ascending), so paging is deterministic. */
  readonly tiebreak: string;
}

export interface LocationRow {
  name: string;
  label: string;
  total_visits: number;
  unique_visitors: number;
  /** Seconds, one decimal. */
  average_duration: number;
}

export interface TrafficRow extends LocationRow {
  id: string;
}

export interface UserAgentRow {
  name: string;
  total_visits: number;
  unique_visitors: number;
  average_duration: number;
}

export interface PageRow {
  full_url: string;
  total: number;
  visitors: number;
  avg_duration: number;
}

export type ReportRow = LocationRow | TrafficRow | UserAgentRow | PageRow | Visitor | Visit;

const LOCATION_KEYS = ['name', 'label', 'total_visits', 'unique_visitors', 'average_duration'];
const USER_AGENT_KEYS = ['name', 'total_visits', 'unique_visitors', 'average_duration'];

function spec(path: string, kind: ReportKind): ReportSpec {
  switch (kind) {
    case 'location':
      return {
        path,
        kind,
        defaultSort: { key: 'total_visits', value: -1 },
        sortKeys: LOCATION_KEYS,
        tiebreak: 'label',
      };
    case 'traffic':
      return {
        path,
        kind,
        defaultSort: { key: 'total_visits', value: -1 },
        sortKeys: [...LOCATION_KEYS, 'id'],
        tiebreak: 'name',
      };
    case 'user-agent':
      return {
        path,
        kind,
        defaultSort: { key: 'total_visits', value: -1 },
        sortKeys: USER_AGENT_KEYS,
        tiebreak: 'name',
      };
    case 'pages':
      return {
        path,
        kind,
        defaultSort: { key: 'total', value: -1 },
        sortKeys: ['full_url', 'total', 'visitors', 'avg_duration'],
        tiebreak: 'full_url',
      };
    case 'visitors':
      return {
        path,
        kind,
        defaultSort: { key: 'created', value: -1 },
        sortKeys: ['created', 'id', 'first_seen', 'last_seen'],
        tiebreak: 'id',
      };
    case 'visits':
      return {
        path,
        kind,
        defaultSort: { key: 'created', value: -1 },
        sortKeys: ['created', 'date', 'id', 'visitor_id', 'url', 'referrer', 'ip', 'timezone', 'duration'],
        tiebreak: 'id',
      };
  }
}

/** Every Marketing path and its report. */
export const REPORTS: ReadonlyMap<string, ReportSpec> = new Map(
  (
    [
      ['/cities', 'location'],
      ['/countries', 'location'],
      ['/states', 'location'],
      ['/pages', 'pages'],
      ['/traffic/campaigns', 'traffic'],
      ['/traffic/channels', 'traffic'],
      ['/traffic/sources', 'traffic'],
      ['/user-agent/browsers', 'user-agent'],
      ['/user-agent/devices', 'user-agent'],
      ['/user-agent/extensions', 'user-agent'],
      ['/user-agent/os', 'user-agent'],
      ['/visitors', 'visitors'],
      ['/visits', 'visits'],
    ] as const
  ).map(([path, kind]) => [path, spec(path, kind)]),
);

// ---------------------------------------------------------------- grouping

interface Group {
  readonly first: Visit;
  count: number;
  duration: number;
  readonly visitors: Set<string>;
}

type KeyOf = (entry: VisitEntry) => string | null | readonly string[];

function group(entries: readonly VisitEntry[], keyOf: KeyOf): Map<string, Group> {
  const groups = new Map<string, Group>();
  const add = (key: string, visit: Visit): void => {
    let g = groups.get(key);
    if (!g) {
      g = { first: visit, count: 0, duration: 0, visitors: new Set() };
      groups.set(key, g);
    }
    g.count++;
    g.duration += visit.duration;
    g.visitors.add(visit.visitor_id);
  };
  for (const entry of entries) {
    const key = keyOf(entry);
    if (key === null) continue;
    if (typeof key === 'string') add(key, entry.visit);
    else if (key.length === 1) add(key[0] as string, entry.visit);
    else if (key.length > 1) for (const k of new Set(key)) add(k, entry.visit);
  }
  return groups;
}

const average = (g: Group): number => Math.round((g.duration / g.count) * 10) / 10;

const stats = (g: Group) => ({ total_visits: g.count, unique_visitors: g.visitors.size, average_duration: average(g) });

function locationRows(
  entries: readonly VisitEntry[],
  keyOf: (e: VisitEntry) => string,
  nameOf: (v: Visit) => string,
): LocationRow[] {
  return [...group(entries, keyOf)].map(([label, g]) => ({ name: nameOf(g.first), label, ...stats(g) }));
}

function trafficRows(
  entries: readonly VisitEntry[],
  nameOf: (v: Visit) => string | null,
  idOf: (v: Visit) => string | null,
  labelOf: (name: string) => string,
  kind: string,
): TrafficRow[] {
  return [...group(entries, (e) => nameOf(e.visit))].map(([name, g]) => ({
    id: idOf(g.first) || uuidFromName(`${kind}:${name}`),
    name,
    label: labelOf(name),
    ...stats(g),
  }));
}

function userAgentRows(entries: readonly VisitEntry[], keyOf: KeyOf): UserAgentRow[] {
  return [...group(entries, keyOf)].map(([name, g]) => ({ name, ...stats(g) }));
}

/** The unsorted rows of a report over the given (already date-ranged and filtered) visits. */
export function buildRows(
  report: ReportSpec,
  entries: readonly VisitEntry[],
  visitorOf: (id: string) => Visitor | undefined,
): ReportRow[] {
  switch (report.path) {
    case '/countries':
      return locationRows(
        entries,
        (e) => e.facts.countryLabel,
        (v) => v.location.country,
      );
    case '/states':
      return locationRows(
        entries,
        (e) => e.facts.stateLabel,
        (v) => v.location.state,
      );
    case '/cities':
      return locationRows(
        entries,
        (e) => e.facts.cityLabel,
        (v) => v.location.city,
      );
    case '/traffic/sources':
      return trafficRows(
        entries,
        (v) => v.trafficSource.source,
        (v) => v.trafficSource.source_id,
        (n) => SOURCE_LABELS[n] ?? n,
        'source',
      );
    case '/traffic/channels':
      return trafficRows(
        entries,
        (v) => v.trafficSource.channel,
        (v) => v.trafficSource.channel_id,
        (n) => n,
        'channel',
      );
    case '/traffic/campaigns':
      return trafficRows(
        entries,
        (v) => v.trafficSource.campaign,
        (v) => v.trafficSource.campaign_id,
        (n) => n,
        'campaign',
      );
    case '/user-agent/browsers':
      return userAgentRows(entries, (e) => e.visit.browser.name);
    case '/user-agent/devices':
      return userAgentRows(entries, (e) => e.visit.device.name);
    case '/user-agent/os':
      return userAgentRows(entries, (e) => e.visit.device.os.name);
    case '/user-agent/extensions':
      return userAgentRows(entries, (e) => e.visit.browser.extensions);
    case '/pages':
      return [...group(entries, (e) => e.facts.pageUrl)].map(([full_url, g]) => ({
        full_url,
        total: g.count,
        visitors: g.visitors.size,
        avg_duration: average(g),
      }));
    case '/visitors': {
      const seen = new Set<string>();
      const rows: Visitor[] = [];
      for (const { visit } of entries) {
        if (seen.has(visit.visitor_id)) continue;
        seen.add(visit.visitor_id);
        const visitor = visitorOf(visit.visitor_id);
        if (visitor) rows.push(visitor);
      }
      return rows;
    }
    case '/visits':
      return entries.map((e) => e.visit);
    default:
      throw new Error(`no report for ${report.path}`);
  }
}

// ---------------------------------------------------------------- sorting and paging

type Key = string | number;

const DATE_FIELDS = new Set(['date', 'first_seen', 'last_seen']);

function sortKeyOf(value: unknown): Key {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return value.toLowerCase();
  return '';
}

function compareKeys(a: Key, b: Key): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Sorts rows by `sort.key` (numbers numerically, strings case-insensitively by
 * code unit), descending for -1 and ascending for 1; ties go by the report's
 * unique tiebreak field, ascending. `created` is first_seen for visitors and
 * date for visits. Returns a new array.
 */
export function sortRows<T extends object>(report: ReportSpec, rows: readonly T[], sort: SortParams): T[] {
  const field = sort.key === 'created' ? (report.kind === 'visits' ? 'date' : 'first_seen') : sort.key;
  // ISO timestamps order correctly as they are; no need to lower-case 40,000 of them.
  const isDate = DATE_FIELDS.has(field);
  const items = rows.map((row) => {
    const record = row as Record<string, unknown>;
    const raw = record[field];
    const tieValue = record[report.tiebreak];
    const tie = typeof tieValue === 'string' ? tieValue : tieValue == null ? '' : JSON.stringify(tieValue);
    const key = isDate && typeof raw === 'string' ? raw : sortKeyOf(raw);
    return { row, key, raw: typeof raw === 'string' && !isDate ? raw : '', tie: tie.toLowerCase(), tieRaw: tie };
  });
  items.sort((a, b) => {
    const primary = compareKeys(a.key, b.key) || compareKeys(a.raw, b.raw);
    if (primary !== 0) return primary * sort.value;
    return compareKeys(a.tie, b.tie) || compareKeys(a.tieRaw, b.tieRaw);
  });
  return items.map((item) => item.row);
}

/** Page `page` (1-based) of `limit` rows; [] past the last page. */
export function paginate<T>(rows: readonly T[], page: number, limit: number): T[] {
  const start = (page - 1) * limit;
  return start >= rows.length ? [] : rows.slice(start, start + limit);
}
