import type { PlainTextElement, MrkdwnElement } from '@slack/types';
import { clip, neutralize } from '../../../kernel/text.js';

export { clip };

/** Slack's documented Block Kit limits, guarded here and nowhere else. */
export const LIMITS = {
  blocksPerMessage: 50,
  /** A modal or the Home tab. */
  blocksPerView: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  blockId: 255,
  actionId: 255,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  options: 100,
  optionText: 75,
  optionValue: 75,
  overflowOptions: 5,
  placeholder: 150,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3000,
  inputLabel: 2000,
  messageText: 40_000,
  tableRows: 100,
  tableCells: 20,
  dataTableRows: 100,
  dataTablePageSize: 100,
  /** Across every cell of a data_table (the reported budget; Slack refuses more with data_table_too_large). */
  dataTableChars: 10_000,
  chartTitle: 50,
  chartSeries: 6,
  chartLabel: 20,
  chartsPerMessage: 2,
  alertText: 3000,
} as const;

const ELLIPSIS = '…';

/**
 * Cuts mrkdwn without leaving half an entity (`&am…`) or half a link
 * (`<https://…`), which Slack would show literally or refuse.
 */
export function clipMrkdwn(text: string, max: number): string {
  if (Array.from(text).length <= max) return text;
  let cut = Array.from(text).slice(0, Math.max(0, max - 1)).join('');
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

/** Keeps a message within the block limit: the last block (usually the buttons) is kept. */
export function capBlocks<T>(blocks: T[], max: number = LIMITS.blocksPerMessage): T[] {
  if (blocks.length <= max) return blocks;
  return [...blocks.slice(0, max - 1), blocks[blocks.length - 1]!];
}
