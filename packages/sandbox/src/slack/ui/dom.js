// @ts-check
// The page's DOM helpers: elements by id, new elements, icons and toasts.

/**
 * An element of the page (index.html) by id; the page has every id this script asks for.
 * @param {string} id
 * @returns {any}
 */
export const $ = (id) => document.getElementById(id);

export const ICONS = {
  eye: 'M1.5 10S4.7 4.5 10 4.5 18.5 10 18.5 10 15.3 15.5 10 15.5 1.5 10 1.5 10Zm8.5 3a3 3 0 1 0 0-6 3 3 0 0 0 0 6Z',
  reply:
    'M3 4.5A1.5 1.5 0 0 1 4.5 3h11A1.5 1.5 0 0 1 17 4.5v8a1.5 1.5 0 0 1-1.5 1.5H8l-4 3v-3h.5A1.5 1.5 0 0 1 3 12.5v-8Z',
};

/**
 * A small stroked icon (the UI's own chrome: no emoji font needed).
 * @param {keyof typeof ICONS} name
 */
export function icon(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 20 20');
  svg.setAttribute('class', `icon icon-${name}`);
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * @param {string} text
 */
export function toast(text, kind = 'error') {
  const node = el('div', `toast toast-${kind}`, text);
  node.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  $('toasts').append(node);
  setTimeout(() => node.remove(), 6000);
}

let uid = 0;

/**
 * A new id for an element of the page (`prefix-1`, `prefix-2`, …).
 * @param {string} prefix
 */
export const nextId = (prefix) => `${prefix}-${++uid}`;
