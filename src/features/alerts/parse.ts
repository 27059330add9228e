/**
 * `/traffic alerts …` arguments (tokens from core/command.ts) → what to do. Pure.
 */
import { quoteInput } from '../../kernel/format.js';
import type { Severity } from '../../kernel/verdict.js';

export const ALERT_CHECKS = ['bot', 'scraping', 'vpn', 'extensions'] as const;
export type AlertCheck = (typeof ALERT_CHECKS)[number];

export const ALERTS_USAGE =
  '/traffic alerts on [#channel] [min high|medium|low] [checks bot,scraping,vpn,extensions] · alerts off [#channel] · alerts status · alerts mute <visitor_id> [for 24h|7d|forever] · alerts unmute <visitor_id>';

export type ChannelRef = { id?: string; name?: string };

export type AlertsCommand =
  | { kind: 'on'; channel?: ChannelRef; min: Severity; checks: AlertCheck[] }
  | { kind: 'off'; channel?: ChannelRef }
  | { kind: 'status' }
  | { kind: 'mute'; visitorId: string; forMs: number | null; label: string }
  | { kind: 'unmute'; visitorId: string }
  | { kind: 'error'; message: string; usage: string };

const fail = (message: string): AlertsCommand => ({ kind: 'error', message, usage: ALERTS_USAGE });
const code = (text: string) => `\`${quoteInput(text)}\``;
const SAFE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** `30m`, `24h`, `7d` → milliseconds; `forever` → null; anything else → undefined. */
export function parseDuration(text: string): number | null | undefined {
  if (/^(forever|always|permanently)$/i.test(text)) return null;
  const m = /^(\d{1,4})\s*(m|min|h|d|w)$/i.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[m[2]!.toLowerCase() as 'm' | 'min' | 'h' | 'd' | 'w'];
  return n > 0 ? n * unit : undefined;
}

function channelOf(token: string): ChannelRef | undefined {
  const mention = /^<#([CG][A-Z0-9_]+)(?:\|([^>]*))?>$/.exec(token);
  if (mention) return { id: mention[1], name: mention[2] };
  if (/^#[\w.-]+$/.test(token)) return { name: token.slice(1) };
  return undefined;
}

export function parseAlertsCommand(args: readonly string[]): AlertsCommand {
  const [verb = '', ...rest] = args;
  switch (verb.toLowerCase()) {
    case '':
    case 'status':
      return { kind: 'status' };
    case 'on':
      return parseOn(rest);
    case 'off': {
      const channel = rest[0] ? channelOf(rest[0]) : undefined;
      if (rest[0] && !channel) return fail(`${code(rest[0])} is not a channel; use #channel.`);
      return { kind: 'off', channel };
    }
    case 'mute': {
      const id = rest[0] ?? '';
      if (!SAFE_ID.test(id) || id.includes('..') || /^\.+$/.test(id)) return fail('Which visitor? Like `/traffic alerts mute v_123 for 24h`.');
      let words = rest.slice(1);
      if (words[0]?.toLowerCase() === 'for') words = words.slice(1);
      const text = words.join('') || '24h';
      const forMs = parseDuration(text);
      if (forMs === undefined) return fail(`${code(words.join(' '))} is not a duration; use 24h, 7d or forever.`);
      return { kind: 'mute', visitorId: id, forMs, label: forMs === null ? 'forever' : text };
    }
    case 'unmute': {
      const id = rest[0] ?? '';
      if (!SAFE_ID.test(id) || id.includes('..')) return fail('Which visitor? Like `/traffic alerts unmute v_123`.');
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
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const word = token.toLowerCase();
    const ch = channelOf(token);
    if (ch) {
      channel = ch;
    } else if (word === 'min' || word === 'minimum' || word === 'severity') {
      const level = (tokens[++i] ?? '').toLowerCase();
      if (level !== 'high' && level !== 'medium' && level !== 'low') return fail('`min` takes high, medium or low.');
      min = level;
    } else if (word === 'high' || word === 'medium' || word === 'low') {
      min = word;
    } else if (word === 'checks' || word === 'check') {
      const list = (tokens[++i] ?? '').toLowerCase().split(',').map((c) => c.trim()).filter(Boolean);
      const unknown = list.filter((c) => !(ALERT_CHECKS as readonly string[]).includes(c));
      if (list.length === 0 || unknown.length > 0) return fail(`Checks are ${ALERT_CHECKS.join(', ')}${unknown.length ? `; not ${code(unknown.join(','))}` : ''}.`);
      checks = [...new Set(list)] as AlertCheck[];
    } else {
      return fail(`${code(token)} is not a channel, a severity or a list of checks.`);
    }
  }
  return { kind: 'on', channel, min, checks };
}
