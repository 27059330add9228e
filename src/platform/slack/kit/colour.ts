/**
 * A message's level as a colour: Slack draws no colour for a block in a message (the `alert`
 * block is for modals only), but it still draws a secondary attachment's bar. A coloured
 * message keeps its header and any block an attachment may not hold at top level, and puts
 * the rest in one attachment with the level's colour. The level is always said in words and
 * emoji too, for clients that draw no colour.
 */
import type { KnownBlock, MessageAttachment } from '@slack/types';
import { BLOCK_RULES } from '../../../slack-rules/rules.js';
import type { MessageBlock, SlackMessage } from './messages.js';

export type Level = 'error' | 'warning' | 'success' | 'info' | 'neutral';

/** Slack's own palette; neutral (grey) for what needs no attention any more, such as an acknowledged alert. */
export const LEVEL_COLOURS: Record<Level, string> = {
  error: '#E01E5A',
  warning: '#ECB22E',
  success: '#2EB67D',
  info: '#36C5F0',
  neutral: '#9E9EA6',
};

const VERDICT_LEVELS: Record<string, Level> = {
  Threat: 'error',
  Suspicious: 'warning',
  Human: 'success',
  Unknown: 'info',
};
const SEVERITY_LEVELS: Record<string, Level> = { high: 'error', medium: 'warning', low: 'info' };

export function verdictLevel(verdict: string): Level {
  return VERDICT_LEVELS[verdict] ?? 'neutral';
}

export function severityLevel(severity: string): Level {
  return SEVERITY_LEVELS[severity] ?? 'neutral';
}

function attachable(block: MessageBlock): block is KnownBlock {
  const rule = (BLOCK_RULES as Record<string, { inAttachments: boolean }>)[block.type];
  return rule?.inAttachments === true;
}

/** One coloured bar holding `blocks` (each one an attachment may hold). */
export function colourBar(level: Level, blocks: KnownBlock[]): MessageAttachment {
  return { color: LEVEL_COLOURS[level], blocks };
}

/**
 * The message with its level's colour: the header, charts and tables stay at top level (an
 * attachment may not hold them; Slack draws attachments after the top-level blocks), with the
 * blocks whose `block_id` is in `withTop` (a table's caption); everything else moves, in
 * order, into one coloured bar.
 */
export function inColour(message: SlackMessage, level: Level, withTop: readonly string[] = []): SlackMessage {
  const inBar = (b: MessageBlock): b is KnownBlock =>
    attachable(b) && !(b.block_id !== undefined && withTop.includes(b.block_id));
  const top = message.blocks.filter((b) => !inBar(b));
  const bar = message.blocks.filter(inBar);
  if (bar.length === 0) return message;
  return { ...message, blocks: top, attachments: [colourBar(level, bar), ...(message.attachments ?? [])] };
}
