/**
 * `/traffic watch …` tokens → what to do. Pure: a channel is returned as typed (the
 * service resolves it), reports and filters are checked against the catalog.
 */
import { matchReport, type ReportCatalog } from '../../kernel/catalog.js';
import { filtersToText, findOperator, parseFilters } from '../../kernel/filters.js';
import { durationInWords } from '../../kernel/format.js';
import {
  boundedNumber,
  channelRef,
  code,
  MAX_COUNT,
  parseMuteDuration,
  type ChannelRef,
  type Token,
  type UsageError,
} from '../../kernel/text.js';
import { readRange } from '../../kernel/range-words.js';
import { NEW_TOP, type Condition, type WatchEvery, type WatchMetric, type WatchRule, type WatchWho } from './plan.js';

export const WATCH_USAGE =
  '/traffic watch [visits [by people|bots]|unique|bots] [report] [filters…] above|below <n>[%] | drops|rises <n>% [vs last week|usual] | spike [<n> spreads] | new [every hour|day] [#channel] · watch preview <rule> · watch list [all] · watch pause|resume|remove <id> · watch edit <id> <rule> · watch mute <id> [for 24h|7d|forever] · watch unmute <id>';

export const WATCH_HELP = [
  '/traffic watch <metric> [report filters…] <condition> [every hour|day] [#channel]',
  'Alerts when traffic itself moves: a threshold, a change against the period before, last week or the usual, a spike against the usual and its noise, a new top-10 entry, or the share of flagged visitors. Adding or editing one shows how it would have behaved over the past weeks; `/traffic watch preview <rule>` shows only that.',
  'Examples: `/traffic watch visits drops 40% vs last week` · `/traffic watch visits drops 50% vs usual` · `/traffic watch visits by people spike` · `/traffic watch sources source:google visits below 100 per day` · `/traffic watch pages page~/checkout spike` · `/traffic watch countries new` · `/traffic watch bots above 20%`',
];

export type WatchVerb = 'pause' | 'resume' | 'remove' | 'unmute';

export type WatchCommand =
  | { kind: 'add'; rule: WatchRule; channel?: ChannelRef }
  | { kind: 'edit'; id: number; rule: WatchRule; channel?: ChannelRef }
  | { kind: 'preview'; rule: WatchRule }
  | { kind: 'list'; all: boolean }
  | { kind: 'mute'; id: number; forMs: number | null; label: string }
  | { kind: WatchVerb; id: number }
  | UsageError;

const fail = (message: string): UsageError => ({ kind: 'error', message, usage: WATCH_USAGE });

const VERBS: Readonly<Record<string, WatchVerb | 'mute'>> = {
  pause: 'pause',
  resume: 'resume',
  remove: 'remove',
  delete: 'remove',
  unmute: 'unmute',
  mute: 'mute',
};

function idOf(token: Token | undefined, verb: string): number | UsageError {
  const id = boundedNumber((token?.text ?? '').replace(/^#/, ''), { min: 1, max: 2_147_483_647, integer: true });
  return id ?? fail(`Which watch? Give its number, like \`/traffic watch ${verb} 3\` (see \`/traffic watch list\`).`);
}

export function parseWatchCommand(args: readonly Token[], catalog: ReportCatalog): WatchCommand {
  const [first, ...rest] = args;
  const verb = (first?.text ?? '').toLowerCase();
  if (verb === '') return fail('Say what to watch, e.g. `/traffic watch visits drops 40% vs last week`.');
  if (verb === 'list') return { kind: 'list', all: rest[0]?.text.toLowerCase() === 'all' };
  if (verb === 'preview') {
    if (rest.length === 0) return fail('Preview which rule? Like `/traffic watch preview visits spike`.');
    const parsed = parseRule(rest, catalog);
    return 'rule' in parsed ? { kind: 'preview', rule: parsed.rule } : parsed;
  }
  if (verb === 'edit') {
    const id = idOf(rest[0], 'edit');
    if (typeof id !== 'number') return id;
    const parsed = parseRule(rest.slice(1), catalog);
    return 'rule' in parsed ? { kind: 'edit', id, ...parsed } : parsed;
  }
  const known = Object.hasOwn(VERBS, verb) ? VERBS[verb] : undefined;
  if (known === 'mute') {
    const id = idOf(rest[0], 'mute');
    if (typeof id !== 'number') return id;
    return parseMuteFor(id, rest.slice(1));
  }
  if (known !== undefined) {
    const id = idOf(rest[0], verb);
    return typeof id === 'number' ? { kind: known, id } : id;
  }
  const parsed = parseRule(args, catalog);
  return 'rule' in parsed ? { kind: 'add', ...parsed } : parsed;
}

function parseMuteFor(id: number, words: readonly Token[]): WatchCommand {
  const text = words.map((t) => t.text.toLowerCase()).filter((w) => w !== 'for');
  if (text.length === 0) return { kind: 'mute', id, forMs: 24 * 3_600_000, label: 'for 24 hours' };
  const forMs = parseMuteDuration(text.join(''));
  if (forMs === undefined)
    return fail('Mute for how long? From a minute to a year, like `for 30m`, `for 24h`, `for 7d`, or `forever`.');
  return { kind: 'mute', id, forMs, label: forMs === null ? 'for good' : `for ${durationInWords(forMs)}` };
}

/** A threshold: a count from 0 to a billion, or with `%` a share from 0 to 100. */
const threshold = (text: string | undefined): { value: number; pct: boolean } | undefined => {
  if (text === undefined) return undefined;
  const pct = text.endsWith('%');
  const value = boundedNumber(pct ? text.slice(0, -1) : text, pct ? { min: 0, max: 100 } : { min: 0, max: MAX_COUNT });
  return value === undefined ? undefined : { value, pct };
};

/** How far a spike must be from the usual, in spreads: from 2 to 50. */
export const SPREADS = { min: 2, max: 50 } as const;

/** A change in percent: more than 0, at most 1,000. */
const change = (text: string | undefined): number | undefined =>
  text?.endsWith('%') ? boundedNumber(text.slice(0, -1), { min: 0.1, max: 1000 }) : undefined;

/** The rule's words, in any order: metric, report, filters, condition, how often, where. */
export function parseRule(
  tokens: readonly Token[],
  catalog: ReportCatalog,
): { rule: WatchRule; channel?: ChannelRef } | UsageError {
  let metric: WatchMetric | undefined;
  let who: WatchWho | undefined;
  let report: WatchRule['report'] | undefined;
  let condition: Condition | undefined;
  let every: WatchEvery | undefined;
  let channel: ChannelRef | undefined;
  const filterTokens: Token[] = [];
  const setCondition = (c: Condition): UsageError | undefined => {
    if (condition) return fail('One condition per watch: above, below, drops, rises, spike or new.');
    condition = c;
    return undefined;
  };

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const word = token.text.toLowerCase();
    const next = tokens[i + 1]?.text.toLowerCase();
    const mentioned = channelRef(token.text);
    const range = readRange(tokens, i);
    let problem: UsageError | undefined;
    if (mentioned) {
      channel = mentioned;
    } else if (findOperator(token) || token.word === 'or') {
      filterTokens.push(token);
    } else if ((word === 'visits' || word === 'unique' || word === 'bots') && metric === undefined) {
      metric = word;
      if (word === 'visits' && next === 'by') {
        const whose = tokens[i + 2]?.text.toLowerCase();
        if (whose !== 'people' && whose !== 'bots')
          return fail('Whose visits? `visits by people` (visitors the threat scan did not flag) or `visits by bots`.');
        who = whose;
        i += 2;
      }
    } else if (word === 'above' || word === 'below') {
      const n = threshold(next);
      if (n === undefined)
        return fail(
          `\`${word}\` needs a number from 0 to ${MAX_COUNT.toLocaleString('en-US')}, like \`${word} 100\` (or a share from 0% to 100%, like \`${word} 20%\`, for bots).`,
        );
      problem = setCondition({ kind: word, value: n.value });
      i++;
    } else if (word === 'drops' || word === 'rises' || word === 'drop' || word === 'rise') {
      const n = change(next);
      if (n === undefined)
        return fail(`\`${word}\` needs a percentage above 0% and at most 1,000%, like \`${word} 40%\`.`);
      const vs = tokens[i + 2]?.text.toLowerCase() === 'vs' ? 2 : 0;
      // `vs last week` (or `vs lastweek`): the same hours or day a week before.
      const week = vs > 0 ? readRange(tokens, i + 3) : undefined;
      const lastWeek = week?.ok === true && week.range === 'lastweek';
      const against = vs > 0 ? tokens[i + 3]?.text.toLowerCase() : undefined;
      if (vs > 0 && !lastWeek && against !== 'previous' && against !== 'usual')
        return fail('Compare `vs last week`, `vs usual` or `vs previous`.');
      problem = setCondition({
        kind: 'change',
        direction: word.startsWith('drop') ? 'drops' : 'rises',
        pct: n,
        against: lastWeek ? 'last_week' : against === 'usual' ? 'usual' : 'previous',
      });
      i += 1 + (vs > 0 ? 1 + (lastWeek ? week.consumed : 1) : 0);
    } else if (word === 'spike' || word === 'spikes') {
      const unit = tokens[i + 2]?.text.toLowerCase();
      if (unit === 'spreads' || unit === 'spread') {
        const spreads = boundedNumber(next ?? '', SPREADS);
        if (spreads === undefined)
          return fail(
            `\`spike <n> spreads\` takes a number from ${SPREADS.min} to ${SPREADS.max}, like \`spike 6 spreads\`.`,
          );
        problem = setCondition({ kind: 'spike', spreads });
        i += 2;
      } else problem = setCondition({ kind: 'spike' });
    } else if (word === 'new') {
      problem = setCondition({ kind: 'new', top: NEW_TOP });
    } else if ((word === 'every' || word === 'per') && (next === 'hour' || next === 'day')) {
      every = next;
      i++;
    } else if (word === 'hourly' || word === 'daily') {
      every = word === 'hourly' ? 'hour' : 'day';
    } else if (range?.ok) {
      return fail(
        `A watch judges each hour or day as it ends (\`every hour\` or \`every day\`), so it takes no range: leave out ${code(range.text)}. To compare with the week before, say \`drops 40% vs last week\`.`,
      );
    } else {
      const match = matchReport(token.text, catalog);
      if (!match.ok || report !== undefined)
        return fail(
          `Don't understand ${code(token.text)}. ${match.ok ? 'One report per watch.' : 'Expected a metric (visits, unique, bots), a report, a filter, a condition (above, below, drops, rises, spike, new), `every hour|day` or a #channel.'}`,
        );
      report = match.id;
    }
    if (problem) return problem;
  }

  if (!condition)
    return fail(
      'When should it alert? Add a condition: `above 100`, `below 100`, `drops 40%`, `rises 50% vs last week`, `spike` or `new`.',
    );
  const filters = parseFilters(filterTokens, catalog);
  if ('problem' in filters) return fail(filters.problem);
  const m = metric ?? 'visits';
  if (m === 'bots') {
    if (condition.kind !== 'above' && condition.kind !== 'below')
      return fail('A bots watch is `bots above <n>%` or `bots below <n>%` (the share of visits by flagged visitors).');
    if (condition.value > 100) return fail('A share is at most 100%.');
    if (report !== undefined || filters.filters.length > 0)
      return fail('A bots watch looks at all visits; leave out the report and filters.');
    if (every === 'day') return fail('A bots watch looks at the last hour; leave out `every day`.');
  }
  const reportId = report ?? 'visits';
  if (who && (reportId !== 'visits' || filters.filters.length > 0 || condition.kind === 'new'))
    return fail(
      `\`visits by ${who}\` counts all the site's visits by whom the threat scan judged them to be: leave out the report and filters, and use above, below, drops, rises or spike.`,
    );
  if (condition.kind === 'new') {
    const def = catalog[reportId];
    if (!def.countField || !def.rowFilter)
      return fail(`\`new\` watches a report's top rows: name one, like \`/traffic watch countries new\`.`);
  }
  const defaultEvery: WatchEvery = m === 'bots' || condition.kind === 'spike' ? 'hour' : 'day';
  return {
    rule: {
      metric: m,
      ...(who ? { who } : {}),
      report: reportId,
      filters: filters.filters,
      condition,
      every: every ?? defaultEvery,
    },
    ...(channel ? { channel } : {}),
  };
}

/** The rule in the command language, as `parseRule` reads it back: `visits spike 6 spreads every hour`. */
export function ruleWords(rule: WatchRule): string {
  const c = rule.condition;
  const condition =
    c.kind === 'above' || c.kind === 'below'
      ? `${c.kind} ${c.value}${rule.metric === 'bots' ? '%' : ''}`
      : c.kind === 'change'
        ? `${c.direction} ${c.pct}% vs ${c.against === 'last_week' ? 'last week' : c.against}`
        : c.kind === 'spike'
          ? c.spreads === undefined
            ? 'spike'
            : `spike ${c.spreads} spreads`
          : 'new';
  return [
    rule.metric === 'visits' && rule.who ? `visits by ${rule.who}` : rule.metric,
    rule.report === 'visits' ? '' : rule.report,
    filtersToText(rule.filters),
    condition,
    `every ${rule.every}`,
  ]
    .filter(Boolean)
    .join(' ');
}
