/**
 * The 13 Marketing reports as data. A new report is one entry here: its path, its
 * kind (which fixes the shape of its rows), its default sort key, friendly sort
 * aliases, the filter object a row stands for, where a row drills down to, and the
 * columns to show.
 */
import type { ReportRow } from './records.js';

export type { ReportRow };

export const REPORT_IDS = [
  'sources',
  'channels',
  'campaigns',
  'pages',
  'countries',
  'states',
  'cities',
  'browsers',
  'devices',
  'os',
  'extensions',
  'visitors',
  'visits',
] as const;
export type ReportId = (typeof REPORT_IDS)[number];

export type ReportKind = 'aggregate' | 'pages' | 'visitors' | 'visits';

export type ColumnFormat = 'text' | 'count' | 'duration' | 'datetime' | 'url' | 'id';

export interface Column {
  /** The row field shown, as a dotted path into the row (`location.country`). */
  field: string;
  label: string;
  format: ColumnFormat;
}

export interface ReportDef {
  id: ReportId;
  title: string;
  path: string;
  kind: ReportKind;
  /** Other words a person may type for it. Prefixes of the id work too. */
  aliases: readonly string[];
  /** The spec's default sort_params.key for the path. */
  defaultSort: string;
  /** Friendly sort words → the API's field name. The API's own names are accepted as they are. */
  sortKeys: Readonly<Record<string, string>>;
  /** The filter object a row of this report stands for, and the row field holding its value. */
  rowFilter?: { object: string; field: string; rowField: string };
  /** The field that holds the row's count, for bars and totals. */
  countField?: string;
  /** The report a row breaks down into by default; absent: its rows cannot be drilled into. */
  drillTo?: ReportId;
  /** May this report break another report's row down? */
  breaksDown: boolean;
  /** The field of a row holding a visitor id, for "Inspect visitor". */
  visitorField?: string;
  columns: readonly Column[];
}

const AGGREGATE_SORT = {
  visits: 'total_visits',
  unique: 'unique_visitors',
  visitors: 'unique_visitors',
  duration: 'average_duration',
  name: 'name',
} as const;

const AGGREGATE_COLUMNS: readonly Column[] = [
  { field: 'name', label: 'Name', format: 'text' },
  { field: 'total_visits', label: 'Visits', format: 'count' },
  { field: 'unique_visitors', label: 'Unique', format: 'count' },
  { field: 'average_duration', label: 'Avg time', format: 'duration' },
];

function aggregate(
  id: ReportId,
  title: string,
  path: string,
  object: string,
  drillTo: ReportId,
  aliases: readonly string[] = [],
): ReportDef {
  return {
    id,
    drillTo,
    breaksDown: true,
    title,
    path,
    kind: 'aggregate',
    aliases,
    defaultSort: 'total_visits',
    sortKeys: AGGREGATE_SORT,
    rowFilter: { object, field: 'name', rowField: 'name' },
    countField: 'total_visits',
    columns: AGGREGATE_COLUMNS,
  };
}

export const REPORTS: Readonly<Record<ReportId, ReportDef>> = {
  sources: aggregate('sources', 'Sources', '/traffic/sources', 'source', 'pages', ['source', 'src', 'referrers']),
  channels: aggregate('channels', 'Channels', '/traffic/channels', 'channel', 'sources', ['channel', 'mediums']),
  campaigns: aggregate('campaigns', 'Campaigns', '/traffic/campaigns', 'campaign', 'pages', ['campaign', 'utm']),
  pages: {
    id: 'pages',
    title: 'Pages',
    path: '/pages',
    kind: 'pages',
    drillTo: 'sources',
    breaksDown: true,
    aliases: ['page', 'urls', 'paths'],
    defaultSort: 'total',
    sortKeys: {
      visits: 'total',
      unique: 'visitors',
      visitors: 'visitors',
      duration: 'avg_duration',
      name: 'full_url',
      url: 'full_url',
    },
    rowFilter: { object: 'page', field: 'url', rowField: 'full_url' },
    countField: 'total',
    columns: [
      { field: 'full_url', label: 'Page', format: 'url' },
      { field: 'total', label: 'Visits', format: 'count' },
      { field: 'visitors', label: 'Unique', format: 'count' },
      { field: 'avg_duration', label: 'Avg time', format: 'duration' },
    ],
  },
  countries: aggregate('countries', 'Countries', '/countries', 'country', 'states', ['country', 'geo']),
  states: aggregate('states', 'States', '/states', 'state', 'cities', ['state', 'regions', 'region']),
  cities: aggregate('cities', 'Cities', '/cities', 'city', 'pages', ['city']),
  browsers: aggregate('browsers', 'Browsers', '/user-agent/browsers', 'browser', 'os', ['browser']),
  devices: aggregate('devices', 'Devices', '/user-agent/devices', 'device', 'browsers', ['device']),
  os: aggregate('os', 'Operating systems', '/user-agent/os', 'os', 'browsers', ['operating-systems', 'platforms']),
  extensions: aggregate('extensions', 'Browser extensions', '/user-agent/extensions', 'extension', 'browsers', [
    'extension',
    'addons',
  ]),
  visitors: {
    id: 'visitors',
    title: 'Visitors',
    path: '/visitors',
    kind: 'visitors',
    breaksDown: false,
    visitorField: 'id',
    aliases: ['visitor', 'people', 'users'],
    defaultSort: 'created',
    sortKeys: { created: 'created', first: 'first_seen', last: 'last_seen', id: 'id', name: 'id' },
    rowFilter: { object: 'visitor', field: 'id', rowField: 'id' },
    columns: [
      { field: 'id', label: 'Visitor', format: 'id' },
      { field: 'company.name', label: 'Company', format: 'text' },
      { field: 'first_seen', label: 'First seen', format: 'datetime' },
      { field: 'last_seen', label: 'Last seen', format: 'datetime' },
    ],
  },
  visits: {
    id: 'visits',
    title: 'Visits',
    path: '/visits',
    kind: 'visits',
    breaksDown: true,
    visitorField: 'visitor_id',
    aliases: ['visit', 'sessions', 'hits'],
    defaultSort: 'created',
    sortKeys: { created: 'created', date: 'date', visitor: 'visitor_id', url: 'url', name: 'url' },
    columns: [
      { field: 'date', label: 'Date', format: 'datetime' },
      { field: 'visitor_id', label: 'Visitor', format: 'id' },
      { field: 'url', label: 'Page', format: 'url' },
      { field: 'location.country', label: 'Country', format: 'text' },
      { field: 'browser.name', label: 'Browser', format: 'text' },
    ],
  },
};

export type ReportCatalog = Readonly<Record<ReportId, ReportDef>>;

/** The API field names a report can be sorted by: its default and its sort aliases' targets. */
export function sortFields(def: ReportDef): string[] {
  return [...new Set([def.defaultSort, ...Object.values(def.sortKeys)])];
}

export function isReportId(id: unknown): id is ReportId {
  return typeof id === 'string' && (REPORT_IDS as readonly string[]).includes(id);
}
export function reportNames(def: ReportDef): string[] {
  return [def.id, ...def.aliases].map((n) => n.toLowerCase());
}

type ReportMatch = { ok: true; id: ReportId } | { ok: false; matches: ReportId[] };

/** An id, an alias, or a prefix of either that points at one report only. */
export function matchReport(word: string, catalog: ReportCatalog): ReportMatch {
  const w = word.toLowerCase();
  const defs = Object.values(catalog);
  const exact = defs.find((d) => reportNames(d).includes(w));
  if (exact) return { ok: true, id: exact.id };
  const matches = w === '' ? [] : defs.filter((d) => reportNames(d).some((n) => n.startsWith(w))).map((d) => d.id);
  const [only] = matches;
  return matches.length === 1 && only !== undefined ? { ok: true, id: only } : { ok: false, matches };
}
