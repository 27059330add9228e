// @ts-check
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
import { image, renderElement } from './block-elements.js';
import { plain } from './block-values.js';
import { el } from './dom.js';
import { linkTo, renderMrkdwn, renderPlain, renderText } from './mrkdwn.js';
import { wrap, richText } from './rich-text.js';

/** @import { Json, RenderContext } from './types.js' */

// ---- blocks -----------------------------------------------------------------------------

/**
 * @param {Json} block
 * @param {RenderContext} ctx
 */
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

/**
 * @param {Json} block
 */
function table(block) {
  const wrapper = el('div', 'block table-block');
  const t = el('table', 'bk-table');
  t.dataset.testid = 'block-table';
  const settings = block.column_settings ?? [];
  const rows = block.rows ?? [];
  rows.forEach((/** @type {Json[]} */ row, /** @type {number} */ r) => {
    const tr = el('tr');
    (row ?? []).forEach((/** @type {Json} */ cell, /** @type {number} */ c) => {
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

/**
 * Slack's data_table: sorts (numbers by value) and pages in the client; nothing goes back to the app.
 * @param {Json} block
 */
function dataTable(block) {
  const wrapper = el('figure', 'block table-block data-table');
  wrapper.dataset.testid = 'block-data-table';
  const [header = [], ...body] = block.rows ?? [];
  const pageSize = Math.max(1, Math.min(100, block.page_size ?? 5));
  const state = { column: -1, dir: 1, page: 0 };
  const t = el('table', 'bk-table');
  const caption = el('caption', 'data-table-caption', block.caption ?? '');
  const numeric = header.map((/** @type {Json} */ _, /** @type {number} */ c) =>
    body.some((/** @type {Json[]} */ row) => row?.[c]?.type === 'raw_number'),
  );
  /**
   * @param {Json} cell
   */
  const sortKey = (cell) => (cell?.type === 'raw_number' ? cell.value : String(cell?.text ?? '').toLowerCase());
  const pager = el('div', 'data-table-pager');

  const draw = () => {
    t.replaceChildren(caption);
    const head = el('tr');
    header.forEach((/** @type {Json} */ cell, /** @type {number} */ c) => {
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
      (row ?? []).forEach((/** @type {Json} */ cell, /** @type {number} */ c) => {
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
      /**
       * @param {string} label
       * @param {number} delta
       * @param {string} testid
       */
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

/**
 * @param {Json} block
 * @param {RenderContext} ctx
 */
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
 * @param {Json} block
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
      ? (c.segments ?? []).map((/** @type {Json} */ s) => `${s.label}: ${Number(s.value).toLocaleString('en-US')}`)
      : (c.series ?? []).map(
          (/** @type {Json} */ s) =>
            `${s.name}: ${(s.data ?? []).map((/** @type {Json} */ d) => Number(d.value).toLocaleString('en-US')).join(', ')}`,
        );
  node.append(el('div', 'chart-figures', figures.join(' · ')));
  const Chart = /** @type {any} */ (globalThis).Chart;
  if (!Chart) return node;
  const pie = c.type === 'pie';
  /** @type {Json} */
  const config = pie
    ? {
        type: 'pie',
        data: {
          labels: (c.segments ?? []).map((/** @type {Json} */ s) => s.label),
          datasets: [
            { data: (c.segments ?? []).map((/** @type {Json} */ s) => s.value), backgroundColor: CHART_COLOURS },
          ],
        },
      }
    : {
        type: c.type === 'bar' ? 'bar' : 'line',
        data: {
          labels: c.axis_config?.categories ?? [],
          datasets: (c.series ?? []).map((/** @type {Json} */ s, /** @type {number} */ i) => ({
            label: s.name,
            data: (s.data ?? []).map((/** @type {Json} */ d) => d.value),
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

/**
 * @param {Json} block
 * @param {RenderContext} ctx
 */
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

/**
 * @param {Json[]} blocks
 * @param {RenderContext} ctx
 */
export function renderBlocks(blocks, ctx) {
  const root = el('div', 'blocks');
  for (const block of blocks ?? []) {
    const node = renderBlock(block, ctx);
    if (typeof block?.block_id === 'string' && !node.dataset.blockId) node.dataset.blockId = block.block_id;
    root.append(node);
  }
  return root;
}

/**
 * Legacy attachments: a coloured bar with pretext, title, text, fields and blocks.
 * @param {Json[]} attachments
 * @param {RenderContext} ctx
 */
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
