/**
 * `/traffic digest …` tokens → what to do. Pure: channel names are returned as typed
 * (the service resolves them), reports are checked against the catalog.
 */
import { matchReport, reportNames, type ReportCatalog, type ReportId } from '../../kernel/catalog.js';
import { isValidTimeZone } from '../../kernel/dates.js';
import { findOperator, parseFilters, type FilterGroup } from '../../kernel/filters.js';
import {
  channelRef,
  closest,
  code,
  didYouMean,
  tokenize,
  type ChannelRef,
  type Token,
  type UsageError,
} from '../../kernel/text.js';
import { readRange } from '../../kernel/range-words.js';
import { readTime, TIME_WORDS } from '../../kernel/time-of-day.js';
import { toCron, WEEKDAYS, type DigestSchedule } from './cron.js';

export const DIGEST_USAGE =
  '/traffic digest add [#channel] daily|weekdays|<weekday>|monthly <1-28>|cron "<expr>" <time: 09:00, 9am, 9:30pm> [Zone/City] <reports…> [filters…] [top <n>] · digest list [all] · digest preview|pause|resume|edit|remove <id>';

export const DIGEST_HELP = [
  '/traffic digest add|list|remove|pause|resume|preview …',
  'Posts reports to a channel on a schedule, with the change against the period before.',
];

/** Rows per report in a digest. */
export const DIGEST_TOP = { min: 1, max: 10, default: 5 } as const;

export type DigestVerb = 'preview' | 'pause' | 'resume' | 'edit' | 'remove';

export interface DigestAdd {
  kind: 'add';
  /** Undefined: this channel. */
  channel?: ChannelRef;
  schedule: DigestSchedule;
  cron: string;
  timeZone?: string;
  reports: ReportId[];
  filters: FilterGroup[];
  top: number;
}

export type DigestCommand =
  { kind: 'open-form' } | DigestAdd | { kind: 'list'; all: boolean } | { kind: DigestVerb; id: number } | UsageError;

const fail = (message: string): UsageError => ({ kind: 'error', message, usage: DIGEST_USAGE });

const VERBS: Readonly<Record<string, DigestVerb>> = {
  preview: 'preview',
  pause: 'pause',
  resume: 'resume',
  edit: 'edit',
  remove: 'remove',
  delete: 'remove',
};

function weekdayOf(word: string): number | undefined {
  const i = WEEKDAYS.findIndex(
    (d) => d.toLowerCase() === word || d.toLowerCase().slice(0, 3) === word || `${d.toLowerCase()}s` === word,
  );
  return i >= 0 ? i : undefined;
}

export function parseDigestCommand(args: readonly Token[], catalog: ReportCatalog): DigestCommand {
  const [first, ...rest] = args;
  const verb = (first?.text ?? '').toLowerCase();
  if (verb === '') return fail('Say what to do with digests.');
  if (verb === 'list') return { kind: 'list', all: rest[0]?.text.toLowerCase() === 'all' };
  if (verb === 'add') return rest.length === 0 ? { kind: 'open-form' } : parseAdd(rest, catalog);
  const known = Object.hasOwn(VERBS, verb) ? VERBS[verb] : undefined;
  if (known === undefined) return fail(`Unknown digest command ${code(first?.text ?? '')}.`);
  const id = Number((rest[0]?.text ?? '').replace(/^#/, ''));
  if (!Number.isSafeInteger(id) || id <= 0)
    return fail(`Which digest? Give its number, like \`/traffic digest ${verb} 3\` (see \`/traffic digest list\`).`);
  return { kind: known, id };
}

/** The words `digest add` knows besides channels, zones and filters, for "did you mean". */
function digestWords(catalog: ReportCatalog): Array<[string, string]> {
  const words = [
    ...Object.values(catalog).flatMap((d) => reportNames(d)),
    ...['daily', 'weekdays', 'weekly', 'monthly', 'cron', 'top', ...Object.keys(TIME_WORDS)],
    ...WEEKDAYS.map((d) => d.toLowerCase()),
  ];
  return words.map((w): [string, string] => [w, w]);
}

function parseAdd(tokens: readonly Token[], catalog: ReportCatalog): DigestCommand {
  let channel: ChannelRef | undefined;
  let schedule: DigestSchedule | undefined;
  let time: string | undefined;
  let timeZone: string | undefined;
  let top: number = DIGEST_TOP.default;
  const reports: ReportId[] = [];
  const filterTokens: Token[] = [];

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const text = token.text;
    const word = text.toLowerCase();
    const next = tokens[i + 1]?.text ?? '';
    const mentioned = channelRef(text);
    const clock = readTime(tokens, i);
    const range = readRange(tokens, i);
    if (mentioned) {
      channel = mentioned;
    } else if (clock) {
      if (!clock.ok) return fail(clock.error);
      time = clock.time.text;
      i += clock.consumed - 1;
    } else if (word === 'daily' || word === 'weekdays') {
      schedule = { kind: word };
    } else if (word === 'weekly') {
      const day = weekdayOf(next.toLowerCase());
      if (day === undefined) return fail('Weekly on which day? Like `weekly monday`.');
      schedule = { kind: 'weekly', weekday: day };
      i++;
    } else if (weekdayOf(word) !== undefined) {
      schedule = { kind: 'weekly', weekday: weekdayOf(word) };
    } else if (word === 'monthly') {
      const date = Number(next);
      if (!Number.isInteger(date) || date < 1 || date > 28)
        return fail('Monthly on which day? A number from 1 to 28, like `monthly 1`.');
      schedule = { kind: 'monthly', monthday: date };
      i++;
    } else if (word === 'cron') {
      schedule = { kind: 'cron', cron: next };
      i++;
    } else if (word === 'top') {
      top = Number(next);
      if (!Number.isInteger(top) || top < DIGEST_TOP.min || top > DIGEST_TOP.max)
        return fail(`\`top\` takes a number from ${DIGEST_TOP.min} to ${DIGEST_TOP.max} in a digest.`);
      i++;
    } else if (/^(utc|gmt)$/i.test(text) || (text.includes('/') && !findOperator(token))) {
      if (!isValidTimeZone(text)) return fail(`Unknown time zone ${code(text)}; use an IANA name like Europe/Berlin.`);
      timeZone = text;
    } else if (findOperator(token) || token.word === 'or') {
      filterTokens.push(token);
    } else if (range?.ok) {
      return fail(
        `A digest reports on the period its schedule sets (daily: the day before; weekly: the 7 days before; monthly: the month before), so it takes no range: leave out ${code(range.text)}.`,
      );
    } else {
      const match = matchReport(text, catalog);
      if (!match.ok)
        return fail(
          `${code(text)} is not a report, a schedule, a time or a time zone.${didYouMean(closest(text, digestWords(catalog)))}`,
        );
      if (!reports.includes(match.id)) reports.push(match.id);
    }
  }

  if (!schedule) return fail('How often? Say daily, weekdays, a weekday (monday), `monthly 1` or `cron "0 9 * * 1"`.');
  if (schedule.kind !== 'cron') {
    if (!time) return fail('At what time? Add it as HH:MM or with am/pm, like 09:00, 9am or 9:30pm.');
    schedule.time = time;
  }
  if (reports.length === 0) return fail('Which reports? Name one or more, like `sources pages countries`.');
  const cron = toCron(schedule);
  if (!cron.ok) return fail(cron.error);
  const filters = parseFilters(filterTokens, catalog);
  if ('problem' in filters) return fail(filters.problem);
  return { kind: 'add', channel, schedule, cron: cron.cron, timeZone, reports, filters: filters.filters, top };
}

/** Filters typed in the digest form, in the /traffic filter language. */
export function parseFilterText(
  text: string,
  catalog: ReportCatalog,
): { ok: true; filters: FilterGroup[] } | { ok: false; error: string } {
  const tokens = tokenize(text);
  if (!Array.isArray(tokens)) return { ok: false, error: tokens.error };
  const parsed = parseFilters(tokens, catalog);
  return 'problem' in parsed ? { ok: false, error: parsed.problem } : { ok: true, filters: parsed.filters };
}
