// @ts-check
// Block Kit's rich_text: sections, lists, quotes and preformatted text, with styled runs inside.
import { el } from './dom.js';
import { appendText, linkTo } from './mrkdwn.js';

/** @import { Json, RenderContext } from './types.js' */

/**
 * @param {HTMLElement} parent
 * @param {Json[] | undefined} items
 * @param {RenderContext} ctx
 */
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
            ? String.fromCodePoint(...item.unicode.split('-').map((/** @type {string} */ h) => parseInt(h, 16)))
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

/**
 * @param {string} tag
 * @param {any} child
 */
export function wrap(tag, child) {
  const node = document.createElement(tag);
  node.append(child);
  return node;
}

/**
 * @param {Json} block
 * @param {RenderContext} ctx
 */
export function richText(block, ctx) {
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
