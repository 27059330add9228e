// @ts-check
// Block Kit's interactive elements (buttons, menus, pickers, inputs, images) and the confirm
// dialog. An element calls ctx.onAction(element, blockId, value); see blocks.js for ctx.
import { currentValue, pickerChoices, plain } from './block-values.js';
import { el, nextId } from './dom.js';
import { renderPlain, renderText } from './mrkdwn.js';
import { confirmDialog } from './confirm.js';

/** @import { Json, RenderContext } from './types.js' */

/**
 * @param {Json} element
 * @param {string} blockId
 * @param {any} value
 * @param {RenderContext} ctx
 */
async function act(element, blockId, value, ctx) {
  if (element.confirm && !(await confirmDialog(element.confirm, ctx))) return false;
  await ctx.onAction?.(element, blockId, value);
  return true;
}

// ---- elements ---------------------------------------------------------------------------

/**
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 */
function button(element, blockId, ctx) {
  const b = el(
    'button',
    `btn${element.style === 'primary' ? ' btn-primary' : element.style === 'danger' ? ' btn-danger' : ''}`,
  );
  b.type = 'button';
  b.dataset.testid = 'block-button';
  b.dataset.actionId = element.action_id ?? '';
  b.append(renderPlain(element.text));
  if (element.accessibility_label) b.setAttribute('aria-label', element.accessibility_label);
  b.addEventListener('click', async () => {
    if (b.classList.contains('busy')) return;
    if (element.url && /^https?:/i.test(element.url)) window.open(element.url, '_blank', 'noopener,noreferrer');
    b.classList.add('busy');
    try {
      await act(element, blockId, undefined, ctx);
    } finally {
      b.classList.remove('busy');
    }
  });
  return b;
}

/**
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 * @param {(value: any, commit?: boolean) => unknown} onChange
 * @param {string} [label]
 */
function selectElement(element, blockId, ctx, onChange, label) {
  const wrap = el('span', 'select-wrap');
  const select = el('select', 'select');
  select.dataset.testid = 'block-select';
  select.dataset.actionId = element.action_id ?? '';
  select.setAttribute('aria-label', label || plain(element.placeholder) || 'Select');
  const current = currentValue(element, blockId, ctx);
  const none = el('option', null, plain(element.placeholder) || 'Select an item');
  none.value = '';
  none.disabled = true;
  select.append(none);
  for (const group of pickerChoices(element, ctx)) {
    const parent = group.label ? el('optgroup') : select;
    if (group.label) {
      /** @type {HTMLOptGroupElement} */ (parent).label = group.label;
      select.append(parent);
    }
    for (const o of group.options) {
      const option = el('option', null, plain(o.text));
      option.value = o.value ?? '';
      if (o.description) option.title = plain(o.description);
      parent.append(option);
    }
  }
  select.value = current ?? '';
  if (select.selectedIndex < 0) select.value = '';
  select.addEventListener('change', async () => {
    const chosen = select.value;
    const ok = await onChange(chosen);
    if (ok === false) select.value = current ?? '';
  });
  wrap.append(select);
  return wrap;
}

/**
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 * @param {(value: any, commit?: boolean) => unknown} onChange
 * @param {string} [label]
 */
function multiSelect(element, blockId, ctx, onChange, label) {
  const wrap = el('div', 'multi-select');
  wrap.dataset.testid = 'block-multiselect';
  wrap.dataset.actionId = element.action_id ?? '';
  wrap.setAttribute('role', 'group');
  wrap.setAttribute('aria-label', label || plain(element.placeholder) || 'Select');
  const all = pickerChoices(element, ctx).flatMap((g) => g.options);
  /**
   * @param {string} v
   */
  const textOf = (v) => plain(all.find((o) => o.value === v)?.text) || v;
  let values = [...(currentValue(element, blockId, ctx) ?? [])];
  const max = Number(element.max_selected_items) || Infinity;

  const draw = () => {
    wrap.replaceChildren();
    for (const v of values) {
      const chip = el('span', 'chip');
      chip.append(el('span', null, textOf(v)));
      const x = el('button', 'chip-remove', '×');
      x.type = 'button';
      x.setAttribute('aria-label', `Remove ${textOf(v)}`);
      x.addEventListener('click', () => update(values.filter((w) => w !== v)));
      chip.append(x);
      wrap.append(chip);
    }
    const rest = all.filter((o) => !values.includes(o.value));
    if (rest.length > 0 && values.length < max) {
      const add = el('select', 'select select-add');
      add.setAttribute('aria-label', `Add to ${label || plain(element.placeholder) || 'selection'}`);
      const first = el('option', null, values.length ? 'Add…' : plain(element.placeholder) || 'Select items');
      first.value = '';
      add.append(first);
      for (const o of rest) {
        const option = el('option', null, plain(o.text));
        option.value = o.value;
        add.append(option);
      }
      add.addEventListener('change', () => add.value && update([...values, add.value]));
      wrap.append(add);
    }
  };
  /**
   * @param {any} next
   */
  const update = async (next) => {
    const before = values;
    values = next;
    draw();
    if ((await onChange(values)) === false) {
      values = before;
      draw();
    }
  };
  draw();
  return wrap;
}

/**
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 */
function overflow(element, blockId, ctx) {
  const wrap = el('span', 'overflow');
  const toggle = el('button', 'btn btn-icon', '⋯');
  toggle.type = 'button';
  toggle.dataset.testid = 'block-overflow';
  toggle.dataset.actionId = element.action_id ?? '';
  toggle.setAttribute('aria-label', 'More actions');
  toggle.setAttribute('aria-haspopup', 'menu');
  const menu = el('div', 'menu');
  menu.setAttribute('role', 'menu');
  menu.hidden = true;
  const close = () => {
    menu.hidden = true;
    document.removeEventListener('click', outside, true);
  };
  /**
   * @param {any} e
   */
  const outside = (e) => {
    if (!wrap.contains(e.target)) close();
  };
  for (const o of element.options ?? []) {
    const item = el('button', 'menu-item');
    item.type = 'button';
    item.setAttribute('role', 'menuitem');
    item.append(renderPlain(o.text));
    item.addEventListener('click', async () => {
      close();
      await act(element, blockId, o.value, ctx);
    });
    menu.append(item);
  }
  toggle.addEventListener('click', () => {
    if (!menu.hidden) return close();
    menu.hidden = false;
    document.addEventListener('click', outside, true);
  });
  wrap.append(toggle, menu);
  return wrap;
}

/**
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 * @param {(value: any, commit?: boolean) => unknown} onChange
 * @param {string} [label]
 */
function choiceList(element, blockId, ctx, onChange, label) {
  const multiple = element.type === 'checkboxes';
  const box = el('div', 'choices');
  box.setAttribute('role', multiple ? 'group' : 'radiogroup');
  box.setAttribute('aria-label', label || 'Choices');
  const name = nextId('choice');
  const current = currentValue(element, blockId, ctx);
  const chosen = new Set(Array.isArray(current) ? current : current ? [current] : []);
  for (const o of element.options ?? []) {
    const row = el('label', 'choice');
    const input = el('input');
    input.type = multiple ? 'checkbox' : 'radio';
    input.name = name;
    input.value = o.value;
    input.checked = chosen.has(o.value);
    input.addEventListener('change', () => {
      const picked = [...box.querySelectorAll('input')].filter((i) => i.checked).map((i) => i.value);
      onChange(multiple ? picked : picked[0]);
    });
    const text = el('span', 'choice-text');
    text.append(renderText(o.text, ctx.text));
    if (o.description) text.append(renderText(o.description, ctx.text, 'div'));
    row.append(input, text);
    box.append(row);
  }
  return box;
}

/**
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 * @param {(value: any, commit?: boolean) => unknown} onChange
 * @param {string} [label]
 * @param {string} [id]
 */
function textInput(element, blockId, ctx, onChange, label, id) {
  const multiline = element.multiline === true || element.type === 'rich_text_input';
  const input = el(multiline ? 'textarea' : 'input', 'text-input');
  if (input instanceof HTMLInputElement) {
    /** @type {Record<string, string>} */
    const types = { email_text_input: 'email', url_text_input: 'url', number_input: 'number' };
    input.type = types[element.type] ?? 'text';
    if (element.type === 'number_input') {
      input.step = element.is_decimal_allowed ? 'any' : '1';
      if (element.min_value !== undefined) input.min = element.min_value;
      if (element.max_value !== undefined) input.max = element.max_value;
    }
  }
  if (id) input.id = id;
  input.dataset.testid = 'block-input';
  input.dataset.actionId = element.action_id ?? '';
  if (label) input.setAttribute('aria-label', label);
  if (element.placeholder) input.placeholder = plain(element.placeholder);
  if (element.max_length) input.maxLength = element.max_length;
  if (element.focus_on_load) input.autofocus = true;
  const value = currentValue(element, blockId, ctx);
  input.value = typeof value === 'string' ? value : '';
  input.addEventListener('input', () => onChange(input.value, false));
  input.addEventListener('keydown', (e) => {
    if (/** @type {KeyboardEvent} */ (e).key === 'Enter' && !multiline) {
      e.preventDefault();
      onChange(input.value, true);
    }
  });
  return input;
}

/**
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 * @param {(value: any, commit?: boolean) => unknown} onChange
 * @param {string} [label]
 * @param {string} [id]
 */
function dateInput(element, blockId, ctx, onChange, label, id) {
  const input = el('input', 'text-input');
  input.type = element.type === 'datepicker' ? 'date' : element.type === 'timepicker' ? 'time' : 'datetime-local';
  if (id) input.id = id;
  input.dataset.actionId = element.action_id ?? '';
  if (label) input.setAttribute('aria-label', label);
  const value = currentValue(element, blockId, ctx);
  if (element.type === 'datetimepicker') {
    if (value) {
      const d = new Date(Number(value) * 1000);
      input.value = new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    }
  } else if (value) {
    input.value = value;
  }
  input.addEventListener('change', () => {
    const v =
      element.type === 'datetimepicker' ? String(Math.floor(new Date(input.value).getTime() / 1000)) : input.value;
    onChange(v, true);
  });
  return input;
}

/**
 * @param {string} url
 */
function imageSource(url) {
  if (typeof url !== 'string') return null;
  if (/^data:image\//i.test(url)) return url;
  try {
    const parsed = new URL(url, location.href);
    return parsed.origin === location.origin ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * Images from elsewhere are not fetched (the sandbox stays offline): a placeholder shows their alt text.
 * @param {string} url
 * @param {string} alt
 * @param {string | null} className
 */
export function image(url, alt, className) {
  const src = imageSource(url);
  if (src) {
    const img = el('img', className);
    img.src = src;
    img.alt = alt ?? '';
    return img;
  }
  const box = el('span', `${className} image-placeholder`);
  box.title = `${alt ?? ''}${url ? ` (${url})` : ''}`;
  box.setAttribute('role', 'img');
  box.setAttribute('aria-label', alt ?? 'image');
  if (className !== 'context-image') box.textContent = alt || 'image';
  return box;
}

/**
 * One interactive element. In an input block `inInput` is the block, and changes go to the
 * draft (and to the app only with dispatch_action); elsewhere every change is an action.
 * @param {Json} element
 * @param {string} blockId
 * @param {RenderContext} ctx
 * @param {Json} [inInput]
 */
export function renderElement(element, blockId, ctx, inInput) {
  const label = inInput ? plain(inInput.label) : '';
  const id = inInput ? nextId('input') : undefined;
  /**
   * @param {any} value
   */
  const onChange = async (value, commit = true) => {
    if (inInput) {
      ctx.draft ??= {};
      ctx.draft[blockId] = { ...ctx.draft[blockId], [element.action_id]: value };
      ctx.onInput?.(blockId);
      if (inInput.dispatch_action && commit) await ctx.onAction?.(element, blockId, value);
      return true;
    }
    return act(element, blockId, value, ctx);
  };
  let node;
  switch (element.type) {
    case 'button':
    case 'workflow_button':
      node = button(element, blockId, ctx);
      break;
    case 'static_select':
    case 'users_select':
    case 'conversations_select':
    case 'channels_select':
      node = selectElement(element, blockId, ctx, onChange, label);
      break;
    case 'multi_static_select':
    case 'multi_users_select':
    case 'multi_conversations_select':
    case 'multi_channels_select':
      node = multiSelect(element, blockId, ctx, onChange, label);
      break;
    case 'overflow':
      node = overflow(element, blockId, ctx);
      break;
    case 'radio_buttons':
    case 'checkboxes':
      node = choiceList(element, blockId, ctx, onChange, label);
      break;
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
    case 'rich_text_input':
    case 'external_select':
    case 'multi_external_select':
      node = textInput(element, blockId, ctx, onChange, label, id);
      break;
    case 'datepicker':
    case 'timepicker':
    case 'datetimepicker':
      node = dateInput(element, blockId, ctx, onChange, label, id);
      break;
    case 'image':
      node = image(element.image_url ?? element.slack_file?.url, element.alt_text, 'element-image');
      break;
    case 'file_input':
      node = el('div', 'unsupported', 'File uploads are not available in the sandbox.');
      break;
    default:
      node = el('span', 'unsupported', `[${element.type ?? 'unknown'} element]`);
  }
  if (id && node.querySelector) {
    const control = node.matches?.('input, textarea, select') ? node : node.querySelector('input, textarea, select');
    if (control) control.id = id;
  }
  return node;
}
