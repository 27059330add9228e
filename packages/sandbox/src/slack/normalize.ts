/** What Slack fills in on what it stores: random ids, block and action ids, detached copies. */
import { randomBytes } from 'node:crypto';
import { isRecord, type Json } from './types.js';

export function randomId(length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** A deep copy through JSON: what went over the wire, detached from the caller's objects. */
export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Attachments' blocks get their ids as a message's do. */
export function normalizeAttachments(attachments: unknown[]): unknown[] {
  for (const a of attachments) if (isRecord(a) && Array.isArray(a.blocks)) a.blocks = normalizeBlocks(a.blocks);
  return attachments;
}

/**
 * Slack fills in a `block_id` for every block and an `action_id` for every interactive
 * element that lacks one; the stored message (and what the app gets back) carries them.
 */
export function normalizeBlocks(blocks: unknown[]): Json[] {
  const out: Json[] = [];
  for (const b of blocks) {
    if (!isRecord(b)) continue;
    if (b.block_id === undefined)
      b.block_id = randomId(5, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    const withAction = (el: unknown): void => {
      if (
        isRecord(el) &&
        el.type !== 'image' &&
        el.action_id === undefined &&
        typeof el.type === 'string' &&
        !['plain_text', 'mrkdwn'].includes(el.type)
      ) {
        el.action_id = randomId(5, 'abcdefghijklmnopqrstuvwxyz0123456789');
      }
    };
    if (b.type === 'actions' && Array.isArray(b.elements)) b.elements.forEach(withAction);
    if (b.type === 'section') withAction(b.accessory);
    if (b.type === 'input') withAction(b.element);
    out.push(b);
  }
  return out;
}
