import type { KnownBlock, MessageAttachment } from '@slack/types';
import { escapeMrkdwn, fallbackText, mrkdwnCode } from './escape.js';
import type { ChartBlock } from './charts.js';
import { mrkdwn } from './limits.js';
import { CHANNEL_ID } from '../../../kernel/text.js';

/** A block of a message: @slack/types' own, or a chart (which @slack/types does not type yet: kit/charts.ts). */
export type MessageBlock = KnownBlock | ChartBlock;

export interface SlackMessage {
  text: string;
  blocks: MessageBlock[];
  /** Secondary attachments: only for a colour bar (kit/colour.ts). */
  attachments?: MessageAttachment[];
}

/** Done (with what it came to), or refused with a message saying why. */
export type Result<T> = { ok: true; value: T } | { ok: false; message: SlackMessage };

/** What to show for a result whose value is itself a message. */
export function messageOf(result: Result<SlackMessage>): SlackMessage {
  return result.ok ? result.value : result.message;
}

/** A one-line answer about something that went wrong, with what to do. `text` is plain and gets escaped. */
export function problemMessage(text: string, hint?: string): SlackMessage {
  const line = `:warning: ${escapeMrkdwn(text)}`;
  const blocks: KnownBlock[] = [{ type: 'section', text: mrkdwn(line) }];
  if (hint) blocks.push({ type: 'context', elements: [mrkdwn(escapeMrkdwn(hint))] });
  return { text: fallbackText(`${text}${hint ? ` ${hint}` : ''}`), blocks };
}

/** Words and channels: a channel (its id, from Lookout's own records, never from a request) is shown as Slack's link. */
export type Said = string | readonly (string | { channel: string })[];

function said(parts: Said, escape: (text: string) => string): string {
  if (typeof parts === 'string') return escape(parts);
  return parts
    .map((p) =>
      typeof p === 'string' ? escape(p) : CHANNEL_ID.test(p.channel) ? `<#${p.channel}>` : escape(p.channel),
    )
    .join('');
}

/** A plain confirmation: words are escaped, channels shown as links. */
export function infoMessage(text: Said): SlackMessage {
  return {
    text: said(text, (t) => fallbackText(t)),
    blocks: [{ type: 'section', text: mrkdwn(`:white_check_mark: ${said(text, escapeMrkdwn)}`) }],
  };
}

/** A parse error: what was wrong (a one-liner from a feature's parser) and the usage line. */
export function usageMessage(message: string, usage: string): SlackMessage {
  return {
    text: fallbackText(`${message} Usage: ${usage}`),
    blocks: [
      { type: 'section', text: mrkdwn(`:grey_question: ${escapeMrkdwn(message)}`) },
      { type: 'context', elements: [mrkdwn(`Usage: \`${escapeMrkdwn(usage)}\` · \`/traffic help\` for more`)] },
    ],
  };
}

export function helpMessage(lines: string[]): SlackMessage {
  const body = lines.map(escapeMrkdwn).join('\n');
  return {
    text: fallbackText(lines.join('\n')),
    blocks: [{ type: 'section', text: mrkdwn(body) }],
  };
}

/** What a click on an old, tampered or forgotten message gets. */
export function staleMessage(): SlackMessage {
  return problemMessage(
    'This message is too old to change (or it was tampered with).',
    'Run the command again for a fresh one.',
  );
}

/**
 * To the person behind a digest or an alert subscription, when Slack refuses its channel
 * for good: what could not be posted, Slack's reason, and what to do (`fix` is plain).
 */
export function channelRefusedNotice(what: string, channelId: string, reason: string, fix: string): SlackMessage {
  const line = `Lookout could not post ${escapeMrkdwn(what)} in <#${channelId}>: Slack said ${mrkdwnCode(reason)}.`;
  return {
    text: `${fallbackText(`Lookout could not post ${what} in`)} <#${channelId}> ${fallbackText(`(Slack said ${reason}). ${fix}`)}`,
    blocks: [
      { type: 'section', text: mrkdwn(`:warning: ${line}`) },
      {
        type: 'context',
        elements: [mrkdwn(escapeMrkdwn(`Invite Lookout to the channel (or unarchive it), or ${fix}`))],
      },
    ],
  };
}
