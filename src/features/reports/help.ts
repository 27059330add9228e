/** `/traffic help [topic]`: plain-text lines, no mrkdwn. */
import type { ReportCatalog, ReportDef } from '../../kernel/catalog.js';
import { DEFAULT_RANGE, LAST_DAYS, RANGE_ALIASES, RANGE_MENU, rangeLabel } from '../../kernel/ranges.js';
import { FILTER_FIELDS } from '../../kernel/filters.js';
import { DEFAULT_TOP, MAX_TOP } from '../../kernel/query.js';
import { quoteInput } from '../../kernel/text.js';
import { matchReport } from '../../kernel/catalog.js';
import { reportList, sortKeyList, TRAFFIC_USAGE } from './parse.js';

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
};

const EXAMPLES = [
  '/traffic sources',
  '/traffic pages last30d page~/blog/ by duration top 25',
  '/traffic countries yesterday',
  '/traffic cities last30d country:"United States"',
  '/traffic sources last30d country.code:DE,AT or country.code:CH channel:"Organic Search"',
  '/traffic visits last7d visitor.id:v_demo_attacker public',
];

function reportLine(def: ReportDef): string {
  const also = def.aliases.length ? ` (also ${def.aliases.join(', ')})` : '';
  return `${def.id}: ${def.title}${also}; sort by ${Object.keys(def.sortKeys).join(', ')}`;
}

/** What the features say of their commands: `/traffic` words, slash commands, and the help of each by topic. */
export interface MoreHelp {
  subcommands: readonly { words: readonly string[] }[];
  commands: readonly { command: string; usage: string }[];
  help: Readonly<Record<string, readonly string[]>>;
}

const NO_MORE: MoreHelp = { subcommands: [], commands: [], help: {} };

function general(catalog: ReportCatalog, more: MoreHelp): string[] {
  const also = [
    ...more.subcommands.map((s) => `/traffic ${s.words[0]} …`),
    ...more.commands.filter((c) => c.command !== '/traffic').map((c) => `${c.command} ${c.usage}`),
  ];
  return [
    `Usage: ${TRAFFIC_USAGE}`,
    `Reports: ${reportList(catalog)} (aliases and unambiguous prefixes work too, e.g. "sou")`,
    `Ranges: ${RANGE_MENU.join(', ')}, in words too (last 14 days, this month), 2024-11-01..2024-11-28 or one date; default ${DEFAULT_RANGE}`,
    'Filters: country:Germany,France (is one of), country.code:US, page~/blog (contains), city:"New York"; "or" starts another group',
    `Sort and size: by <key> [asc|desc], top <n> (1 to ${MAX_TOP}, default ${DEFAULT_TOP}); "public" posts to the channel`,
    `Example: ${EXAMPLES[1]}`,
    ...(also.length > 0 ? [`Also: ${also.join(', ')}`] : []),
    `More: /traffic help ${['reports', 'ranges', 'filters', 'sort', 'examples', ...more.subcommands.map((s) => s.words[0]), '<report>'].join(' | ')}`,
  ];
}

function topicLines(topic: string, catalog: ReportCatalog, more: MoreHelp): string[] {
  switch (topic) {
    case 'reports':
      return ['Reports (type the name, an alias, or enough of its start):', ...Object.values(catalog).map(reportLine)];
    case 'ranges':
      return [
        'Ranges are resolved in the channel time zone (else the default zone, else UTC):',
        ...RANGE_MENU.map((w) => `${w}: ${rangeLabel(w)}${w === DEFAULT_RANGE ? ' (the default)' : ''}`),
        `Any number of days from ${LAST_DAYS.min} to ${LAST_DAYS.max}: last14d, last 14 days, 14d, last 2 weeks`,
        'Weeks start on Monday: lastweek is Monday to Sunday before this week, as lastmonth and lastyear are the calendar month and year before',
        `Also: ${Object.entries(RANGE_ALIASES)
          .map(([alias, word]) => `${alias} = ${word}`)
          .join(', ')}; spaces are fine (this month, last 7 days), and so is a range's name (Month to date, All time)`,
        'Dates: 2024-11-01..2024-11-28 or 2024-11-01 to 2024-11-28 (both days included), one day 2024-11-21, or as answers write them: Nov 1 – Nov 28, 2024',
        'Times of day (digests): 09:00, 21:30, 9am, 9:30pm, noon, midnight',
      ];
    case 'filters':
      return [
        'object:a,b keeps rows whose object is any of a, b; object~text keeps rows containing text',
        'object.field picks a field (the default is name); quote values with spaces: city:"New York"',
        'Filters side by side must all hold; "or" starts another group, and any group may hold',
        `Objects: ${Object.entries(FILTER_FIELDS)
          .map(([o, fields]) => (fields.length > 1 ? `${o} (${fields.join(', ')})` : o))
          .join(', ')}`,
        'Example: /traffic pages country:Germany,France page~/pricing or country.code:GB',
      ];
    case 'sort':
      return [
        'by <key> [asc|desc] sorts; names sort A to Z and numbers largest first unless you say otherwise',
        ...Object.values(catalog).map((d) => `${d.id}: ${sortKeyList(d)}; default ${d.defaultSort}`),
        `top <n> shows n rows a page (1 to ${MAX_TOP}, default ${DEFAULT_TOP}); public posts the answer to the channel`,
      ];
    case 'examples':
      return EXAMPLES;
    default:
      return general(catalog, more);
  }
}

/** Plain-text help lines (no mrkdwn) for a topic, a report, another command's topic, or everything. */
export function helpText(topic: string | undefined, catalog: ReportCatalog, more: MoreHelp = NO_MORE): string[] {
  const t = (topic ?? '').trim().toLowerCase();
  if (t === '') return general(catalog, more);
  const other = [t, t.replace(/s$/, ''), `${t}s`].find((k) => Object.hasOwn(more.help, k));
  if (other !== undefined) return [...(more.help[other] ?? [])];
  if (Object.hasOwn(HELP_TOPICS, t)) return topicLines(HELP_TOPICS[t] ?? '', catalog, more);
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
    `No help on "${quoteInput(t)}". Topics: reports, ranges, filters, sort, examples${Object.keys(more.help)
      .map((k) => `, ${k}`)
      .join('')}, or a report name.`,
    ...general(catalog, more),
  ];
}
