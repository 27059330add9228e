/** `/traffic alerts …` words → what to do. Pure. */
import { channelRef, code, isSafeId, parseMuteDuration, type ChannelRef, type UsageError } from '../../kernel/text.js';

export { parseMuteDuration };
import { ALERT_CHECKS, isSeverity, type AlertCheck, type Severity } from '../../kernel/verdict.js';
import { GROUPINGS, type Grouping } from './plan.js';

export const ALERTS_USAGE =
  '/traffic alerts on [#channel] [min high|medium|low] [checks bot,scraping,vpn,extensions] [grouped|each] · alerts off [#channel] · alerts status · alerts mute <visitor_id> [for 24h|7d|forever] · alerts unmute <visitor_id>';

export const ALERTS_HELP = [
  '/traffic alerts on|off|status|mute|unmute …',
  'Raises an alert in the channel when a flagged visitor shows up.',
];

export type AlertsCommand =
  | { kind: 'on'; channel?: ChannelRef; min: Severity; checks: AlertCheck[]; grouping: Grouping }
  | { kind: 'off'; channel?: ChannelRef }
  | { kind: 'status' }
  | { kind: 'mute'; visitorId: string; forMs: number | null; label: string }
  | { kind: 'unmute'; visitorId: string }
  | UsageError;

const fail = (message: string): UsageError => ({ kind: 'error', message, usage: ALERTS_USAGE });

export function parseAlertsCommand(args: readonly string[]): AlertsCommand {
  const [verb = '', ...rest] = args;
  switch (verb.toLowerCase()) {
    case '':
    case 'status':
      return { kind: 'status' };
    case 'on':
      return parseOn(rest);
    case 'off': {
      const channel = rest[0] ? channelRef(rest[0]) : undefined;
      if (rest[0] && !channel) return fail(`${code(rest[0])} is not a channel; use #channel.`);
      return { kind: 'off', channel };
    }
    case 'mute': {
      const id = rest[0] ?? '';
      if (!isSafeId(id)) return fail('Which visitor? Like `/traffic alerts mute v_123 for 24h`.');
      let words = rest.slice(1);
      if (words[0]?.toLowerCase() === 'for') words = words.slice(1);
      const text = words.join('') || '24h';
      const forMs = parseMuteDuration(text);
      if (forMs === undefined) return fail(`${code(words.join(' '))} is not a duration; use 24h, 7d or forever.`);
      return { kind: 'mute', visitorId: id, forMs, label: forMs === null ? 'forever' : text };
    }
    case 'unmute': {
      const id = rest[0] ?? '';
      if (!isSafeId(id)) return fail('Which visitor? Like `/traffic alerts unmute v_123`.');
      return { kind: 'unmute', visitorId: id };
    }
    default:
      return fail(`Unknown alerts command ${code(verb)}.`);
  }
}

function parseOn(tokens: readonly string[]): AlertsCommand {
  let channel: ChannelRef | undefined;
  let min: Severity = 'medium';
  let checks: AlertCheck[] = [...ALERT_CHECKS];
  let grouping: Grouping = 'grouped';
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const word = token.toLowerCase();
    const ch = channelRef(token);
    if (ch) {
      channel = ch;
    } else if (word === 'min' || word === 'minimum' || word === 'severity') {
      const level = (tokens[++i] ?? '').toLowerCase();
      if (!isSeverity(level)) return fail('`min` takes high, medium or low.');
      min = level;
    } else if (isSeverity(word)) {
      min = word;
    } else if (word === 'checks' || word === 'check') {
      const list = (tokens[++i] ?? '')
        .toLowerCase()
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean);
      const unknown = list.filter((c) => !(ALERT_CHECKS as readonly string[]).includes(c));
      if (list.length === 0 || unknown.length > 0)
        return fail(
          `Checks are ${ALERT_CHECKS.join(', ')}${unknown.length ? `; not ${code(unknown.join(','))}` : ''}.`,
        );
      checks = [...new Set(list)] as AlertCheck[];
    } else if ((GROUPINGS as readonly string[]).includes(word)) {
      grouping = word as Grouping;
    } else {
      return fail(`${code(token)} is not a channel, a severity, a list of checks or a grouping (grouped, each).`);
    }
  }
  return { kind: 'on', channel, min, checks, grouping };
}
