import type { PlainTextElement, MrkdwnElement } from '@slack/types';
import { clip, neutralize } from '../../../kernel/text.js';
import { LIMITS } from '../../../slack-rules/rules.js';
import { charLength } from '../../../slack-rules/validate.js';

export { clip };

/** Slack's limits, from the one table of Slack's rules (slack-rules/rules.ts). */
export { LIMITS };

const ELLIPSIS = '…';

/**
 * Cuts mrkdwn without leaving half an entity (`&am…`) or half a link
 * (`<https://…`), which Slack would show literally or refuse.
 */
export function clipMrkdwn(text: string, max: number): string {
  if (text.length <= max || Array.from(text).length <= max) return text;
  let cut = Array.from(text)
    .slice(0, Math.max(0, max - 1))
    .join('');
  cut = cut.replace(/&[a-z]*$/i, '');
  const open = cut.lastIndexOf('<');
  if (open > cut.lastIndexOf('>')) cut = cut.slice(0, open);
  const fences = cut.split('```').length - 1;
  if (fences % 2 === 1) cut = cut.slice(0, cut.lastIndexOf('```'));
  return cut + ELLIPSIS;
}

export function plainText(text: string, max: number = LIMITS.sectionText): PlainTextElement {
  return { type: 'plain_text', text: clip(neutralize(text) || ' ', max), emoji: true };
}

/** A table cell: plain text, never interpreted, with disguising characters removed. */
export function cell(text: string): { type: 'raw_text'; text: string } {
  return { type: 'raw_text', text: neutralize(text) };
}

/** A numeric table cell: sorts by `value`, shows `text`. */
export function numberCell(value: number, text: string): { type: 'raw_number'; value: number; text: string } {
  return { type: 'raw_number', value, text: neutralize(text) || String(value) };
}

export function mrkdwn(text: string, max: number = LIMITS.sectionText): MrkdwnElement {
  return { type: 'mrkdwn', text: clipMrkdwn(text || ' ', max) };
}

/** Whether `texts` hold at most `budget` characters in all; code points, counted only when the UTF-16 units are over it. */
export function withinChars(texts: readonly string[], budget: number): boolean {
  const total = (length: (text: string) => number) => texts.reduce((n, t) => n + length(t), 0);
  return total((t) => t.length) <= budget || total(charLength) <= budget;
}

/** Keeps a message within the block limit: the last block (usually the buttons) is kept. */
export function capBlocks<T>(blocks: T[], max: number = LIMITS.messageBlocks): T[] {
  if (blocks.length <= max) return blocks;
  return [...blocks.slice(0, max - 1), blocks[blocks.length - 1]!];
}

/**
 * A table's cell texts within a character budget across every cell (Slack's table and
 * data_table both have one): the longest cells are cut first, each to the same length, so
 * every row stays and short cells are untouched.
 */
export function fitTableText(rows: readonly (readonly string[])[], budget: number = LIMITS.tableChars): string[][] {
  const lengths = rows.flat().map((t) => Array.from(t).length);
  const total = (cap: number) => lengths.reduce((n, l) => n + Math.min(l, cap), 0);
  if (total(Infinity) <= budget) return rows.map((r) => [...r]);
  let lo = 1;
  let hi = Math.max(1, ...lengths);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (total(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return rows.map((r) => r.map((t) => clip(t, lo)));
}
