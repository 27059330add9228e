/** Interactive elements in blocks: found by action_id, and what choosing a value in one puts in its state. */
import { isRecord, type Json } from './types.js';

export interface FoundElement {
  blockId: string;
  element: Json;
  /** The input block that holds it, if any. */
  input?: Json;
}
/** Every option of a select/overflow/radio/checkbox element, flattened out of option_groups. */
function optionsOf(element: Json): Json[] {
  const out: Json[] = [];
  const add = (list: unknown): void => {
    if (Array.isArray(list)) for (const o of list) if (isRecord(o)) out.push(o);
  };
  add(element.options);
  if (Array.isArray(element.option_groups)) for (const g of element.option_groups) if (isRecord(g)) add(g.options);
  return out;
}

function pickOption(element: Json, value: string): Json {
  const option = optionsOf(element).find((o) => o.value === value);
  if (!option) {
    const known = optionsOf(element).map((o) => String(o.value));
    throw new Error(
      `${String(element.type)} "${String(element.action_id)}" has no option "${value}" (options: ${known.join(', ')})`,
    );
  }
  const picked: Json = { text: option.text, value: option.value };
  if (option.description !== undefined) picked.description = option.description;
  return picked;
}

function list(value: string | string[] | number | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [String(value)];
}

export function single(value: string | string[] | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value[0];
  return String(value);
}

/**
 * The state of an element in Slack's `state.values` shape. `value` undefined means "the user
 * left it alone": the element's initial value, else empty.
 */
export function stateValue(element: Json, value: string | string[] | number | undefined): Json {
  const type = String(element.type);
  const s = single(value);
  switch (type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
      return { type, value: s ?? (typeof element.initial_value === 'string' ? element.initial_value : null) };
    case 'rich_text_input':
      return {
        type,
        rich_text_value:
          s === undefined
            ? (element.initial_value ?? { type: 'rich_text', elements: [] })
            : { type: 'rich_text', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: s }] }] },
      };
    case 'static_select':
    case 'radio_buttons':
      return { type, selected_option: s === undefined ? (element.initial_option ?? null) : pickOption(element, s) };
    case 'external_select':
      return {
        type,
        selected_option:
          s === undefined ? (element.initial_option ?? null) : { text: { type: 'plain_text', text: s }, value: s },
      };
    case 'overflow':
      return { type, selected_option: s === undefined ? null : pickOption(element, s) };
    case 'multi_static_select':
    case 'checkboxes':
      return {
        type,
        selected_options:
          value === undefined ? (element.initial_options ?? []) : list(value).map((v) => pickOption(element, v)),
      };
    case 'multi_external_select':
      return {
        type,
        selected_options:
          value === undefined
            ? (element.initial_options ?? [])
            : list(value).map((v) => ({ text: { type: 'plain_text', text: v }, value: v })),
      };
    case 'users_select':
      return { type, selected_user: s ?? element.initial_user ?? null };
    case 'multi_users_select':
      return { type, selected_users: value === undefined ? (element.initial_users ?? []) : list(value) };
    case 'conversations_select':
      return { type, selected_conversation: s ?? element.initial_conversation ?? null };
    case 'multi_conversations_select':
      return {
        type,
        selected_conversations: value === undefined ? (element.initial_conversations ?? []) : list(value),
      };
    case 'channels_select':
      return { type, selected_channel: s ?? element.initial_channel ?? null };
    case 'multi_channels_select':
      return { type, selected_channels: value === undefined ? (element.initial_channels ?? []) : list(value) };
    case 'datepicker':
      return { type, selected_date: s ?? element.initial_date ?? null };
    case 'timepicker':
      return { type, selected_time: s ?? element.initial_time ?? null };
    case 'datetimepicker':
      return { type, selected_date_time: s === undefined ? (element.initial_date_time ?? null) : Number(s) };
    case 'file_input':
      return { type, files: [] };
    default:
      return { type };
  }
}

export function isEmptyState(state: Json): boolean {
  for (const [key, v] of Object.entries(state)) {
    if (key === 'type') continue;
    if (v === null || v === '' || (Array.isArray(v) && v.length === 0)) return true;
    if (isRecord(v) && v.type === 'rich_text' && Array.isArray(v.elements) && v.elements.length === 0) return true;
  }
  return false;
}

/**
 * Finds the interactive element with `actionId` (in block `inBlock`, when given). More
 * than one match without a block is a mistake in the caller: it throws, naming the blocks.
 */
export function findElement(blocks: Json[] | undefined, actionId: string, inBlock?: string): FoundElement | undefined {
  const found = allElements(blocks, actionId).filter((f) => inBlock === undefined || f.blockId === inBlock);
  if (found.length > 1) {
    throw new Error(
      `"${actionId}" is in ${found.length} blocks (${found.map((f) => f.blockId).join(', ')}): pass the blockId of the one to touch`,
    );
  }
  return found[0];
}

function allElements(blocks: Json[] | undefined, actionId: string): FoundElement[] {
  const out: FoundElement[] = [];
  for (const block of blocks ?? []) {
    const blockId = typeof block.block_id === 'string' ? block.block_id : '';
    const candidates: Array<{ el: unknown; input?: Json }> = [];
    if ((block.type === 'actions' || block.type === 'context_actions') && Array.isArray(block.elements)) {
      for (const el of block.elements) candidates.push({ el });
    }
    if (block.type === 'section') candidates.push({ el: block.accessory });
    if (block.type === 'input') candidates.push({ el: block.element, input: block });
    for (const { el, input } of candidates) {
      if (isRecord(el) && el.action_id === actionId) out.push({ blockId, element: el, ...(input ? { input } : {}) });
    }
  }
  return out;
}

/** A message's blocks, then its attachments' blocks (where Slack draws them, and where buttons can be). */
export function messageBlocks(message: { blocks?: Json[] | undefined; attachments?: unknown[] | undefined }): Json[] {
  const inAttachments = (message.attachments ?? []).flatMap((a) =>
    isRecord(a) && Array.isArray(a.blocks) ? (a.blocks as Json[]) : [],
  );
  return [...(message.blocks ?? []), ...inAttachments];
}

export function actionIdsOf(blocks: Json[] | undefined): string[] {
  const ids: string[] = [];
  for (const block of blocks ?? []) {
    const els = Array.isArray(block.elements) ? block.elements : [block.accessory, block.element];
    for (const el of els) if (isRecord(el) && typeof el.action_id === 'string') ids.push(el.action_id);
  }
  return ids;
}
