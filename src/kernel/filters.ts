/**
 * Filters: the API's filter_groups (filters inside a group ANDed, groups ORed),
 * the objects people may filter on, and the filter grammar of the command
 * language (`country:US,DE`, `page~/blog`, `city:"New York"`, `or`).
 */
import { reportNames, type ReportCatalog } from './catalog.js';
import { closest, code, didYouMean, type Segment, type Token } from './text.js';

export type FilterOperator = 'contains' | 'is_any_of';

export interface FilterCondition {
  object: string;
  field: string;
  operator: FilterOperator;
  value: string | string[];
}

export interface FilterGroup {
  filters: FilterCondition[];
}

/** The filter objects people may use, each with its fields (the first is the default). */
export const FILTER_FIELDS: Readonly<Record<string, readonly string[]>> = {
  country: ['name', 'code'],
  state: ['name'],
  city: ['name'],
  page: ['name', 'url'],
  source: ['name'],
  channel: ['name'],
  campaign: ['name'],
  browser: ['name'],
  device: ['name', 'type'],
  os: ['name'],
  extension: ['name'],
  visitor: ['id', 'name'],
};
export const DEFAULT_FILTER_FIELD = 'name';
/** Filters across all groups; keeps requests and button values bounded. */
export const MAX_FILTERS = 50;

export function isFilterField(object: string, field: string): boolean {
  return Object.hasOwn(FILTER_FIELDS, object) && (FILTER_FIELDS[object] ?? []).includes(field);
}

export function sameCondition(a: FilterCondition, b: FilterCondition): boolean {
  return (
    a.object === b.object &&
    a.field === b.field &&
    a.operator === b.operator &&
    JSON.stringify(a.value) === JSON.stringify(b.value)
  );
}

export function cloneGroups(groups: readonly FilterGroup[]): FilterGroup[] {
  return groups.map((g) => ({
    filters: g.filters.map((f) => ({ ...f, value: Array.isArray(f.value) ? [...f.value] : f.value })),
  }));
}

/** The filter that keeps one visitor's rows. */
export function visitorFilter(visitorId: string): FilterGroup[] {
  return [{ filters: [{ object: 'visitor', field: 'id', operator: 'is_any_of', value: [visitorId] }] }];
}

/** Filter groups back into the command language (`country:DE page~/blog or city:"New York"`). */
export function filtersToText(groups: readonly FilterGroup[]): string {
  const quote = (v: string) => (/[\s,"]/.test(v) ? `"${v.replace(/"/g, '')}"` : v);
  return groups
    .filter((g) => g.filters.length > 0)
    .map((g) =>
      g.filters
        .map((f) => {
          const target = f.field === DEFAULT_FILTER_FIELD ? f.object : `${f.object}.${f.field}`;
          const values = Array.isArray(f.value) ? f.value : [f.value];
          return f.operator === 'contains'
            ? `${target}~${quote(values[0] ?? '')}`
            : `${target}:${values.map(quote).join(',')}`;
        })
        .join(' '),
    )
    .join(' or ');
}

/**
 * Why filters that found nothing probably missed, when it shows: codes given to a field
 * of names (`country:US`, which matches the name "US"), or names given to a field of codes.
 * The fix is said in the command language.
 */
export function likelyFilterFix(groups: readonly FilterGroup[]): string | undefined {
  for (const f of groups.flatMap((g) => g.filters)) {
    if (f.operator !== 'is_any_of' || !FILTER_FIELDS[f.object]?.includes('code')) continue;
    const values = Array.isArray(f.value) ? f.value : [f.value];
    const codes = values.every((v) => /^[A-Za-z]{2,3}$/.test(v));
    if (f.field === 'name' && codes) {
      return `\`${f.object}:${values.join(',')}\` matches ${f.object} names; for codes, say \`${f.object}.code:${values.map((v) => v.toUpperCase()).join(',')}\`.`;
    }
    if (f.field === 'code' && !codes)
      return `\`${f.object}.code\` takes codes like US or DE; for names, say \`${f.object}:${values.join(',')}\`.`;
  }
  return undefined;
}

// --- The grammar ----------------------------------------------------------------

/** What a bad filter gets: one line, user input in backticks (the caller escapes &, <, >). */
export interface FilterProblem {
  problem: string;
}

export const OR_ERROR: FilterProblem = { problem: '`or` goes between two filters, e.g. `country:US or country:DE`.' };

const ALIASES = new WeakMap<ReportCatalog, ReadonlyMap<string, string>>();

/** Plurals and report aliases people may type for a filter object (`countries:US`, `geo:US`); made once a catalog. */
export function objectAliases(catalog: ReportCatalog): ReadonlyMap<string, string> {
  const made = ALIASES.get(catalog);
  if (made) return made;
  const aliases = new Map<string, string>();
  for (const def of Object.values(catalog)) {
    const object = def.rowFilter?.object;
    if (object === undefined || !Object.hasOwn(FILTER_FIELDS, object)) continue;
    for (const name of reportNames(def)) {
      if (!Object.hasOwn(FILTER_FIELDS, name)) aliases.set(name, object);
    }
  }
  ALIASES.set(catalog, aliases);
  return aliases;
}

export interface OperatorAt {
  op: ':' | '~';
  /** The text before the operator, in the token's first (unquoted) segment. */
  head: string;
  /** The first segment's text after the operator. */
  rest: string;
}

/** Where a filter's `:` or `~` is, if the token is shaped like a filter. */
export function findOperator(token: Token): OperatorAt | undefined {
  const first = token.segments[0];
  if (!first || first.quoted) return undefined;
  const at = first.text.search(/[:~]/);
  if (at < 0) return undefined;
  const head = first.text.slice(0, at);
  if (!/^[\p{L}\p{N}_.-]*$/u.test(head)) return undefined;
  return { op: first.text[at] === '~' ? '~' : ':', head, rest: first.text.slice(at + 1) };
}

/** `a,"b, c",d` → ["a", "b, c", "d"]: commas split only outside quotes. */
function splitValues(segments: Segment[]): string[] {
  const values: string[] = [''];
  for (const seg of segments) {
    if (seg.quoted) {
      values[values.length - 1] += seg.text;
      continue;
    }
    const [firstPart = '', ...parts] = seg.text.split(',');
    values[values.length - 1] += firstPart;
    values.push(...parts);
  }
  return values.map((v) => v.trim());
}

function endsWithComma(segments: Segment[]): boolean {
  const last = segments[segments.length - 1];
  return last !== undefined && !last.quoted && last.text.endsWith(',');
}

/**
 * The filter at tokens[i]. A value may follow after a space (`country: US`), and a list
 * may continue after a comma and a space (`country:US, DE`); `canTake` says which of the
 * following tokens may be a value.
 */
export function parseFilterAt(
  tokens: readonly Token[],
  i: number,
  at: OperatorAt,
  aliases: ReadonlyMap<string, string>,
  canTake: (token: Token) => boolean,
): { condition: FilterCondition; consumed: number } | FilterProblem {
  const token = tokens[i] as Token;
  const [rawObject = '', ...fieldParts] = at.head.toLowerCase().split('.');
  const rawField = fieldParts.join('.');
  const objects = Object.keys(FILTER_FIELDS);
  if (rawObject === '') {
    return { problem: `A filter needs an object before \`${at.op}\`, e.g. \`country:US\` or \`page~/blog\`.` };
  }
  const object = Object.hasOwn(FILTER_FIELDS, rawObject) ? rawObject : aliases.get(rawObject);
  if (object === undefined) {
    const suggestion = closest(rawObject, [...objects.map((o): [string, string] => [o, o]), ...aliases]);
    const tail = suggestion === undefined ? ` Filters: ${objects.join(', ')}.` : didYouMean(suggestion);
    return { problem: `Unknown filter ${code(rawObject)}.${tail}` };
  }
  const fields = FILTER_FIELDS[object] ?? [DEFAULT_FILTER_FIELD];
  const field = fieldParts.length === 0 ? DEFAULT_FILTER_FIELD : rawField;
  if (!fields.includes(field)) {
    const suggestion = closest(
      field,
      fields.map((f): [string, string] => [f, f]),
    );
    return {
      problem: `\`${object}\` has no field ${code(field)}.${didYouMean(suggestion)} Fields of ${object}: ${fields.join(', ')}.`,
    };
  }

  const segments: Segment[] = [
    ...(at.rest === '' ? [] : [{ text: at.rest, quoted: false }]),
    ...token.segments.slice(1),
  ];
  let consumed = 1;
  const more = () => tokens[i + consumed] !== undefined && canTake(tokens[i + consumed] as Token);
  if (segments.length === 0 && more()) segments.push(...(tokens[i + consumed++] as Token).segments);
  while (at.op === ':' && endsWithComma(segments) && more())
    segments.push(...(tokens[i + consumed++] as Token).segments);

  const example = at.op === ':' ? `${object}:"a value"` : `${object}~text`;
  const emptyValue = {
    problem: `The filter ${code(at.head + at.op)} has an empty value; write it like \`${example}\`.`,
  };
  if (at.op === '~') {
    const value = segments
      .map((s) => s.text)
      .join('')
      .trim();
    if (value === '') return emptyValue;
    return { consumed, condition: { object, field, operator: 'contains', value } };
  }
  const values = splitValues(segments);
  if (values.some((v) => v === '')) return emptyValue;
  return { consumed, condition: { object, field, operator: 'is_any_of', value: values } };
}

/** Filters alone (the digest form, a digest's filters): every token a filter or `or`. */
export function parseFilters(
  tokens: readonly Token[],
  catalog: ReportCatalog,
): { filters: FilterGroup[] } | FilterProblem {
  const aliases = objectAliases(catalog);
  const groups: FilterGroup[] = [{ filters: [] }];
  let count = 0;
  for (let i = 0; i < tokens.length;) {
    const token = tokens[i] as Token;
    if (token.word === 'or') {
      if ((groups[groups.length - 1] as FilterGroup).filters.length === 0) return OR_ERROR;
      groups.push({ filters: [] });
      i++;
      continue;
    }
    const at = findOperator(token);
    if (!at)
      return {
        problem: `${code(token.text)} is not a filter; write filters like \`country:Germany\` or \`page~/blog\`.`,
      };
    const parsed = parseFilterAt(tokens, i, at, aliases, (t) => t.word !== 'or' && !findOperator(t));
    if ('problem' in parsed) return parsed;
    if (++count > MAX_FILTERS) return { problem: `Too many filters: at most ${MAX_FILTERS}.` };
    (groups[groups.length - 1] as FilterGroup).filters.push(parsed.condition);
    i += parsed.consumed;
  }
  if ((groups[groups.length - 1] as FilterGroup).filters.length === 0 && groups.length > 1) return OR_ERROR;
  return { filters: groups.filter((g) => g.filters.length > 0) };
}
