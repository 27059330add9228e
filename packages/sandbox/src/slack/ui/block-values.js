// @ts-check
// What a Block Kit input holds: Slack's state values, initial values, and a modal's drafts.

/** @import { Json, RenderContext } from './types.js' */

/**
 * @param {any} t
 */
export const plain = (t) => (t == null ? '' : typeof t === 'string' ? t : String(t.text ?? ''));

// ---- values -----------------------------------------------------------------------------

/**
 * A Slack state value (`{ type, selected_option }`, …) as the plain value the server takes.
 * @param {any} st
 */
export function valueOfState(st) {
  if (!st || typeof st !== 'object') return undefined;
  if ('selected_option' in st) return st.selected_option?.value ?? undefined;
  if ('selected_options' in st) return (st.selected_options ?? []).map((/** @type {Json} */ o) => o.value);
  if ('value' in st) return st.value ?? undefined;
  if ('selected_user' in st) return st.selected_user ?? undefined;
  if ('selected_users' in st) return st.selected_users ?? [];
  if ('selected_channel' in st) return st.selected_channel ?? undefined;
  if ('selected_channels' in st) return st.selected_channels ?? [];
  if ('selected_conversation' in st) return st.selected_conversation ?? undefined;
  if ('selected_conversations' in st) return st.selected_conversations ?? [];
  if ('selected_date' in st) return st.selected_date ?? undefined;
  if ('selected_time' in st) return st.selected_time ?? undefined;
  if ('selected_date_time' in st) return st.selected_date_time == null ? undefined : String(st.selected_date_time);
  return undefined;
}

/**
 * An element's initial value, as a plain value.
 * @param {Json} element
 */
export function initialValue(element) {
  switch (element.type) {
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return element.initial_option?.value;
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes':
      return (element.initial_options ?? []).map((/** @type {Json} */ o) => o.value);
    case 'users_select':
      return element.initial_user;
    case 'multi_users_select':
      return element.initial_users ?? [];
    case 'conversations_select':
      return element.initial_conversation;
    case 'multi_conversations_select':
      return element.initial_conversations ?? [];
    case 'channels_select':
      return element.initial_channel;
    case 'multi_channels_select':
      return element.initial_channels ?? [];
    case 'datepicker':
      return element.initial_date;
    case 'timepicker':
      return element.initial_time;
    case 'datetimepicker':
      return element.initial_date_time == null ? undefined : String(element.initial_date_time);
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
      return element.initial_value;
    default:
      return undefined;
  }
}

/**
 * What an element shows now: the draft, else the last selection, else its initial value.
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 */
export function currentValue(element, blockId, ctx) {
  const actionId = element.action_id;
  const drafted = ctx.draft?.[blockId]?.[actionId];
  if (drafted !== undefined) return drafted;
  const stated = valueOfState(ctx.state?.[blockId]?.[actionId]);
  if (stated !== undefined) return stated;
  return initialValue(element);
}

/**
 * @param {unknown} v
 */
export function isEmptyValue(v) {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/**
 * Each input block of a view with its current value: what a submission sends and checks.
 * @param {Json[]} blocks
 * @param {RenderContext} ctx
 */
export function inputValues(blocks, ctx) {
  return (blocks ?? [])
    .filter((b) => b.type === 'input' && b.element?.action_id)
    .map((b) => ({ block: b, actionId: b.element.action_id, value: currentValue(b.element, b.block_id, ctx) }));
}

// ---- composition ------------------------------------------------------------------------

/**
 * @param {Json} element
 */
function optionsOf(element) {
  const groups = Array.isArray(element.option_groups)
    ? element.option_groups.map((g) => ({ label: plain(g.label), options: g.options ?? [] }))
    : [{ label: null, options: element.options ?? [] }];
  return groups;
}

/**
 * @param {Json} element
 * @param {RenderContext} ctx
 */
export function pickerChoices(element, ctx) {
  if (/users_select$/.test(element.type)) {
    return [
      { label: null, options: (ctx.users ?? []).map((u) => ({ value: u.id, text: { text: u.real_name || u.name } })) },
    ];
  }
  if (/(conversations|channels)_select$/.test(element.type)) {
    return [
      {
        label: null,
        options: (ctx.channels ?? [])
          .filter((c) => !c.is_archived)
          .map((c) => ({ value: c.id, text: { text: `# ${c.name}` } })),
      },
    ];
  }
  return optionsOf(element);
}
