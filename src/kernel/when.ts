/**
 * The words for "when", one grammar for every command (reports, trends, watches, digests):
 * date ranges and times of day as people type them, read from the command's tokens.
 *
 * A range ("last7d", "last 7 days", "lastweek", "this month", "2024-11-01..2024-11-28",
 * "Nov 15 – Nov 21, 2026") reads into its canonical form, which is what a query keeps and
 * `resolveRange` turns into dates. A time of day ("9am", "9:30 pm", "21:00", "noon") reads
 * into HH:MM. A near miss gets "Did you mean …?"; a number out of bounds is told the bounds.
 * Pure.
 */
import {
  DEFAULT_WEEK_START,
  formatSpan,
  isIsoDate,
  isValidTimeZone,
  localDate,
  shiftDate,
  weekOf,
  type DateRange,
  type Weekday,
} from './dates.js';
import { MONTHS } from './format.js';
import { closest, code, didYouMean, editDistance, type Token } from './text.js';

// --- Ranges: the canonical forms ------------------------------------------------

/** The ranges with a name. The others are the last N days (`last14d`) and dates. */
export const NAMED_RANGES = [
  'today',
  'yesterday',
  'wtd',
  'lastweek',
  'mtd',
  'lastmonth',
  'ytd',
  'lastyear',
  'all',
] as const;
export type NamedRange = (typeof NAMED_RANGES)[number];

/** How many days "the last N days" may span: one day is `today`; past a year, dates or `all`. */
export const LAST_DAYS = { min: 2, max: 365 } as const;

/** The ranges menus and help offer, in order. */
export const RANGE_MENU = [
  'today',
  'yesterday',
  'last7d',
  'last30d',
  'last90d',
  'wtd',
  'lastweek',
  'mtd',
  'lastmonth',
  'ytd',
  'lastyear',
  'all',
] as const;

export const DEFAULT_RANGE = 'last7d';

export type Range =
  | { kind: 'named'; name: NamedRange }
  /** Today and the N − 1 days before it. */
  | { kind: 'days'; days: number }
  | { kind: 'dates'; start: string; end: string };

const NAMED_LABELS: Readonly<Record<NamedRange, string>> = {
  today: 'Today',
  yesterday: 'Yesterday',
  wtd: 'Week to date',
  lastweek: 'Last week',
  mtd: 'Month to date',
  lastmonth: 'Last month',
  ytd: 'Year to date',
  lastyear: 'Last year',
  all: 'All time',
};

/**
 * Other words for ranges, as read with spaces and hyphens taken out (so "this month",
 * "this-month" and "thismonth" are one); a named range's label reads as it too ("Month to
 * date"). "week" and "month" alone are rolling: the last 7 and 30 days.
 */
export const RANGE_ALIASES: Readonly<Record<string, string>> = {
  thisweek: 'wtd',
  thismonth: 'mtd',
  thisyear: 'ytd',
  week: 'last7d',
  month: 'last30d',
};

const compactLabel = (label: string) => label.toLowerCase().replace(/\s+/g, '');
const BY_LABEL: ReadonlyMap<string, NamedRange> = new Map(
  NAMED_RANGES.map((name) => [compactLabel(NAMED_LABELS[name]), name]),
);

const isNamed = (word: string): word is NamedRange => (NAMED_RANGES as readonly string[]).includes(word);

/** The canonical text of a range: `lastweek`, `last14d`, `2024-11-01..2024-11-28`, `2024-11-21`. */
export function canonicalRange(range: Range): string {
  switch (range.kind) {
    case 'named':
      return range.name;
    case 'days':
      return `last${range.days}d`;
    case 'dates':
      return range.start === range.end ? range.start : `${range.start}..${range.end}`;
  }
}

function labelOf(range: Range): string {
  switch (range.kind) {
    case 'named':
      return NAMED_LABELS[range.name];
    case 'days':
      return `Last ${range.days} days`;
    case 'dates':
      return formatSpan(range.start, range.end);
  }
}

/** A range in words, as menus and answers name it: "Last 7 days", "Month to date", "Nov 1 – Nov 28, 2024". */
export function rangeLabel(canonical: string): string {
  const range = readCanonical(canonical);
  return range ? labelOf(range) : canonical;
}

/** How the accepted ranges are described in error and help messages. */
export const RANGE_HINT =
  `today, yesterday, last7d (any number of days from ${LAST_DAYS.min} to ${LAST_DAYS.max}: \`last 14 days\`), ` +
  'wtd (this week), lastweek, mtd (this month), lastmonth, ytd (this year), lastyear, all, YYYY-MM-DD..YYYY-MM-DD or one date YYYY-MM-DD';

// --- Ranges: reading words ------------------------------------------------------------

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

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

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
  const named = isNamed(compact) ? compact : BY_LABEL.get(compact);
  if (named) return { ok: true, range: { kind: 'named', name: named } };
  const alias = Object.hasOwn(RANGE_ALIASES, compact) ? RANGE_ALIASES[compact] : undefined;
  if (alias !== undefined) return { ok: true, range: readCanonical(alias)! };
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

/** A canonical range's parts; undefined for anything else (an alias too). */
function readCanonical(text: string): Range | undefined {
  if (isNamed(text)) return { kind: 'named', name: text };
  const days = /^last(\d{1,3})d$/.exec(text);
  if (days) {
    const n = Number(days[1]);
    return n >= LAST_DAYS.min && n <= LAST_DAYS.max && String(n) === days[1] ? { kind: 'days', days: n } : undefined;
  }
  const [start = '', end = start, ...more] = text.split('..');
  return more.length === 0 && isIsoDate(start) && isIsoDate(end) && start <= end
    ? { kind: 'dates', start, end }
    : undefined;
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

/** A form field's or a stored value's words as tokens (no quotes: every one a word). */
function plainTokens(text: string): Token[] {
  return String(text)
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '')
    .map((w) => ({ segments: [{ text: w, quoted: false }], text: w, word: w.toLowerCase() }));
}

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
  const range = readCanonical(canonical);
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

// --- Ranges: dates ------------------------------------------------------------------

export type RangeResult = { ok: true; range: DateRange } | { ok: false; error: string };

const ALL_START = '1970-01-01';

function startEnd(range: Range, today: string, weekStart: Weekday): [string, string] {
  const back = (days: number) => shiftDate(today, -days);
  if (range.kind === 'days') return [back(range.days - 1), today];
  if (range.kind === 'dates') return [range.start, range.end];
  const weekBegan = weekOf(today, weekStart);
  const year = Number(today.slice(0, 4));
  switch (range.name) {
    case 'today':
      return [today, today];
    case 'yesterday':
      return [back(1), back(1)];
    case 'wtd':
      return [weekBegan, today];
    case 'lastweek':
      return [shiftDate(weekBegan, -7), shiftDate(weekBegan, -1)];
    case 'mtd':
      return [`${today.slice(0, 8)}01`, today];
    case 'lastmonth': {
      const end = shiftDate(`${today.slice(0, 8)}01`, -1);
      return [`${end.slice(0, 8)}01`, end];
    }
    case 'ytd':
      return [`${today.slice(0, 4)}-01-01`, today];
    case 'lastyear':
      return [`${pad(year - 1, 4)}-01-01`, `${pad(year - 1, 4)}-12-31`];
    case 'all':
      return [ALL_START, ALL_START <= today ? today : ALL_START];
  }
}

/**
 * Resolves a range (any form; empty means last7d) to dates in `timeZone` at the instant
 * `now`, labelled "Last 7 days (Nov 15 – Nov 21, 2026)".
 */
export function resolveRange(
  text: string | undefined,
  timeZone: string,
  now: Date,
  weekStart: Weekday = DEFAULT_WEEK_START,
): RangeResult {
  const normalized = normalizeRange(text === undefined || text.trim() === '' ? DEFAULT_RANGE : text);
  if (!normalized.ok) return normalized;
  const today = localDate(now, timeZone);
  if (today === undefined) {
    return {
      ok: false,
      error: isValidTimeZone(timeZone)
        ? 'The current time is not a valid date.'
        : `Unknown time zone ${code(String(timeZone))}; use an IANA name like Europe/Berlin.`,
    };
  }
  if (!isIsoDate(today)) return { ok: false, error: 'The current time is outside the supported calendar.' };
  const range = readCanonical(normalized.range)!;
  const [startDate, endDate] = startEnd(range, today, weekStart);
  const dates = formatSpan(startDate, endDate);
  const label =
    range.kind === 'dates'
      ? dates
      : range.kind === 'named' && range.name === 'all'
        ? labelOf(range)
        : `${labelOf(range)} (${dates})`;
  return { ok: true, range: { startDate, endDate, label } };
}

// --- Times of day ---------------------------------------------------------------------

/** A time of day on the 24-hour clock; `text` is HH:MM. */
export interface TimeOfDay {
  hour: number;
  minute: number;
  text: string;
}

export type TimeRead = { ok: true; time: TimeOfDay; consumed: number } | { ok: false; error: string; consumed: number };

/** Times of day said in words. */
export const TIME_WORDS: Readonly<Record<string, string>> = { noon: '12:00', midnight: '00:00' };

const MERIDIEMS = ['am', 'pm', 'a.m.', 'p.m.'] as const;
const H24 = /^(\d{1,2}):(\d{2})$/;
const H12 = /^(\d{1,2})(?::(\d{2}))?\s?(am|pm|a\.m\.|p\.m\.)$/;
const TIME_ISH = /^(\d{1,4})(?:([:.h])(\d{0,2}))?\s?([a-z.]*)$/;

const clockText = (hour: number, minute: number) => `${pad(hour)}:${pad(minute)}`;
const time = (hour: number, minute: number): TimeOfDay => ({ hour, minute, text: clockText(hour, minute) });

/** 9:30pm, 9am, 12pm (noon), 12am (midnight). */
export function twelveHour({ hour, minute }: Pick<TimeOfDay, 'hour' | 'minute'>): string {
  const h = hour % 12 === 0 ? 12 : hour % 12;
  return `${h}${minute === 0 ? '' : `:${pad(minute)}`}${hour < 12 ? 'am' : 'pm'}`;
}

const BOUNDS = 'hours go from 00 to 23 (1 to 12 with am or pm) and minutes from 00 to 59';

/** What a near miss of a time meant, if it can be told. */
function timeNearMiss(text: string, phrase: string): string | undefined {
  const m = TIME_ISH.exec(phrase);
  if (!m) return undefined;
  const [, digits = '', sep, mins, suffix = ''] = m;
  const meridiem = /^[ap]/.test(suffix)
    ? MERIDIEMS.find((w) => w[0] === suffix[0] && editDistance(suffix, w) <= 1)
    : undefined;
  if (suffix !== '' && meridiem === undefined) return undefined;
  let hour = Number(digits);
  let minute = mins === undefined || mins === '' ? 0 : Number(mins);
  if (sep === undefined && digits.length >= 3) {
    hour = Number(digits.slice(0, -2));
    minute = Number(digits.slice(-2));
  } else if (digits.length > 2) return undefined;
  const said = code(text);
  if (meridiem !== undefined) {
    const pm = meridiem.startsWith('p');
    if (hour >= 1 && hour <= 12 && minute <= 59)
      return `${said} is not a time of day.${didYouMean(twelveHour({ hour: (hour % 12) + (pm ? 12 : 0), minute }))}`;
    if (hour <= 23 && minute <= 59)
      return `With am or pm the hour goes from 1 to 12: ${said} is not a time of day.${didYouMean(clockText(hour, minute))}`;
    return `${said} is not a time of day: ${BOUNDS}.`;
  }
  if (sep === undefined && digits.length <= 2) {
    return hour <= 23
      ? `${said} needs minutes or am/pm: \`${clockText(hour, 0)}\`${hour >= 1 && hour <= 12 ? `, \`${hour}am\` or \`${hour}pm\`` : ''}.`
      : `${said} is not a time of day: ${BOUNDS}.`;
  }
  if (hour === 24 && minute === 0) return `${said} is not a time of day: ${BOUNDS}. Midnight is \`00:00\`.`;
  if (hour > 23 || minute > 59) return `${said} is not a time of day: ${BOUNDS}.`;
  return `${said} is not a time of day.${didYouMean(clockText(hour, minute))}`;
}

function readTimePhrase(text: string): { ok: true; time: TimeOfDay } | { ok: false; error: string } | undefined {
  const phrase = text.toLowerCase();
  if (Object.hasOwn(TIME_WORDS, phrase)) {
    const [h, m] = TIME_WORDS[phrase]!.split(':').map(Number);
    return { ok: true, time: time(h!, m!) };
  }
  const h24 = H24.exec(phrase);
  if (h24 && Number(h24[1]) <= 23 && Number(h24[2]) <= 59)
    return { ok: true, time: time(Number(h24[1]), Number(h24[2])) };
  const h12 = H12.exec(phrase);
  if (h12) {
    const hour = Number(h12[1]);
    const minute = Number(h12[2] ?? 0);
    if (hour >= 1 && hour <= 12 && minute <= 59)
      return { ok: true, time: time((hour % 12) + (h12[3]!.startsWith('p') ? 12 : 0), minute) };
  }
  const miss = timeNearMiss(text, phrase);
  return miss === undefined ? undefined : { ok: false, error: miss };
}

/**
 * The time of day that starts at `tokens[at]` (one token, or two: "9 am"): HH:MM and how
 * many tokens it took, or an error when the words are a time's near miss ("9amm", "25:00",
 * "9"). Undefined when they are not a time.
 */
export function readTime(tokens: readonly Token[], at: number): TimeRead | undefined {
  const first = tokens[at];
  if (first?.word === undefined) return undefined;
  const second = tokens[at + 1];
  if (/^\d/.test(first.word) && second?.word !== undefined && /^[a-z.]{1,5}$/.test(second.word)) {
    const read = readTimePhrase(`${first.text} ${second.text}`);
    if (read) return { ...read, consumed: 2 };
  }
  const read = readTimePhrase(first.text);
  return read ? { ...read, consumed: 1 } : undefined;
}

/** A whole text as a time of day (a form field): HH:MM, or what is wrong. */
export function parseTimeOfDay(text: string): { ok: true; time: TimeOfDay } | { ok: false; error: string } {
  const tokens = plainTokens(text);
  if (tokens.length === 0) return { ok: false, error: 'At what time? Say 09:00, 21:30, 9am or 9:30pm.' };
  const read = readTime(tokens, 0);
  if (read?.ok && read.consumed === tokens.length) return { ok: true, time: read.time };
  if (read && !read.ok) return read;
  return { ok: false, error: `${code(String(text).trim())} is not a time of day: say 09:00, 21:30, 9am or 9:30pm.` };
}

/** The ways a time of day can be said, each of which reads back as it. */
export function timeWords({ hour, minute }: Pick<TimeOfDay, 'hour' | 'minute'>): string[] {
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  const am = hour < 12;
  const words = [
    clockText(hour, minute),
    `${hour}:${pad(minute)}`,
    twelveHour({ hour, minute }),
    `${h12}:${pad(minute)} ${am ? 'AM' : 'PM'}`,
    `${h12}:${pad(minute)}${am ? 'a.m.' : 'p.m.'}`,
  ];
  if (minute === 0) words.push(`${h12} ${am ? 'am' : 'pm'}`, `${h12}${am ? 'AM' : 'PM'}`);
  for (const [word, text] of Object.entries(TIME_WORDS)) if (text === clockText(hour, minute)) words.push(word);
  return [...new Set(words)];
}
