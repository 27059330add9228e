/**
 * Slash-command text → a ReportQuery, a sub-command, or a one-line usage error.
 * Never throws: every input a person can type gets an answer.
 */
import type { ReportDef, ReportId } from '../../kernel/catalog.js';
import type { FilterCondition, FilterGroup } from '../../kernel/filters.js';
import { DEFAULT_RANGE, RANGE_ALIASES, RANGE_HINT, RANGE_LABELS, RANGE_WORDS, normalizeRange, rangeWord } from '../../kernel/dates.js';
import { quoteInput } from '../../kernel/format.js';
import {
  DEFAULT_FILTER_FIELD,
  DEFAULT_TOP,
  FILTER_FIELDS,
  MAX_FILTERS,
  MAX_TOP,
  sortFields,
  type ReportCatalog,
  type ReportQuery,
  type SortDir,
} from '../../kernel/query.js';

export const TRAFFIC_USAGE = '/traffic <report> [range] [filters…] [by <key> [asc|desc]] [top <n>] [public]';
export const VISITOR_USAGE = '/visitor <visitor_id> [visit <visit_id>]';

export interface CommandError {
  kind: 'error';
  /** One line; user input in it is quoted in backticks, cut to 40 characters. The caller escapes &, <, >. */
  message: string;
  usage: string;
}

export type TrafficCommand =
  | { kind: 'report'; query: ReportQuery }
  | { kind: 'help'; topic?: string }
  | { kind: 'digest'; args: string[] }
  | { kind: 'alerts'; args: string[] }
  | CommandError;

export type VisitorCommand = { kind: 'visitor'; visitorId: string; visitId?: string } | CommandError;

export interface ParseOptions {
  /** The channel's default range, used when none is typed (last7d otherwise). */
  defaultRange?: string;
  /** Rows per page when `top` is not typed (10 otherwise). */
  defaultTop?: number;
}

const fail = (message: string, usage = TRAFFIC_USAGE): CommandError => ({ kind: 'error', message, usage });
const code = (text: string): string => `\`${quoteInput(text)}\``;

// --- Tokens -----------------------------------------------------------------

/** Straight and typographic double quotes all open and close a quoted part. */
const QUOTES = new Set(['"', '“', '”', '„', '‟']);

interface Segment {
  text: string;
  quoted: boolean;
}

interface Token {
  segments: Segment[];
  /** The token with quotes removed. */
  text: string;
  /** Lower-case text when nothing in the token was quoted (only such tokens are keywords). */
  word?: string;
}

function makeToken(segments: Segment[]): Token {
  const text = segments.map((s) => s.text).join('');
  return segments.some((s) => s.quoted) ? { segments, text } : { segments, text, word: text.toLowerCase() };
}

/** Slack sends &, <, > as entities and wraps what it takes for a link in <url|label>. */
export function unescapeSlackText(text: string): string {
  return text
    .replace(/<((?:https?|mailto):[^<>|\s]*)(?:\|([^<>]*))?>/gi, (_m, url: string, label?: string) => label ?? url)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function tokenize(text: string): Token[] | CommandError {
  const tokens: Token[] = [];
  let segments: Segment[] | undefined;
  let buf = '';
  let quoteAt = -1;
  const chars = Array.from(text);
  const flush = (quoted: boolean) => {
    if (buf !== '' || quoted) (segments ??= []).push({ text: buf, quoted });
    buf = '';
  };
  chars.forEach((ch, i) => {
    if (quoteAt >= 0) {
      if (QUOTES.has(ch)) {
        flush(true);
        quoteAt = -1;
      } else buf += ch;
    } else if (QUOTES.has(ch)) {
      flush(false);
      segments ??= [];
      quoteAt = i;
    } else if (/\s/u.test(ch)) {
      flush(false);
      if (segments) tokens.push(makeToken(segments));
      segments = undefined;
    } else {
      buf += ch;
    }
  });
  if (quoteAt >= 0) {
    return fail(`A quote is not closed: ${code(chars.slice(quoteAt).join(''))}. Put a " at the end of the value.`);
  }
  flush(false);
  if (segments) tokens.push(makeToken(segments));
  return tokens;
}

// --- Did you mean -------------------------------------------------------------

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  const rows: number[][] = [];
  for (let i = 0; i <= s.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= t.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const up = rows[i - 1] as number[];
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min((up[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (up[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] ?? 0) + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return rows[s.length]?.[t.length] ?? Math.max(s.length, t.length);
}

/** The closest candidate within a few edits (fewer for short words), as [word, suggestion]. */
function closest(word: string, candidates: ReadonlyArray<readonly [string, string]>): string | undefined {
  const w = word.toLowerCase();
  const length = Array.from(w).length;
  if (length === 0 || length > 40) return undefined;
  const limit = length <= 4 ? 1 : length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const [candidate, suggestion] of candidates) {
    const d = editDistance(w, candidate);
    if (d <= limit && d < length && d < bestDistance) {
      best = suggestion;
      bestDistance = d;
    }
  }
  return best;
}

const didYouMean = (suggestion: string | undefined): string =>
  suggestion === undefined ? '' : ` Did you mean ${code(suggestion)}?`;

// --- Reports ------------------------------------------------------------------

const SUBCOMMANDS: Readonly<Record<string, 'help' | 'digest' | 'alerts'>> = {
  help: 'help',
  '?': 'help',
  digest: 'digest',
  digests: 'digest',
  alerts: 'alerts',
  alert: 'alerts',
};

function reportNames(def: ReportDef): string[] {
  return [def.id, ...def.aliases].map((n) => n.toLowerCase());
}

type ReportMatch = { ok: true; id: ReportId } | { ok: false; matches: ReportId[] };

/** An id, an alias, or a prefix of either that points at one report only. */
function matchReport(word: string, catalog: ReportCatalog): ReportMatch {
  const w = word.toLowerCase();
  const defs = Object.values(catalog);
  const exact = defs.find((d) => reportNames(d).includes(w));
  if (exact) return { ok: true, id: exact.id };
  const matches = w === '' ? [] : defs.filter((d) => reportNames(d).some((n) => n.startsWith(w))).map((d) => d.id);
  const [only] = matches;
  return matches.length === 1 && only !== undefined ? { ok: true, id: only } : { ok: false, matches };
}

function reportList(catalog: ReportCatalog): string {
  return Object.keys(catalog).join(', ');
}

function reportError(token: Token, catalog: ReportCatalog, matches: ReportId[]): CommandError {
  if (matches.length > 1) {
    return fail(`${code(token.text)} could be ${matches.join(', ')}; type more of the name.`);
  }
  if (looksLikeRange(token) || findOperator(token)) {
    return fail(`Start with a report, e.g. \`/traffic sources ${quoteInput(token.text)}\`. Reports: ${reportList(catalog)}.`);
  }
  const candidates: Array<[string, string]> = Object.values(catalog).flatMap((d) =>
    reportNames(d).map((n): [string, string] => [n, d.id]),
  );
  for (const sub of Object.keys(SUBCOMMANDS)) if (sub.length > 1) candidates.push([sub, sub]);
  const suggestion = closest(token.text, candidates);
  const tail = suggestion === undefined ? ` Reports: ${reportList(catalog)}.` : didYouMean(suggestion);
  return fail(`Unknown report ${code(token.text)}.${tail}`);
}

// --- Ranges -------------------------------------------------------------------

function looksLikeRange(token: Token): boolean {
  return token.word !== undefined && (rangeWord(token.word) !== undefined || /^\d/.test(token.word));
}

// --- Filters ------------------------------------------------------------------

/** Plurals and report aliases people may type for a filter object (`countries:US`, `geo:US`). */
function objectAliases(catalog: ReportCatalog): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const def of Object.values(catalog)) {
    const object = def.rowFilter?.object;
    if (object === undefined || !Object.hasOwn(FILTER_FIELDS, object)) continue;
    for (const name of reportNames(def)) if (!Object.hasOwn(FILTER_FIELDS, name)) aliases.set(name, object);
  }
  return aliases;
}

interface OperatorAt {
  op: ':' | '~';
  /** The text before the operator, in the token's first (unquoted) segment. */
  head: string;
  /** The first segment's text after the operator. */
  rest: string;
}

/** Where a filter's `:` or `~` is, if the token is shaped like a filter. */
function findOperator(token: Token): OperatorAt | undefined {
  const first = token.segments[0];
  if (!first || first.quoted) return undefined;
  const at = first.text.search(/[:~]/);
  if (at < 0) return undefined;
  const head = first.text.slice(0, at);
  if (!/^[\p{L}\p{N}_.-]*$/u.test(head)) return undefined;
  return { op: first.text[at] === '~' ? '~' : ':', head, rest: first.text.slice(at + 1) };
}

const KEYWORDS = new Set(['by', 'top', 'or', 'public', 'asc', 'desc']);

function isKeyword(token: Token | undefined): boolean {
  return token?.word !== undefined && (KEYWORDS.has(token.word) || /^top\d+$/.test(token.word));
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

type FilterParse = { ok: true; condition: FilterCondition; consumed: number } | CommandError;

/**
 * Parses the filter at tokens[i]. A value may follow after a space (`country: US`),
 * and a list may continue after a comma and a space (`country:US, DE`).
 */
function parseFilter(tokens: Token[], i: number, at: OperatorAt, aliases: Map<string, string>): FilterParse {
  const token = tokens[i] as Token;
  const [rawObject = '', ...fieldParts] = at.head.toLowerCase().split('.');
  const rawField = fieldParts.join('.');
  const objects = Object.keys(FILTER_FIELDS);
  if (rawObject === '') {
    return fail(`A filter needs an object before \`${at.op}\`, e.g. \`country:US\` or \`page~/blog\`.`);
  }
  const object = Object.hasOwn(FILTER_FIELDS, rawObject) ? rawObject : aliases.get(rawObject);
  if (object === undefined) {
    const suggestion = closest(rawObject, [...objects.map((o): [string, string] => [o, o]), ...aliases]);
    const tail = suggestion === undefined ? ` Filters: ${objects.join(', ')}.` : didYouMean(suggestion);
    return fail(`Unknown filter ${code(rawObject)}.${tail}`);
  }
  const fields = FILTER_FIELDS[object] ?? [DEFAULT_FILTER_FIELD];
  const field = fieldParts.length === 0 ? DEFAULT_FILTER_FIELD : rawField;
  if (!fields.includes(field)) {
    const suggestion = closest(field, fields.map((f): [string, string] => [f, f]));
    return fail(
      `\`${object}\` has no field ${code(field)}.${didYouMean(suggestion)} Fields of ${object}: ${fields.join(', ')}.`,
    );
  }

  const segments: Segment[] = [...(at.rest === '' ? [] : [{ text: at.rest, quoted: false }]), ...token.segments.slice(1)];
  let consumed = 1;
  const canTake = () => tokens[i + consumed] !== undefined && !isKeyword(tokens[i + consumed]);
  if (segments.length === 0 && canTake()) segments.push(...(tokens[i + consumed++] as Token).segments);
  while (at.op === ':' && endsWithComma(segments) && canTake()) {
    segments.push(...(tokens[i + consumed++] as Token).segments);
  }

  const example = at.op === ':' ? `${object}:"a value"` : `${object}~text`;
  const emptyValue = fail(`The filter ${code(at.head + at.op)} has an empty value; write it like \`${example}\`.`);
  if (at.op === '~') {
    const value = segments.map((s) => s.text).join('').trim();
    if (value === '') return emptyValue;
    return { ok: true, consumed, condition: { object, field, operator: 'contains', value } };
  }
  const values = splitValues(segments);
  if (values.some((v) => v === '')) return emptyValue;
  return { ok: true, consumed, condition: { object, field, operator: 'is_any_of', value: values } };
}

// --- Sort -----------------------------------------------------------------------

const TEXT_FORMATS = new Set(['text', 'url', 'id']);

/** Names and URLs sort A→Z by default; counts, durations and dates biggest/newest first. */
function defaultDir(def: ReportDef, key: string): SortDir {
  return def.columns.some((c) => c.field === key && TEXT_FORMATS.has(c.format)) ? 'asc' : 'desc';
}

function sortKeyList(def: ReportDef): string {
  const aliases = Object.keys(def.sortKeys);
  const extra = sortFields(def).filter((f) => !aliases.includes(f));
  return extra.length ? `${aliases.join(', ')} (or ${extra.join(', ')})` : aliases.join(', ');
}

function resolveSortKey(def: ReportDef, word: string): string | undefined {
  if (Object.hasOwn(def.sortKeys, word)) return def.sortKeys[word];
  return sortFields(def).includes(word) ? word : undefined;
}

// --- The command ------------------------------------------------------------------

function parseTop(word: string | undefined): number | undefined {
  if (word === undefined || !/^\d{1,4}$/.test(word)) return undefined;
  const n = Number(word);
  return n >= 1 && n <= MAX_TOP ? n : undefined;
}

const TOP_ERROR = `\`top\` needs a whole number from 1 to ${MAX_TOP}, e.g. \`top 25\`.`;

function defaultsFrom(opts: ParseOptions): { range: string; top: number } {
  const range = opts.defaultRange === undefined ? undefined : normalizeRange(opts.defaultRange);
  const top = opts.defaultTop;
  return {
    range: range?.ok ? range.range : DEFAULT_RANGE,
    top: top !== undefined && Number.isInteger(top) && top >= 1 && top <= MAX_TOP ? top : DEFAULT_TOP,
  };
}

/**
 * A sub-command's argument: the token with its quotes removed, except a filter with a
 * quoted part, which keeps its quotes (`country:"United States",Germany` is two values,
 * `city:"Washington, D.C."` one) so the sub-command can parse it with this grammar again.
 */
function subArg(token: Token): string {
  if (!token.segments.some((s) => s.quoted) || !findOperator(token)) return token.text;
  return token.segments.map((s) => (s.quoted ? `"${s.text}"` : s.text)).join('');
}

export function parseTrafficCommand(text: string, catalog: ReportCatalog, opts: ParseOptions = {}): TrafficCommand {
  const tokens = tokenize(unescapeSlackText(typeof text === 'string' ? text : ''));
  if (!Array.isArray(tokens)) return tokens;
  const [first, ...rest] = tokens;
  if (!first) return { kind: 'help' };

  const sub = first.word !== undefined && Object.hasOwn(SUBCOMMANDS, first.word) ? SUBCOMMANDS[first.word] : undefined;
  if (sub === 'help') {
    const topic = rest.map((t) => t.text).join(' ');
    return topic ? { kind: 'help', topic } : { kind: 'help' };
  }
  if (sub) return { kind: sub, args: rest.map(subArg) };

  const match = matchReport(first.text, catalog);
  if (!match.ok) return reportError(first, catalog, match.matches);
  const def = catalog[match.id];
  const defaults = defaultsFrom(opts);
  const aliases = objectAliases(catalog);

  let range: { word: string; range: string } | undefined;
  let sort: ReportQuery['sort'];
  let top: number | undefined;
  let isPublic = false;
  let filterCount = 0;
  const groups: FilterGroup[] = [{ filters: [] }];
  const orError = fail('`or` goes between two filters, e.g. `country:US or country:DE`.');

  for (let i = 1; i < tokens.length; ) {
    const token = tokens[i] as Token;
    const word = token.word;
    const next = tokens[i + 1];

    if (word === 'or') {
      if ((groups[groups.length - 1] as FilterGroup).filters.length === 0) return orError;
      groups.push({ filters: [] });
      i++;
    } else if (word === 'by') {
      if (sort) return fail('`by` is given twice; sort by one key.');
      const keys = sortKeyList(def);
      if (!next || isKeyword(next)) return fail(`\`by\` needs a sort key: ${keys}.`);
      const key = resolveSortKey(def, next.text.toLowerCase());
      if (key === undefined) {
        const candidates = [...Object.keys(def.sortKeys), ...sortFields(def)].map((k): [string, string] => [k, k]);
        return fail(`Can't sort ${def.id} by ${code(next.text)}.${didYouMean(closest(next.text, candidates))} Sort keys: ${keys}.`);
      }
      const dirWord = tokens[i + 2]?.word;
      const explicit = dirWord === 'asc' || dirWord === 'desc' ? dirWord : undefined;
      sort = { key, dir: explicit ?? defaultDir(def, key) };
      i += explicit ? 3 : 2;
    } else if (word === 'top' || (word !== undefined && /^top\d+$/.test(word))) {
      if (top !== undefined) return fail('`top` is given twice.');
      const inline = word !== 'top';
      top = parseTop(inline ? word.slice(3) : next?.word);
      if (top === undefined) return fail(TOP_ERROR);
      i += inline ? 1 : 2;
    } else if (word === 'public') {
      isPublic = true;
      i++;
    } else if (word === 'asc' || word === 'desc') {
      return fail(`Put \`${word}\` after a sort key, e.g. \`by visits ${word}\`.`);
    } else if (looksLikeRange(token)) {
      const normalized = normalizeRange(token.text);
      if (!normalized.ok) return fail(`${normalized.error} Ranges: ${RANGE_HINT}.`);
      if (range) {
        return fail(`Two ranges: ${code(range.word)} and ${code(token.text)}; give one, e.g. \`2024-11-01..2024-11-28\`.`);
      }
      range = { word: token.text, range: normalized.range };
      i++;
    } else {
      const at = findOperator(token);
      if (!at) return unknownWord(token, catalog);
      const parsed = parseFilter(tokens, i, at, aliases);
      if ('kind' in parsed) return parsed;
      if (++filterCount > MAX_FILTERS) return fail(`Too many filters: at most ${MAX_FILTERS}.`);
      (groups[groups.length - 1] as FilterGroup).filters.push(parsed.condition);
      i += parsed.consumed;
    }
  }

  const lastGroup = groups[groups.length - 1] as FilterGroup;
  if (lastGroup.filters.length === 0 && groups.length > 1) return orError;

  const query: ReportQuery = {
    v: 1,
    report: def.id,
    range: range?.range ?? defaults.range,
    filters: groups.filter((g) => g.filters.length > 0),
    page: 1,
    top: top ?? defaults.top,
  };
  if (sort) query.sort = sort;
  if (isPublic) query.public = true;
  return { kind: 'report', query };
}

function unknownWord(token: Token, catalog: ReportCatalog): CommandError {
  const w = token.text.toLowerCase();
  if (Object.hasOwn(FILTER_FIELDS, w)) {
    return fail(`\`${w}\` needs a value, e.g. \`${w}:value\` (is one of) or \`${w}~text\` (contains).`);
  }
  if (Object.hasOwn(catalog, w)) return fail(`One report at a time: ${code(w)} is a report too.`);
  const candidates: Array<[string, string]> = [
    ...RANGE_WORDS.map((r): [string, string] => [r, r]),
    ...Object.keys(RANGE_ALIASES).map((r): [string, string] => [r, r]),
    ...[...KEYWORDS].map((k): [string, string] => [k, k]),
  ];
  const suggestion = closest(w, candidates);
  return fail(
    `Don't understand ${code(token.text)}.${didYouMean(suggestion)} Expected a range, a filter like \`country:US\`, \`by <key>\`, \`top <n>\` or \`public\`.`,
  );
}

// --- /visitor ----------------------------------------------------------------------

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;

function isSafeId(id: string): boolean {
  return ID.test(id) && !id.startsWith('.') && !id.includes('..');
}

function stripWrapping(word: string): string {
  const m = /^(["“”„‟`'])(.*)(["“”„‟`'])$/su.exec(word);
  return m ? (m[2] ?? '') : word;
}

export function parseVisitorCommand(text: string): VisitorCommand {
  const words = (typeof text === 'string' ? text : '').trim().split(/\s+/u).filter(Boolean).map(stripWrapping);
  const [visitorId, keyword, visitId, ...extra] = words;
  const bad = (what: string, id: string) =>
    fail(
      `${code(id)} is not a valid ${what} id (up to 128 letters, digits and _ . : -).`,
      VISITOR_USAGE,
    );
  if (visitorId === undefined) return fail('Give a visitor id.', VISITOR_USAGE);
  if (!isSafeId(visitorId)) return bad('visitor', visitorId);
  if (keyword === undefined) return { kind: 'visitor', visitorId };
  if (keyword.toLowerCase() !== 'visit') {
    return fail(`Don't understand ${code(keyword)} after the visitor id; use \`visit <visit_id>\`.`, VISITOR_USAGE);
  }
  if (visitId === undefined) return fail('`visit` needs a visit id.', VISITOR_USAGE);
  if (!isSafeId(visitId)) return bad('visit', visitId);
  if (extra.length > 0) return fail(`Don't understand ${code(extra.join(' '))} at the end.`, VISITOR_USAGE);
  return { kind: 'visitor', visitorId, visitId };
}

// --- Help ----------------------------------------------------------------------------

const HELP_TOPICS: Readonly<Record<string, string>> = {
  report: 'reports',
  reports: 'reports',
  range: 'ranges',
  ranges: 'ranges',
  date: 'ranges',
  dates: 'ranges',
  filter: 'filters',
  filters: 'filters',
  sort: 'sort',
  by: 'sort',
  top: 'sort',
  order: 'sort',
  example: 'examples',
  examples: 'examples',
  digest: 'digest',
  digests: 'digest',
  alert: 'alerts',
  alerts: 'alerts',
  visitor: 'visitor',
};

const EXAMPLES = [
  '/traffic sources',
  '/traffic pages last30d page~/blog/ by duration top 25',
  '/traffic countries yesterday',
  '/traffic cities 2024-11-01..2024-11-28 country:"United States"',
  '/traffic sources mtd country.code:DE,AT or country.code:CH channel:Organic',
  '/traffic visits today visitor.id:abc123 public',
];

function reportLine(def: ReportDef): string {
  const also = def.aliases.length ? ` (also ${def.aliases.join(', ')})` : '';
  return `${def.id}: ${def.title}${also}; sort by ${Object.keys(def.sortKeys).join(', ')}`;
}

function general(catalog: ReportCatalog): string[] {
  return [
    `Usage: ${TRAFFIC_USAGE}`,
    `Reports: ${reportList(catalog)} (aliases and unambiguous prefixes work too, e.g. "sou")`,
    `Ranges: ${RANGE_WORDS.join(', ')}, 2024-11-01..2024-11-28 or one date; default ${DEFAULT_RANGE}`,
    'Filters: country:US,DE (is one of), page~/blog (contains), city:"New York"; "or" starts another group',
    `Sort and size: by <key> [asc|desc], top <n> (1 to ${MAX_TOP}, default ${DEFAULT_TOP}); "public" posts to the channel`,
    `Example: ${EXAMPLES[1]}`,
    'Also: /traffic digest …, /traffic alerts …, /visitor <visitor_id> [visit <visit_id>]',
    'More: /traffic help reports | ranges | filters | sort | examples | digest | alerts | <report>',
  ];
}

function topicLines(topic: string, catalog: ReportCatalog): string[] {
  switch (topic) {
    case 'reports':
      return ['Reports (type the name, an alias, or enough of its start):', ...Object.values(catalog).map(reportLine)];
    case 'ranges':
      return [
        'Ranges are resolved in the channel time zone (else the default zone, else UTC):',
        ...RANGE_WORDS.map((w) => `${w}: ${RANGE_LABELS[w]}${w === DEFAULT_RANGE ? ' (the default)' : ''}`),
        `Also: ${Object.entries(RANGE_ALIASES)
          .map(([alias, word]) => `${alias} = ${word}`)
          .join(', ')}`,
        'Dates: 2024-11-01..2024-11-28 (both days included) or one day, 2024-11-21',
      ];
    case 'filters':
      return [
        'object:a,b keeps rows whose object is any of a, b; object~text keeps rows containing text',
        'object.field picks a field (the default is name); quote values with spaces: city:"New York"',
        'Filters side by side must all hold; "or" starts another group, and any group may hold',
        `Objects: ${Object.entries(FILTER_FIELDS)
          .map(([o, fields]) => (fields.length > 1 ? `${o} (${fields.join(', ')})` : o))
          .join(', ')}`,
        'Example: /traffic pages country:US,CA page~/pricing or country.code:GB',
      ];
    case 'sort':
      return [
        'by <key> [asc|desc] sorts; names sort A to Z and numbers largest first unless you say otherwise',
        ...Object.values(catalog).map((d) => `${d.id}: ${sortKeyList(d)}; default ${d.defaultSort}`),
        `top <n> shows n rows a page (1 to ${MAX_TOP}, default ${DEFAULT_TOP}); public posts the answer to the channel`,
      ];
    case 'examples':
      return EXAMPLES;
    case 'digest':
      return [
        '/traffic digest add|list|remove|pause|resume|preview …',
        'Posts reports to a channel on a schedule, with the change against the period before.',
      ];
    case 'alerts':
      return [
        '/traffic alerts on|off|status|mute|unmute …',
        'Raises an alert in the channel when a flagged visitor shows up.',
      ];
    case 'visitor':
      return [`Usage: ${VISITOR_USAGE}`, 'Shows a visitor card with its security checks.'];
    default:
      return general(catalog);
  }
}

/** Plain-text help lines (no mrkdwn) for a topic, a report, or everything. */
export function helpText(topic: string | undefined, catalog: ReportCatalog): string[] {
  const t = (topic ?? '').trim().toLowerCase();
  if (t === '') return general(catalog);
  if (Object.hasOwn(HELP_TOPICS, t)) return topicLines(HELP_TOPICS[t] ?? '', catalog);
  const match = matchReport(t, catalog);
  if (match.ok) {
    const def = catalog[match.id];
    const lines = [reportLine(def), `Sort keys: ${sortKeyList(def)}; default ${def.defaultSort}, descending`];
    if (def.rowFilter) {
      lines.push(`Filter any report by one of its rows: ${def.rowFilter.object}.${def.rowFilter.field}:<value>`);
    }
    lines.push(`Example: /traffic ${def.id} last30d top 20`);
    return lines;
  }
  return [
    `No help on "${quoteInput(t)}". Topics: reports, ranges, filters, sort, examples, digest, alerts, or a report name.`,
    ...general(catalog),
  ];
}
