import type { BlockAction } from '@slack/bolt';
import { MENU_BLOCK_PREFIX } from '../blocks.js';

/** Was the clicked message ephemeral? Then answers replace it; under a shared message they go to the clicker alone. */
export function isEphemeral(body: BlockAction): boolean {
  return (body.container as { is_ephemeral?: boolean } | undefined)?.is_ephemeral === true;
}

/** The query ref a menu's actions block carries in its block_id. */
export function menuRef(blockId: string | undefined): string | undefined {
  return blockId?.startsWith(MENU_BLOCK_PREFIX) ? blockId.slice(MENU_BLOCK_PREFIX.length) : undefined;
}
