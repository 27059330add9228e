/**
 * The words for ranges, one grammar for every command (reports, trends, watches, digests):
 * a range as people type it ("last7d", "last 7 days", "lastweek", "this month",
 * "2024-11-01..2024-11-28", "Nov 15 – Nov 21, 2026"), read from the command's tokens into its
 * canonical form (ranges.ts). A near miss gets "Did you mean …?"; a number out of bounds is
 * told the bounds. Pure.
 */
import { isIsoDate, pad } from './dates.js';
import { MONTHS } from './format.js';
import {
  isNamedRange,
  labelOf,
  LAST_DAYS,
  NAMED_RANGES,
  RANGE_ALIASES,
  RANGE_MENU,
  readCanonicalRange,
  canonicalRange,
  type NamedRange,
  type Range,
} from './ranges.js';
import { closest, code, didYouMean, plainTokens, type Token } from './text.js';

const compactLabel = (label: string) => label.toLowerCase().replace(/\s+/g, '');
const BY_LABEL: ReadonlyMap<string, NamedRange> = new Map(
  NAMED_RANGES.map((name) => [compactLabel(labelOf({ kind: 'named', name })), name]),
);

type Phrase = { ok: true; range: Range } | { ok: false; error: string } | undefined;

const DAYS_PHRASE = /^(?:(?:last|past)(\d{1,7})(d|days?|w|wks?|weeks?)?|(\d{1,7})(d|days?|w|wks?|weeks?))$/;
const OTHER_UNITS = /^(?:last|past)?\d{0,7}(h|hrs?|hours?|mo|mos|months?|y|yrs?|years?)$/;
const ISO_PARTS = /\s*\.\.\s*|\s+(?:to|until|-|–|—)\s+/;
const ISO_ISH = /^\d+-[\d-]*$/;

/** Month names in full and as MONTHS shortens them (what `formatSpan` writes), lower case → 1–12. */
const MONTH_NAMES: ReadonlyMap<string, number> = new Map([
  ...[
    'january',
    'february',
    'march',
    'april',
    'may',
    'june',
    'july',
    'august',
    'september',
    'october',
    'november',
    'december',
  ].map((name, i): [string, number] => [name, i + 1]),
  ...MONTHS.map((name, i): [string, number] => [name.toLowerCase(), i + 1]),
  ['sept', 9],
]);
const DAY_IN_WORDS = '([a-z]+)\\.?\\s+(\\d{1,2}),?(?:\\s+(\\d{4}))?';
const DATES_IN_WORDS = new RegExp(`^${DAY_IN_WORDS}(?:\\s*(?:–|—|-|to|until|\\.\\.)\\s*${DAY_IN_WORDS})?$`);

function lastDays(n: number, text: string): Phrase {
  if (n >= LAST_DAYS.min && n <= LAST_DAYS.max) return { ok: true, range: { kind: 'days', days: n } };
  const tail =
    n === 1
      ? didYouMean('today')
      : n > LAST_DAYS.max
        ? ' For more, give dates like `2024-01-01..2024-12-31`, or `all`.'
        : '';
  return {
    ok: false,
    error: `The last N days go from ${LAST_DAYS.min} to ${LAST_DAYS.max} days; ${code(text)} is ${n === 1 ? 'one day' : `${n.toLocaleString('en-US')} days`}.${tail}`,
  };
}

function isoDates(text: string, phrase: string): Phrase {
  const parts = phrase.split(ISO_PARTS);
  if (parts.length > 2 || !parts.every((p) => ISO_ISH.test(p))) return undefined;
  for (const part of parts) {
    if (!isIsoDate(part)) {
      const what = /^\d{4}-\d{2}-\d{2}$/.test(part) ? 'is not a real date' : 'is not a date in the form YYYY-MM-DD';
      return { ok: false, error: `${code(part)} ${what}.` };
    }
  }
  const [start = '', end = start] = parts;
  if (start > end) return { ok: false, error: `The range ${code(text)} starts after it ends.` };
  return { ok: true, range: { kind: 'dates', start, end } };
}

function datesInWords(text: string, phrase: string): Phrase {
  const m = DATES_IN_WORDS.exec(phrase);
  if (!m || !MONTH_NAMES.has(m[1]!) || (m[4] !== undefined && !MONTH_NAMES.has(m[4]))) return undefined;
  const [, month1, day1, year1, month2, day2, year2] = m;
  const endYear = month2 === undefined ? year1 : year2;
  if (endYear === undefined)
    return {
      ok: false,
      error: `${code(text)} needs its year: \`${MONTHS[MONTH_NAMES.get(month1!)! - 1]} ${Number(day1)}, YYYY\`.`,
    };
  const date = (month: string, day: string, year: number) =>
    `${pad(year, 4)}-${pad(MONTH_NAMES.get(month)!)}-${pad(Number(day))}`;
  const end = month2 === undefined ? date(month1!, day1!, Number(endYear)) : date(month2, day2!, Number(endYear));
  let start = date(month1!, day1!, Number(year1 ?? endYear));
  // "Dec 25 – Jan 3, 2026": a start without its year is the last such day before the end.
  if (year1 === undefined && start > end) start = date(month1!, day1!, Number(endYear) - 1);
  for (const d of [start, end]) if (!isIsoDate(d)) return { ok: false, error: `${code(text)} is not a real date.` };
  if (start > end) return { ok: false, error: `The range ${code(text)} starts after it ends.` };
  return { ok: true, range: { kind: 'dates', start, end } };
}

/** One phrase (tokens joined by single spaces, lower case) as a range, an error, or undefined when it is not one. */
function readPhrase(text: string): Phrase {
  const phrase = text.toLowerCase();
  if (/^\d/.test(phrase)) {
    const dates = isoDates(text, phrase);
    if (dates) return dates;
  }
  const words = datesInWords(text, phrase);
  if (words) return words;
  const compact = /\d{4}-\d/.test(phrase) ? phrase.replace(/\s+/g, '') : phrase.replace(/[\s_-]+/g, '');
  const named = isNamedRange(compact) ? compact : BY_LABEL.get(compact);
  if (named) return { ok: true, range: { kind: 'named', name: named } };
  const alias = Object.hasOwn(RANGE_ALIASES, compact) ? RANGE_ALIASES[compact] : undefined;
  if (alias !== undefined) return { ok: true, range: readCanonicalRange(alias)! };
  const days = DAYS_PHRASE.exec(compact);
  if (days) {
    const n = Number(days[1] ?? days[3]);
    return lastDays(/^w/.test(days[2] ?? days[4] ?? '') ? n * 7 : n, text);
  }
  if (OTHER_UNITS.test(compact) && /\d|last|past/.test(compact)) {
    return {
      ok: false,
      error: `${code(text)} is not a range: ranges are whole days. Say how many days (\`last 90 days\`) or name a calendar period: \`lastweek\`, \`lastmonth\`, \`lastyear\`, \`mtd\`, \`ytd\`.`,
    };
  }
  return undefined;
}

/** The most tokens one range takes: "Dec 25, 2025 – Jan 3, 2026". */
const MAX_RANGE_TOKENS = 7;

export type RangeRead =
  { ok: true; range: string; text: string; consumed: number } | { ok: false; error: string; consumed: number };

/** A word that starts a range, right or wrong: a digit, or last/past/this. */
function startsRange(word: string): boolean {
  return /^(\d|last|past|this)/.test(word);
}

/** The closest range word to a near miss (`lst7d` → `last7d`), if one is close. */
export function suggestRange(text: string): string | undefined {
  const words = [...RANGE_MENU, ...Object.keys(RANGE_ALIASES), '7d', '30d', '90d'];
  return closest(
    text,
    words.map((w): [string, string] => [w, w]),
  );
}

/**
 * The range that starts at `tokens[at]`, taking as many tokens as its longest reading
 * ("last 7 days" is three): its canonical form and how many tokens it took, or an error
 * when the words start a range but are not one. Undefined when they do not start one.
 */
export function readRange(tokens: readonly Token[], at: number): RangeRead | undefined {
  const words: string[] = [];
  for (let k = at; k < tokens.length && words.length < MAX_RANGE_TOKENS; k++) {
    const word = tokens[k]?.word;
    if (word === undefined || /[:~]/.test(word)) break;
    words.push(word);
  }
  if (words.length === 0) return undefined;
  for (let k = words.length; k >= 1; k--) {
    const text = tokens
      .slice(at, at + k)
      .map((t) => t.text)
      .join(' ');
    const read = readPhrase(text);
    if (read === undefined) continue;
    return read.ok
      ? { ok: true, range: canonicalRange(read.range), text, consumed: k }
      : { ok: false, error: read.error, consumed: k };
  }
  const first = tokens[at]!.text;
  if (!startsRange(words[0]!)) return undefined;
  const needs =
    words[0] === 'this'
      ? 'a week, month or year: `this week`, `this month`, `this year`'
      : words[0] === 'last' || words[0] === 'past'
        ? 'a number of days or a period: `last 7 days`, `last week`, `last month`, `last year`'
        : undefined;
  const error = needs
    ? `${code(first)} needs ${needs}.`
    : `Unknown range ${code(first)}.${didYouMean(suggestRange(first))}`;
  return { ok: false, error, consumed: 1 };
}

export type NormalizedRange = { ok: true; range: string } | { ok: false; error: string };

/** A whole text as one range (any form), in its canonical form: `Last 7 days` → `last7d`. */
export function normalizeRange(text: string): NormalizedRange {
  const tokens = plainTokens(text);
  const read = tokens.length > 0 ? readRange(tokens, 0) : undefined;
  if (read?.ok && read.consumed === tokens.length) return { ok: true, range: read.range };
  if (read && !read.ok) return read;
  return {
    ok: false,
    error: `Unknown range ${code(String(text).trim())}.${didYouMean(suggestRange(String(text).trim()))}`,
  };
}

/** Named ranges as people say them, in more than one word. */
const SPOKEN: Partial<Record<NamedRange, readonly string[]>> = {
  wtd: ['this week'],
  lastweek: ['last week', 'last-week'],
  mtd: ['this month'],
  lastmonth: ['last month', 'last-month'],
  ytd: ['this year'],
  lastyear: ['last year'],
};

/** The ways a canonical range can be said, each of which reads back as it: the token, its label, the phrases. */
export function rangeWords(canonical: string): string[] {
  const range = readCanonicalRange(canonical);
  if (!range) return [];
  const words = [canonical, labelOf(range)];
  if (range.kind === 'named') words.push(...Object.keys(RANGE_ALIASES).filter((a) => RANGE_ALIASES[a] === canonical));
  if (range.kind === 'days') {
    const n = range.days;
    words.push(`last ${n} days`, `last${n} days`, `past ${n} days`, `${n}d`, `last${n}`);
    if (n % 7 === 0 && n > 7) words.push(`last ${n / 7} weeks`);
  }
  if (range.kind === 'dates' && range.start !== range.end)
    words.push(`${range.start} to ${range.end}`, `${range.start} .. ${range.end}`);
  if (range.kind === 'named' && Object.hasOwn(SPOKEN, range.name)) words.push(...SPOKEN[range.name]!);
  return words;
}
