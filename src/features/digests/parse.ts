/**
 * `/traffic digest …` arguments (tokens from core/command.ts: quotes removed,
 * quoted parts kept whole; filters keep their quotes) → what to do. Pure: channel names are returned as
 * typed (the listener resolves them), reports are checked against the catalog.
 */
import type { ReportId } from '../../kernel/catalog.js';
import type { FilterGroup } from '../../kernel/filters.js';
import { parseTrafficCommand } from '../reports/parse.js';
import { isValidTimeZone } from '../../kernel/dates.js';
import { quoteInput } from '../../kernel/format.js';
import type { ReportCatalog } from '../../kernel/query.js';
import { toCron, WEEKDAYS, type DigestSchedule } from './schedule.js';

export const DIGEST_USAGE =
  '/traffic digest add [#channel] daily|weekdays|<weekday>|monthly <1-28>|cron "<expr>" HH:MM [Zone/City] <reports…> [filters…] [top <n>] · digest list [all] · digest preview|pause|resume|edit|remove <id>';

export type DigestCommand =
  | { kind: 'open-form' }
  | {
      kind: 'add';
      /** A channel id (from a `<#C…|name>` mention) or a name typed as `#name`; undefined: this channel. */
      channel?: { id?: string; name?: string };
      schedule: DigestSchedule;
      cron: string;
      timeZone?: string;
      reports: ReportId[];
      filters: FilterGroup[];
      top: number;
    }
  | { kind: 'list'; all: boolean }
  | { kind: 'preview' | 'pause' | 'resume' | 'edit' | 'remove'; id: number }
  | { kind: 'error'; message: string; usage: string };

const fail = (message: string): DigestCommand => ({ kind: 'error', message, usage: DIGEST_USAGE });
const code = (text: string) => `\`${quoteInput(text)}\``;
const TIME = /^([01]?\d|2[0-3]):[0-5]\d$/;
const DEFAULT_TOP = 5;

/**
 * A filter token for the /traffic parser. parseTrafficCommand keeps a filter's quotes
 * (`country:"United States",Germany`); one given without them but with spaces gets
 * its whole value quoted.
 */
function requote(token: string): string {
  const at = token.search(/[:~]/);
  return /\s/.test(token) && at > 0 && !token.includes('"') ? `${token.slice(0, at + 1)}"${token.slice(at + 1)}"` : token;
}

function weekdayOf(word: string): number | undefined {
  const i = WEEKDAYS.findIndex((d) => d.toLowerCase() === word || d.toLowerCase().slice(0, 3) === word || `${d.toLowerCase()}s` === word);
  return i >= 0 ? i : undefined;
}

export function parseDigestCommand(args: readonly string[], catalog: ReportCatalog): DigestCommand {
  const [typed = '', ...rest] = args;
  const verb = typed.toLowerCase();
  switch (verb) {
    case '':
      return fail('Say what to do with digests.');
    case 'list':
      return { kind: 'list', all: rest[0]?.toLowerCase() === 'all' };
    case 'preview':
    case 'pause':
    case 'resume':
    case 'edit':
    case 'remove':
    case 'delete': {
      const id = Number((rest[0] ?? '').replace(/^#/, ''));
      if (!Number.isInteger(id) || id <= 0) return fail(`Which digest? Give its number, like \`/traffic digest ${verb} 3\` (see \`/traffic digest list\`).`);
      return { kind: verb === 'delete' ? 'remove' : (verb as 'preview' | 'pause' | 'resume' | 'edit' | 'remove'), id };
    }
    case 'add':
      return rest.length === 0 ? { kind: 'open-form' } : parseAdd(rest, catalog);
    default:
      return fail(`Unknown digest command ${code(typed)}.`);
  }
}

function parseAdd(tokens: string[], catalog: ReportCatalog): DigestCommand {
  let channel: { id?: string; name?: string } | undefined;
  let schedule: DigestSchedule | undefined;
  let time: string | undefined;
  let timeZone: string | undefined;
  let top = DEFAULT_TOP;
  const reports: ReportId[] = [];
  const filterTokens: string[] = [];

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const word = token.toLowerCase();
    const mention = /^<#([CG][A-Z0-9]+)(?:\|([^>]*))?>$/.exec(token);
    if (mention) {
      channel = { id: mention[1], name: mention[2] };
    } else if (/^#[\w.-]+$/.test(token)) {
      channel = { name: token.slice(1) };
    } else if (TIME.test(token)) {
      time = token.padStart(5, '0');
    } else if (word === 'daily' || word === 'weekdays') {
      schedule = { kind: word };
    } else if (word === 'weekly') {
      const day = weekdayOf((tokens[i + 1] ?? '').toLowerCase());
      if (day === undefined) return fail('Weekly on which day? Like `weekly monday`.');
      schedule = { kind: 'weekly', weekday: day };
      i++;
    } else if (weekdayOf(word) !== undefined) {
      schedule = { kind: 'weekly', weekday: weekdayOf(word) };
    } else if (word === 'monthly') {
      const date = Number(tokens[i + 1]);
      if (!Number.isInteger(date) || date < 1 || date > 28) return fail('Monthly on which day? A number from 1 to 28, like `monthly 1`.');
      schedule = { kind: 'monthly', monthday: date };
      i++;
    } else if (word === 'cron') {
      schedule = { kind: 'cron', cron: tokens[i + 1] ?? '' };
      i++;
    } else if (word === 'top') {
      top = Number(tokens[i + 1]);
      if (!Number.isInteger(top) || top < 1 || top > 10) return fail('`top` takes a number from 1 to 10 in a digest.');
      i++;
    } else if (/^(utc|gmt)$/i.test(token) || (token.includes('/') && !/[:~]/.test(token))) {
      if (!isValidTimeZone(token)) return fail(`Unknown time zone ${code(token)}; use an IANA name like Europe/Berlin.`);
      timeZone = token;
    } else if (/[:~]/.test(token)) {
      filterTokens.push(requote(token));
    } else if (word === 'or') {
      filterTokens.push('or');
    } else {
      const parsed = parseTrafficCommand(token, catalog);
      if (parsed.kind !== 'report') return fail(`${code(token)} is not a report, a schedule, a time or a time zone.`);
      if (!reports.includes(parsed.query.report)) reports.push(parsed.query.report);
    }
  }

  if (!schedule) return fail('How often? Say daily, weekdays, a weekday (monday), `monthly 1` or `cron "0 9 * * 1"`.');
  if (schedule.kind !== 'cron') {
    if (!time) return fail('At what time? Add it as HH:MM, like 09:00.');
    schedule.time = time;
  }
  if (reports.length === 0) return fail('Which reports? Name one or more, like `sources pages countries`.');
  const cron = toCron(schedule);
  if (!cron.ok) return fail(cron.error);

  let filters: FilterGroup[] = [];
  if (filterTokens.length > 0) {
    const parsed = parseTrafficCommand(`${reports[0]} ${filterTokens.join(' ')}`, catalog);
    if (parsed.kind !== 'report') return parsed.kind === 'error' ? { ...parsed, usage: DIGEST_USAGE } : fail('Those filters do not parse.');
    filters = parsed.query.filters;
  }
  return { kind: 'add', channel, schedule, cron: cron.cron, timeZone, reports, filters, top };
}

/** Filter groups back into the /traffic filter language, for prefilling a form. */
export function filtersToText(groups: readonly FilterGroup[]): string {
  const quote = (v: string) => (/[\s,"]/.test(v) ? `"${v.replace(/"/g, '')}"` : v);
  return groups
    .filter((g) => g.filters.length > 0)
    .map((g) =>
      g.filters
        .map((f) => {
          const target = f.field === 'name' ? f.object : `${f.object}.${f.field}`;
          const values = Array.isArray(f.value) ? f.value : [f.value];
          return f.operator === 'contains' ? `${target}~${quote(values[0] ?? '')}` : `${target}:${values.map(quote).join(',')}`;
        })
        .join(' '),
    )
    .join(' or ');
}

/** Filters typed in the digest form, parsed with the /traffic grammar. */
export function parseFilterText(text: string, catalog: ReportCatalog): { ok: true; filters: FilterGroup[] } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, filters: [] };
  const parsed = parseTrafficCommand(`sources ${text}`, catalog);
  if (parsed.kind === 'report') return { ok: true, filters: parsed.query.filters };
  return { ok: false, error: parsed.kind === 'error' ? parsed.message : 'Those filters do not parse.' };
}
