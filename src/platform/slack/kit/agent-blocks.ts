import type { KnownBlock } from '@slack/types';
import { capBlocks, LIMITS } from './limits.js';
import type { SlackMessage } from './messages.js';

type Json = Record<string, unknown>;

const isUrlButton = (e: unknown): boolean =>
  (e as Json | undefined)?.type === 'button' && typeof (e as Json).url === 'string';

/**
 * A message's blocks as an agent's answer shows them (Slackbot draws them as a message): its
 * blocks and its attachments' blocks, without the buttons and menus that act on Lookout's own
 * messages (only link buttons stay), within a message's block limit.
 */
export function agentBlocks(message: Pick<SlackMessage, 'blocks' | 'attachments'>): KnownBlock[] {
  const all = [...message.blocks, ...(message.attachments ?? []).flatMap((a) => a.blocks ?? [])] as unknown as Json[];
  const kept = all.flatMap((block): Json[] => {
    if (block.type === 'actions') {
      const links = (block.elements as unknown[]).filter(isUrlButton);
      return links.length > 0 ? [{ ...block, elements: links }] : [];
    }
    if (block.type === 'input') return [];
    if (block.accessory !== undefined && !isUrlButton(block.accessory)) {
      const { accessory: _, ...rest } = block;
      return [rest];
    }
    return [block];
  });
  return capBlocks(kept as unknown as KnownBlock[], LIMITS.messageBlocks);
}
