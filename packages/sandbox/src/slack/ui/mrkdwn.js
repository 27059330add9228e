// @ts-check
// Slack mrkdwn → DOM. The text arrives escaped the way Slack escapes it (&amp; &lt; &gt;):

/** @import { TextContext } from './types.js' */
// a raw `<` always starts a control sequence (link, mention), and the entities are decoded
// only into text nodes at the very end, so `&lt;!channel&gt;` is shown literally and can
// never become a mention or markup. Nothing here uses innerHTML.

// Slack's shortcodes (iamcal's emoji-data, through the emojibase-data package), served by
// the offline Slack at /ui/emoji.json and set once at start.
/** @type {Record<string, string>} */
let EMOJI = {};

/**
 * The shortcode → emoji table; until it is set, codes show as they are.
 * @param {Record<string, string>} table
 */
export function setEmoji(table) {
  EMOJI = table ?? {};
}

/** @type {boolean | undefined} */
let colorEmoji;

/** Whether this browser draws colour emoji (a headless one without an emoji font draws boxes). */
function hasColorEmoji() {
  if (colorEmoji !== undefined) return colorEmoji;
  colorEmoji = true;
  try {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 24;
    const g = canvas.getContext('2d', { willReadFrequently: true });
    if (!g) throw new Error('no 2d canvas');
    g.textBaseline = 'top';
    g.font = '18px "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji", sans-serif';
    g.fillText('\u{1F6A8}', 0, 0);
    const d = g.getImageData(0, 0, 24, 24).data;
    colorEmoji = false;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 0 && (Math.abs(d[i] - d[i + 1]) > 40 || Math.abs(d[i + 1] - d[i + 2]) > 40)) {
        colorEmoji = true;
        break;
      }
    }
  } catch {
    colorEmoji = true;
  }
  return colorEmoji;
}

/**
 * Decodes the three entities Slack escapes; everything else stays as it is.
 * @param {string} text
 */
export function decodeEntities(text) {
  return text.replace(/&(amp|lt|gt);/g, (_, name) => (name === 'amp' ? '&' : name === 'lt' ? '<' : '>'));
}

/**
 * Text with `:emoji:` codes turned into emoji (the code stays as a tooltip).
 * @param {ParentNode} parent
 * @param {string} text
 * @param {{ emoji?: boolean }} [options]
 */
export function appendText(parent, text, { emoji = true } = {}) {
  if (!emoji) {
    parent.append(document.createTextNode(text));
    return;
  }
  const re = /:([a-z0-9_+-]+):/g;
  let last = 0;
  let m;
  while ((m = re.exec(text)) !== null) {
    const char = Object.hasOwn(EMOJI, m[1]) ? EMOJI[m[1]] : undefined;
    if (!char) {
      re.lastIndex = m.index + 1;
      continue;
    }
    if (m.index > last) parent.append(document.createTextNode(text.slice(last, m.index)));
    const span = document.createElement('span');
    span.className = 'emoji';
    span.title = m[0];
    span.textContent = char;
    if (!hasColorEmoji()) {
      span.className = 'emoji emoji-code';
      span.textContent = m[0];
    }
    parent.append(span);
    last = m.index + m[0].length;
  }
  if (last < text.length) parent.append(document.createTextNode(text.slice(last)));
}

const SAFE_URL = /^(https?:|mailto:)/i;

/**
 * A link element, only for http(s) and mailto; anything else is shown as text.
 * @param {string} url
 * @param {string} [label]
 */
export function linkTo(url, label) {
  if (!SAFE_URL.test(url)) {
    const span = document.createElement('span');
    span.textContent = label ?? '';
    return span;
  }
  const a = document.createElement('a');
  a.href = url;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  a.textContent = label ?? '';
  return a;
}

/**
 * `<…>` control sequences: links, user/channel mentions, special mentions, dates.
 * @param {string} body
 * @param {TextContext} ctx
 */
function controlNode(body, ctx) {
  const bar = body.indexOf('|');
  const target = bar >= 0 ? body.slice(0, bar) : body;
  const label = bar >= 0 ? decodeEntities(body.slice(bar + 1)) : undefined;
  const span = document.createElement('span');
  if (target.startsWith('@')) {
    const id = target.slice(1);
    span.className = 'mention';
    span.textContent = `@${label ?? ctx.userName?.(id) ?? id}`;
    span.dataset.user = id;
    return span;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    span.className = 'mention channel-mention';
    span.textContent = `#${label ?? ctx.channelName?.(id) ?? id}`;
    span.dataset.channel = id;
    if (ctx.onChannel) {
      span.tabIndex = 0;
      span.setAttribute('role', 'link');
      span.addEventListener('click', () => ctx.onChannel?.(id));
    }
    return span;
  }
  if (target.startsWith('!')) {
    const [kind, ...rest] = target.slice(1).split('^');
    if (kind === 'date') {
      span.className = 'date';
      const seconds = Number(rest[0]);
      span.textContent = label ?? (Number.isFinite(seconds) ? new Date(seconds * 1000).toLocaleString() : body);
      return span;
    }
    span.className = 'mention special-mention';
    span.textContent = label ?? `@${kind}`;
    return span;
  }
  const url = decodeEntities(target);
  return linkTo(url, label ?? url);
}

// The characters that may stand just outside a *bold*, _italic_ or ~strike~ span.
const OUTSIDE = /[\s.,:;!?()[\]{}'"“”‘’/\\|<>*_~`-]/;

/**
 * Where the span opened by `mark` at `start` closes, or -1. Skips code and `<…>` inside.
 * @param {string} text
 * @param {number} start
 * @param {string} mark
 */
function findCloser(text, start, mark) {
  if (start + 1 >= text.length || /\s/.test(text[start + 1])) return -1;
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') return -1;
    if (ch === '<' || ch === '`') {
      const end = text.indexOf(ch === '<' ? '>' : '`', i + 1);
      if (end > 0) {
        i = end;
        continue;
      }
    }
    if (
      ch === mark &&
      i > start + 1 &&
      !/\s/.test(text[i - 1]) &&
      (i + 1 >= text.length || OUTSIDE.test(text[i + 1]))
    ) {
      return i;
    }
  }
  return -1;
}

/** @type {Record<string, 'strong' | 'em' | 's'>} */
const STYLES = { '*': 'strong', _: 'em', '~': 's' };

/**
 * Inline mrkdwn (no code fences) into `parent`.
 * @param {ParentNode} parent
 * @param {string} text
 * @param {TextContext} ctx
 */
function inline(parent, text, ctx) {
  let buffer = '';
  const flush = () => {
    if (buffer) appendText(parent, decodeEntities(buffer));
    buffer = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '<') {
      const end = text.indexOf('>', i + 1);
      if (end > i + 1) {
        flush();
        parent.append(controlNode(text.slice(i + 1, end), ctx));
        i = end;
        continue;
      }
    }
    if (ch === '`') {
      const end = text.indexOf('`', i + 1);
      if (end > i + 1) {
        flush();
        const code = document.createElement('code');
        code.textContent = decodeEntities(text.slice(i + 1, end));
        parent.append(code);
        i = end;
        continue;
      }
    }
    if (STYLES[ch] && (i === 0 || OUTSIDE.test(text[i - 1]))) {
      const end = findCloser(text, i, ch);
      if (end > 0) {
        flush();
        const el = document.createElement(STYLES[ch]);
        inline(el, text.slice(i + 1, end), ctx);
        parent.append(el);
        i = end;
        continue;
      }
    }
    buffer += ch;
  }
  flush();
}

/**
 * Lines of text, with `>` quotes grouped into blockquotes and line breaks kept.
 * @param {ParentNode} parent
 * @param {string} text
 * @param {TextContext} ctx
 */
function lines(parent, text, ctx) {
  const all = text.split('\n');
  /** @type {HTMLElement | null} */
  let quote = null;
  all.forEach((line, index) => {
    const quoted = /^>\s?/.exec(line);
    if (quoted) {
      if (!quote) {
        quote = document.createElement('blockquote');
        parent.append(quote);
      } else {
        quote.append(document.createElement('br'));
      }
      inline(quote, line.slice(quoted[0].length), ctx);
      return;
    }
    quote = null;
    inline(parent, line, ctx);
    if (index < all.length - 1 && !/^>\s?/.test(all[index + 1] ?? '')) parent.append(document.createElement('br'));
  });
}

/**
 * Renders mrkdwn into a new element (`tag`, default span). `ctx` may give `userName(id)`,
 * `channelName(id)` and `onChannel(id)` for mentions.
 * @param {unknown} text
 * @param {TextContext} [ctx]
 */
export function renderMrkdwn(text, ctx = {}, tag = 'span') {
  const root = document.createElement(tag);
  root.className = 'mrkdwn';
  const source = String(text ?? '');
  const parts = source.split('```');
  parts.forEach((part, i) => {
    const isCode = i % 2 === 1 && i < parts.length - 1;
    if (isCode) {
      const pre = document.createElement('pre');
      pre.textContent = decodeEntities(part.replace(/^\n/, '').replace(/\n$/, ''));
      root.append(pre);
    } else {
      let piece = i % 2 === 1 ? '```' + part : part;
      if (i > 0 && i % 2 === 0) piece = piece.replace(/^\n/, '');
      if (i < parts.length - 1 && i % 2 === 0) piece = piece.replace(/\n$/, '');
      if (piece) lines(root, piece, ctx);
    }
  });
  return root;
}

/**
 * plain_text objects: no markup at all, only emoji codes when `emoji` is not false.
 * @param {any} textObject
 */
export function renderPlain(textObject, tag = 'span') {
  const el = document.createElement(tag);
  const text = typeof textObject === 'string' ? textObject : String(textObject?.text ?? '');
  appendText(el, text, { emoji: textObject?.emoji !== false });
  return el;
}

/**
 * A text object of either kind.
 * @param {any} textObject
 * @param {TextContext} [ctx]
 */
export function renderText(textObject, ctx = {}, tag = 'span') {
  if (!textObject) return document.createElement(tag);
  if (textObject.type === 'mrkdwn') return renderMrkdwn(textObject.text, ctx, tag);
  return renderPlain(textObject, tag);
}
