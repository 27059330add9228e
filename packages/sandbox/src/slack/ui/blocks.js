// Block Kit → DOM, for messages and modals. Every piece of text goes in through
// textContent (or renderMrkdwn, which does the same); interactive elements call
// ctx.onAction(element, blockId, value) and input blocks keep their values in ctx.draft.
//
// ctx: {
//   surface: 'message' | 'modal',
//   text: { userName, channelName, onChannel }   for mentions in mrkdwn
//   users: [{ id, name, real_name }], channels: [{ id, name }]   for pickers
//   state: { [blockId]: { [actionId]: stateValue } }   latest selections (message.state / view.state.values)
//   draft: { [blockId]: { [actionId]: value } }        modal inputs as edited (modals only)
//   errors: { [blockId]: message }                      response_action errors (modals only)
//   onAction(element, blockId, value) → Promise
// }
import { appendText, linkTo, renderMrkdwn, renderPlain, renderText } from './mrkdwn.js';

let uid = 0;
const nextId = (prefix) => `${prefix}-${++uid}`;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const plain = (t) => (t == null ? '' : typeof t === 'string' ? t : String(t.text ?? ''));

// ---- values -----------------------------------------------------------------------------

/** A Slack state value (`{ type, selected_option }`, …) as the plain value the server takes. */
export function valueOfState(st) {
  if (!st || typeof st !== 'object') return undefined;
  if ('selected_option' in st) return st.selected_option?.value ?? undefined;
  if ('selected_options' in st) return (st.selected_options ?? []).map((o) => o.value);
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

/** An element's initial value, as a plain value. */
export function initialValue(element) {
  switch (element.type) {
    case 'static_select':
    case 'external_select':
    case 'radio_buttons':
      return element.initial_option?.value;
    case 'multi_static_select':
    case 'multi_external_select':
    case 'checkboxes':
      return (element.initial_options ?? []).map((o) => o.value);
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

/** What an element shows now: the draft, else the last selection, else its initial value. */
function currentValue(element, blockId, ctx) {
  const actionId = element.action_id;
  const drafted = ctx.draft?.[blockId]?.[actionId];
  if (drafted !== undefined) return drafted;
  const stated = valueOfState(ctx.state?.[blockId]?.[actionId]);
  if (stated !== undefined) return stated;
  return initialValue(element);
}

export function isEmptyValue(v) {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** Each input block of a view with its current value: what a submission sends and checks. */
export function inputValues(blocks, ctx) {
  return (blocks ?? [])
    .filter((b) => b.type === 'input' && b.element?.action_id)
    .map((b) => ({ block: b, actionId: b.element.action_id, value: currentValue(b.element, b.block_id, ctx) }));
}

// ---- composition ------------------------------------------------------------------------

function optionsOf(element) {
  const groups = Array.isArray(element.option_groups)
    ? element.option_groups.map((g) => ({ label: plain(g.label), options: g.options ?? [] }))
    : [{ label: null, options: element.options ?? [] }];
  return groups;
}

function pickerChoices(element, ctx) {
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

/** A confirm dialog (the `confirm` object on buttons and menus). Resolves true to go ahead. */
export function confirmDialog(confirm, ctx = {}) {
  return new Promise((resolve) => {
    const backdrop = el('div', 'backdrop confirm-backdrop');
    const box = el('div', 'dialog confirm');
    box.setAttribute('role', 'alertdialog');
    box.setAttribute('aria-modal', 'true');
    box.dataset.testid = 'confirm-dialog';
    const title = renderPlain(confirm.title ?? 'Are you sure?', 'h2');
    title.id = nextId('confirm-title');
    box.setAttribute('aria-labelledby', title.id);
    const body = el('div', 'dialog-body');
    body.append(renderText(confirm.text ?? { type: 'plain_text', text: '' }, ctx.text));
    const footer = el('div', 'dialog-footer');
    const deny = el('button', 'btn', plain(confirm.deny) || 'Cancel');
    deny.type = 'button';
    deny.dataset.testid = 'confirm-cancel';
    const ok = el(
      'button',
      `btn ${confirm.style === 'danger' ? 'btn-danger' : 'btn-primary'}`,
      plain(confirm.confirm) || 'Yes',
    );
    ok.type = 'button';
    ok.dataset.testid = 'confirm-ok';
    footer.append(deny, ok);
    box.append(title, body, footer);
    backdrop.append(box);
    const done = (answer) => {
      document.removeEventListener('keydown', onKey, true);
      backdrop.remove();
      resolve(answer);
    };
    const onKey = (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        done(false);
      }
    };
    document.addEventListener('keydown', onKey, true);
    deny.addEventListener('click', () => done(false));
    ok.addEventListener('click', () => done(true));
    backdrop.addEventListener('click', (e) => {
      if (e.target === backdrop) done(false);
    });
    document.body.append(backdrop);
    ok.focus();
  });
}

async function act(element, blockId, value, ctx) {
  if (element.confirm && !(await confirmDialog(element.confirm, ctx))) return false;
  await ctx.onAction?.(element, blockId, value);
  return true;
}

// ---- elements ---------------------------------------------------------------------------

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
      parent.label = group.label;
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

function multiSelect(element, blockId, ctx, onChange, label) {
  const wrap = el('div', 'multi-select');
  wrap.dataset.testid = 'block-multiselect';
  wrap.dataset.actionId = element.action_id ?? '';
  wrap.setAttribute('role', 'group');
  wrap.setAttribute('aria-label', label || plain(element.placeholder) || 'Select');
  const all = pickerChoices(element, ctx).flatMap((g) => g.options);
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

function textInput(element, blockId, ctx, onChange, label, id) {
  const multiline = element.multiline === true || element.type === 'rich_text_input';
  const input = el(multiline ? 'textarea' : 'input', 'text-input');
  if (!multiline) {
    input.type = { email_text_input: 'email', url_text_input: 'url', number_input: 'number' }[element.type] ?? 'text';
  }
  if (element.type === 'number_input') {
    input.step = element.is_decimal_allowed ? 'any' : '1';
    if (element.min_value !== undefined) input.min = element.min_value;
    if (element.max_value !== undefined) input.max = element.max_value;
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
    if (e.key === 'Enter' && !multiline) {
      e.preventDefault();
      onChange(input.value, true);
    }
  });
  return input;
}

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

/** Images from elsewhere are not fetched (the sandbox stays offline): a placeholder shows their alt text. */
function image(url, alt, className) {
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
 */
export function renderElement(element, blockId, ctx, inInput) {
  const label = inInput ? plain(inInput.label) : '';
  const id = inInput ? nextId('input') : undefined;
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

// ---- rich text --------------------------------------------------------------------------

function richInline(parent, items, ctx) {
  for (const item of items ?? []) {
    let node;
    switch (item.type) {
      case 'text':
        node = el('span');
        appendText(node, item.text ?? '');
        break;
      case 'link':
        node = linkTo(item.url ?? '', item.text || item.url || '');
        break;
      case 'user':
        node = el('span', 'mention', `@${ctx.text?.userName?.(item.user_id) ?? item.user_id}`);
        break;
      case 'channel':
        node = el('span', 'mention channel-mention', `#${ctx.text?.channelName?.(item.channel_id) ?? item.channel_id}`);
        break;
      case 'usergroup':
        node = el('span', 'mention', `@${item.usergroup_id}`);
        break;
      case 'broadcast':
        node = el('span', 'mention special-mention', `@${item.range}`);
        break;
      case 'emoji':
        node = el('span', 'emoji');
        appendText(
          node,
          item.unicode
            ? String.fromCodePoint(...item.unicode.split('-').map((h) => parseInt(h, 16)))
            : `:${item.name}:`,
        );
        break;
      case 'date':
        node = el('span', 'date', item.fallback ?? new Date(item.timestamp * 1000).toLocaleString());
        break;
      default:
        node = el('span', null, item.text ?? '');
    }
    const style = item.style ?? {};
    if (style.code) node = wrap('code', node);
    if (style.strike) node = wrap('s', node);
    if (style.italic) node = wrap('em', node);
    if (style.bold) node = wrap('strong', node);
    parent.append(node);
  }
}

function wrap(tag, child) {
  const node = document.createElement(tag);
  node.append(child);
  return node;
}

function richText(block, ctx) {
  const root = el('div', 'rich-text');
  for (const part of block.elements ?? []) {
    if (part.type === 'rich_text_section') {
      const p = el('div', 'rich-section');
      richInline(p, part.elements, ctx);
      root.append(p);
    } else if (part.type === 'rich_text_list') {
      const list = el(part.style === 'ordered' ? 'ol' : 'ul', 'rich-list');
      if (part.indent) list.style.marginLeft = `${part.indent * 20}px`;
      for (const section of part.elements ?? []) {
        const li = el('li');
        richInline(li, section.elements, ctx);
        list.append(li);
      }
      root.append(list);
    } else if (part.type === 'rich_text_preformatted') {
      const pre = el('pre');
      richInline(pre, part.elements, ctx);
      root.append(pre);
    } else if (part.type === 'rich_text_quote') {
      const quote = el('blockquote');
      richInline(quote, part.elements, ctx);
      root.append(quote);
    }
  }
  return root;
}

// ---- blocks -----------------------------------------------------------------------------

function section(block, ctx) {
  const node = el('div', 'block section');
  const body = el('div', 'section-body');
  if (block.text) body.append(renderText(block.text, ctx.text, 'div'));
  if (Array.isArray(block.fields) && block.fields.length > 0) {
    const fields = el('div', 'fields');
    for (const f of block.fields) fields.append(renderText(f, ctx.text, 'div'));
    body.append(fields);
  }
  node.append(body);
  if (block.accessory) {
    const accessory = el('div', 'accessory');
    accessory.append(renderElement(block.accessory, block.block_id, ctx));
    node.append(accessory);
  }
  return node;
}

function table(block) {
  const wrapper = el('div', 'block table-block');
  const t = el('table', 'bk-table');
  t.dataset.testid = 'block-table';
  const settings = block.column_settings ?? [];
  const rows = block.rows ?? [];
  rows.forEach((row, r) => {
    const tr = el('tr');
    (row ?? []).forEach((cell, c) => {
      const td = el(r === 0 && rows.length > 1 ? 'th' : 'td');
      const setting = settings[c] ?? {};
      if (setting.align === 'right' || setting.align === 'center') td.classList.add(`align-${setting.align}`);
      if (setting.is_wrapped === true) td.classList.add('wrap');
      if (cell?.type === 'rich_text') td.append(richText(cell, {}));
      else td.textContent = cell?.text ?? '';
      if (setting.is_wrapped !== true) td.title = td.textContent;
      tr.append(td);
    });
    t.append(tr);
  });
  wrapper.append(t);
  return wrapper;
}

/** Slack's data_table: sorts (numbers by value) and pages in the client; nothing goes back to the app. */
function dataTable(block) {
  const wrapper = el('figure', 'block table-block data-table');
  wrapper.dataset.testid = 'block-data-table';
  const [header = [], ...body] = block.rows ?? [];
  const pageSize = Math.max(1, Math.min(100, block.page_size ?? 5));
  const state = { column: -1, dir: 1, page: 0 };
  const t = el('table', 'bk-table');
  const caption = el('caption', 'data-table-caption', block.caption ?? '');
  const numeric = header.map((_, c) => body.some((row) => row?.[c]?.type === 'raw_number'));
  const sortKey = (cell) => (cell?.type === 'raw_number' ? cell.value : String(cell?.text ?? '').toLowerCase());
  const pager = el('div', 'data-table-pager');

  const draw = () => {
    t.replaceChildren(caption);
    const head = el('tr');
    header.forEach((cell, c) => {
      const th = el('th');
      const button = el(
        'button',
        'sort',
        `${cell?.text ?? ''}${state.column === c ? (state.dir === 1 ? ' ▲' : ' ▼') : ''}`,
      );
      button.type = 'button';
      button.dataset.testid = `sort-${c}`;
      button.addEventListener('click', () => {
        state.dir = state.column === c ? -state.dir : numeric[c] ? -1 : 1;
        state.column = c;
        state.page = 0;
        draw();
      });
      th.setAttribute('aria-sort', state.column === c ? (state.dir === 1 ? 'ascending' : 'descending') : 'none');
      if (numeric[c]) th.classList.add('align-right');
      th.append(button);
      head.append(th);
    });
    t.append(head);
    const rows = [...body];
    if (state.column >= 0) {
      rows.sort((a, b) => {
        const x = sortKey(a?.[state.column]);
        const y = sortKey(b?.[state.column]);
        return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
      });
    }
    const pages = Math.max(1, Math.ceil(rows.length / pageSize));
    rows.slice(state.page * pageSize, (state.page + 1) * pageSize).forEach((row) => {
      const tr = el('tr');
      (row ?? []).forEach((cell, c) => {
        const td = el('td');
        if (numeric[c]) td.classList.add('align-right');
        if (cell?.type === 'rich_text') td.append(richText(cell, {}));
        else td.textContent = cell?.text ?? String(cell?.value ?? '');
        td.title = td.textContent;
        tr.append(td);
      });
      t.append(tr);
    });
    pager.replaceChildren();
    if (pages > 1) {
      const step = (label, delta, testid) => {
        const b = el('button', 'btn', label);
        b.type = 'button';
        b.dataset.testid = testid;
        b.disabled = state.page + delta < 0 || state.page + delta >= pages;
        b.addEventListener('click', () => {
          state.page += delta;
          draw();
        });
        return b;
      };
      pager.append(
        step('‹', -1, 'table-prev'),
        el('span', null, `${state.page + 1} / ${pages}`),
        step('›', 1, 'table-next'),
      );
    }
  };
  draw();
  wrapper.append(t, pager);
  return wrapper;
}

function input(block, ctx) {
  const node = el('div', 'block input-block');
  node.dataset.testid = `input-${block.block_id}`;
  node.dataset.blockId = block.block_id;
  const control = renderElement(block.element ?? {}, block.block_id, ctx, block);
  const labelEl = el('label', 'input-label');
  labelEl.append(renderPlain(block.label));
  const target = control.matches?.('input, textarea, select')
    ? control
    : control.querySelector?.('input, textarea, select');
  if (target?.id) labelEl.htmlFor = target.id;
  if (block.optional) labelEl.append(el('span', 'optional', ' (optional)'));
  node.append(labelEl, control);
  if (block.hint) {
    const hint = renderPlain(block.hint, 'div');
    hint.className = 'hint';
    node.append(hint);
  }
  const error = ctx.errors?.[block.block_id];
  const errorEl = el('div', 'input-error');
  errorEl.dataset.testid = 'input-error';
  errorEl.setAttribute('role', 'alert');
  if (error) {
    errorEl.textContent = error;
    node.classList.add('has-error');
  } else {
    errorEl.hidden = true;
  }
  node.append(errorEl);
  return node;
}

/** One block, or a small note for the kinds the sandbox does not draw. */
const CHART_COLOURS = ['#1264a3', '#e8912d', '#2bac76', '#e01e5a', '#9e5fc7', '#616061'];

/**
 * A data_visualization block: the chart drawn with Chart.js (served by the offline Slack),
 * and its figures as text beside it, for screen readers and as Slack's own fallback.
 */
function chart(block) {
  const node = el('figure', 'block chart');
  node.dataset.chartType = block.chart?.type ?? '';
  node.append(el('figcaption', 'chart-title', block.title ?? ''));
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', block.title ?? 'chart');
  const frame = el('div', 'chart-frame');
  frame.append(canvas);
  node.append(frame);
  const c = block.chart ?? {};
  const figures =
    c.type === 'pie'
      ? (c.segments ?? []).map((s) => `${s.label}: ${Number(s.value).toLocaleString('en-US')}`)
      : (c.series ?? []).map(
          (s) => `${s.name}: ${(s.data ?? []).map((d) => Number(d.value).toLocaleString('en-US')).join(', ')}`,
        );
  node.append(el('div', 'chart-figures', figures.join(' · ')));
  const Chart = globalThis.Chart;
  if (!Chart) return node;
  const pie = c.type === 'pie';
  const config = pie
    ? {
        type: 'pie',
        data: {
          labels: (c.segments ?? []).map((s) => s.label),
          datasets: [{ data: (c.segments ?? []).map((s) => s.value), backgroundColor: CHART_COLOURS }],
        },
      }
    : {
        type: c.type === 'bar' ? 'bar' : 'line',
        data: {
          labels: c.axis_config?.categories ?? [],
          datasets: (c.series ?? []).map((s, i) => ({
            label: s.name,
            data: (s.data ?? []).map((d) => d.value),
            borderColor: CHART_COLOURS[i % 6],
            backgroundColor: c.type === 'area' ? `${CHART_COLOURS[i % 6]}33` : CHART_COLOURS[i % 6],
            fill: c.type === 'area',
          })),
        },
        options: {
          scales: {
            x: { title: { display: !!c.axis_config?.x_label, text: c.axis_config?.x_label } },
            y: { title: { display: !!c.axis_config?.y_label, text: c.axis_config?.y_label } },
          },
        },
      };
  config.options = { ...config.options, animation: false, responsive: true, maintainAspectRatio: false };
  // Drawn once the canvas is in the page (Chart.js measures its parent).
  requestAnimationFrame(() => new Chart(canvas, config));
  return node;
}

export function renderBlock(block, ctx) {
  switch (block.type) {
    case 'header': {
      const node = renderPlain(block.text, 'div');
      node.className = 'block header';
      node.setAttribute('role', 'heading');
      node.setAttribute('aria-level', '3');
      return node;
    }
    case 'section':
      return section(block, ctx);
    case 'context': {
      const node = el('div', 'block context');
      for (const item of block.elements ?? []) {
        node.append(
          item.type === 'image' ? image(item.image_url, item.alt_text, 'context-image') : renderText(item, ctx.text),
        );
      }
      return node;
    }
    case 'divider':
      return el('hr', 'block divider');
    case 'image': {
      const node = el('figure', 'block image-block');
      if (block.title) node.append(renderPlain(block.title, 'figcaption'));
      node.append(image(block.image_url ?? block.slack_file?.url, block.alt_text, 'block-image'));
      return node;
    }
    case 'actions':
    case 'context_actions': {
      const node = el('div', 'block actions');
      for (const element of block.elements ?? []) node.append(renderElement(element, block.block_id, ctx));
      return node;
    }
    case 'table':
      return table(block);
    case 'data_table':
      return dataTable(block);
    case 'input':
      return input(block, ctx);
    case 'rich_text':
      return Object.assign(richText(block, ctx), { className: 'block rich-text' });
    case 'markdown':
      return Object.assign(renderMrkdwn(block.text ?? '', ctx.text, 'div'), { className: 'block mrkdwn' });
    case 'data_visualization':
      return chart(block);
    case 'alert': {
      // Slack draws the level as a coloured callout; the level is also said in words for screen readers.
      const level = ['info', 'warning', 'error', 'success'].includes(block.level) ? block.level : 'default';
      const node = el('div', `block alert alert-${level}`);
      node.setAttribute('role', level === 'error' || level === 'warning' ? 'alert' : 'note');
      node.dataset.level = level;
      node.append(renderText(block.text ?? { type: 'plain_text', text: '' }, ctx.text, 'div'));
      return node;
    }
    case 'video': {
      const node = el('div', 'block unsupported');
      node.append(
        el('span', null, '▶ '),
        linkTo(block.title_url ?? block.video_url ?? '', plain(block.title) || 'Video'),
      );
      return node;
    }
    default:
      return el('div', 'block unsupported', `[${block.type} block]`);
  }
}

export function renderBlocks(blocks, ctx) {
  const root = el('div', 'blocks');
  for (const block of blocks ?? []) {
    const node = renderBlock(block, ctx);
    if (typeof block?.block_id === 'string' && !node.dataset.blockId) node.dataset.blockId = block.block_id;
    root.append(node);
  }
  return root;
}

/** Legacy attachments: a coloured bar with pretext, title, text, fields and blocks. */
export function renderAttachments(attachments, ctx) {
  const root = el('div', 'attachments');
  for (const a of attachments ?? []) {
    const box = el('div', 'attachment');
    if (typeof a.color === 'string') {
      const named = { good: '#2eb67d', warning: '#ecb22e', danger: '#e01e5a' }[a.color];
      const color = named ?? (/^#?[0-9a-f]{3,6}$/i.test(a.color) ? `#${a.color.replace(/^#/, '')}` : null);
      if (color) box.style.borderLeftColor = color;
    }
    if (a.pretext) box.append(renderMrkdwn(a.pretext, ctx.text, 'div'));
    if (a.title) box.append(a.title_link ? wrap('strong', linkTo(a.title_link, a.title)) : el('strong', null, a.title));
    if (a.text) box.append(renderMrkdwn(a.text, ctx.text, 'div'));
    if (Array.isArray(a.fields)) {
      const fields = el('div', 'fields');
      for (const f of a.fields) {
        const field = el('div');
        field.append(el('strong', null, f.title ?? ''), el('div', null, f.value ?? ''));
        fields.append(field);
      }
      box.append(fields);
    }
    if (Array.isArray(a.blocks)) box.append(renderBlocks(a.blocks, ctx));
    if (a.footer) box.append(el('div', 'context', a.footer));
    if (!box.childNodes.length && a.fallback) box.append(el('div', null, a.fallback));
    root.append(box);
  }
  return root;
}
