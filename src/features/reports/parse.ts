/**
 * `/traffic` text → a report query, a sub-command with its words, help, or a one-line
 * usage error. Never throws: every input a person can type gets an answer.
 */
import {
  matchReport,
  reportNames,
  sortFields,
  type ReportCatalog,
  type ReportDef,
  type ReportId,
} from '../../kernel/catalog.js';
import {
  FILTER_FIELDS,
  MAX_FILTERS,
  OR_ERROR,
  findOperator,
  objectAliases,
  parseFilterAt,
  type FilterGroup,
} from '../../kernel/filters.js';
import { DEFAULT_TOP, MAX_TOP, type ReportQuery, type SortDir } from '../../kernel/query.js';
import {
  closest,
  code,
  commandTokens,
  didYouMean,
  quoteInput,
  type Token,
  type UsageError,
} from '../../kernel/text.js';
import { DEFAULT_RANGE, RANGE_HINT } from '../../kernel/ranges.js';
import { normalizeRange, readRange, suggestRange } from '../../kernel/range-words.js';

export const TRAFFIC_USAGE = '/traffic <report> [range] [filters…] [by <key> [asc|desc]] [top <n>] [public]';

export type TrafficCommand =
  | { kind: 'report'; query: ReportQuery }
  | { kind: 'help'; topic?: string }
  | { kind: 'sub'; name: string; args: Token[] }
  | UsageError;

export interface ParseOptions {
  /** Words that start a sub-command (`digest`, `alerts`); the rest of the tokens are its arguments. */
  subcommands?: readonly string[];
  /** The channel's default range, used when none is typed (last7d otherwise). */
  defaultRange?: string;
  /** Rows per page when `top` is not typed (10 otherwise). */
  defaultTop?: number;
}

const HELP_WORDS = new Set(['help', '?']);

const fail = (message: string): UsageError => ({ kind: 'error', message, usage: TRAFFIC_USAGE });

// --- Reports ------------------------------------------------------------------

export function reportList(catalog: ReportCatalog): string {
  return Object.keys(catalog).join(', ');
}

function reportError(
  tokens: Token[],
  catalog: ReportCatalog,
  matches: ReportId[],
  subcommands: readonly string[],
): UsageError {
  const token = tokens[0] as Token;
  if (matches.length > 1) {
    return fail(`${code(token.text)} could be ${matches.join(', ')}; type more of the name.`);
  }
  const range = readRange(tokens, 0);
  if (range || findOperator(token)) {
    const said = range?.ok ? range.text : token.text;
    return fail(`Start with a report, e.g. \`/traffic sources ${quoteInput(said)}\`. Reports: ${reportList(catalog)}.`);
  }
  const candidates: Array<[string, string]> = Object.values(catalog).flatMap((d) =>
    reportNames(d).map((n): [string, string] => [n, d.id]),
  );
  for (const sub of [...HELP_WORDS, ...subcommands]) if (sub.length > 1) candidates.push([sub, sub]);
  const suggestion = closest(token.text, candidates) ?? suggestRange(token.text);
  const tail = suggestion === undefined ? ` Reports: ${reportList(catalog)}.` : didYouMean(suggestion);
  return fail(`Unknown report ${code(token.text)}.${tail}`);
}

// --- Keywords and sort ---------------------------------------------------------

const KEYWORDS = new Set(['by', 'top', 'or', 'public', 'asc', 'desc']);

function isKeyword(token: Token | undefined): boolean {
  return token?.word !== undefined && (KEYWORDS.has(token.word) || /^top\d+$/.test(token.word));
}

const TEXT_FORMATS = new Set(['text', 'url', 'id']);

/** Names and URLs sort A→Z by default; counts, durations and dates biggest/newest first. */
function defaultDir(def: ReportDef, key: string): SortDir {
  return def.columns.some((c) => c.field === key && TEXT_FORMATS.has(c.format)) ? 'asc' : 'desc';
}

export function sortKeyList(def: ReportDef): string {
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

export function parseTrafficCommand(text: string, catalog: ReportCatalog, opts: ParseOptions = {}): TrafficCommand {
  const tokens = commandTokens(text);
  if (!Array.isArray(tokens)) return fail(tokens.error);
  const [first, ...rest] = tokens;
  if (!first) return { kind: 'help' };

  if (first.word !== undefined && HELP_WORDS.has(first.word)) {
    const topic = rest.map((t) => t.text).join(' ');
    return topic ? { kind: 'help', topic } : { kind: 'help' };
  }
  if (first.word !== undefined && opts.subcommands?.includes(first.word))
    return { kind: 'sub', name: first.word, args: rest };
  return parseReportTokens(tokens, catalog, opts);
}

/** A report and what refines it (`sources last30d country:DE by unique`), as tokens. */
export function parseReportTokens(tokens: Token[], catalog: ReportCatalog, opts: ParseOptions = {}): TrafficCommand {
  const first = tokens[0];
  if (!first) return fail('Name a report.');
  const match = matchReport(first.text, catalog);
  if (!match.ok) return reportError(tokens, catalog, match.matches, opts.subcommands ?? []);
  const def = catalog[match.id];
  const defaults = defaultsFrom(opts);
  const aliases = objectAliases(catalog);

  let range: { word: string; range: string } | undefined;
  let sort: ReportQuery['sort'];
  let top: number | undefined;
  let isPublic = false;
  let filterCount = 0;
  const groups: FilterGroup[] = [{ filters: [] }];
  const orError = fail(OR_ERROR.problem);

  for (let i = 1; i < tokens.length;) {
    const token = tokens[i] as Token;
    const word = token.word;
    const next = tokens[i + 1];
    const read = isKeyword(token) ? undefined : readRange(tokens, i);

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
        return fail(
          `Can't sort ${def.id} by ${code(next.text)}.${didYouMean(closest(next.text, candidates))} Sort keys: ${keys}.`,
        );
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
    } else if (read) {
      if (!read.ok) return fail(`${read.error} Ranges: ${RANGE_HINT}.`);
      if (range) {
        return fail(
          `Two ranges: ${code(range.word)} and ${code(read.text)}; give one, e.g. \`2024-11-01..2024-11-28\`.`,
        );
      }
      range = { word: read.text, range: read.range };
      i += read.consumed;
    } else {
      const at = findOperator(token);
      if (!at) return unknownWord(token, catalog);
      const parsed = parseFilterAt(tokens, i, at, aliases, (t) => !isKeyword(t));
      if ('problem' in parsed) return fail(parsed.problem);
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

function unknownWord(token: Token, catalog: ReportCatalog): UsageError {
  const w = token.text.toLowerCase();
  if (Object.hasOwn(FILTER_FIELDS, w)) {
    return fail(`\`${w}\` needs a value, e.g. \`${w}:value\` (is one of) or \`${w}~text\` (contains).`);
  }
  if (Object.hasOwn(catalog, w)) return fail(`One report at a time: ${code(w)} is a report too.`);
  const suggestion =
    closest(
      w,
      [...KEYWORDS].map((k): [string, string] => [k, k]),
    ) ?? suggestRange(w);
  return fail(
    `Don't understand ${code(token.text)}.${didYouMean(suggestion)} Expected a range, a filter like \`country:US\`, \`by <key>\`, \`top <n>\` or \`public\`.`,
  );
}
