// @ts-check
// What the page knows (the workspace, the person, the channel, its messages and views), and
// the JSON endpoints it asks.
import { el, toast } from './dom.js';

/** @import { ApiError, Json, Message, TextContext, Thread, View, WorkspaceInfo } from './types.js' */

// ---- state ------------------------------------------------------------------------------

/**
 * @typedef {object} State
 * @property {WorkspaceInfo} workspace  set by start() before anything is drawn
 * @property {string | null} team
 * @property {string} user
 * @property {string | null} channel
 * @property {Message[]} messages
 * @property {boolean} loading
 * @property {number} loads
 * @property {[Message, boolean][]} pending  messages that came while the channel loaded, and whether each is new
 * @property {Thread | null} thread
 * @property {View[]} views
 * @property {Map<string, Json>} drafts
 * @property {Map<string, number>} unread
 * @property {Set<string>} dismissed
 * @property {string | null} highlight
 * @property {EventSource | null} source
 * @property {boolean} [homeOpen]
 */

/** @type {State} */
export const state = {
  workspace: /** @type {WorkspaceInfo} */ (/** @type {unknown} */ (null)),
  /** The workspace shown (`?team=`); null: workspace one. */
  team: new URLSearchParams(location.search).get('team'),
  user: 'U_ALICE',
  channel: null,
  messages: [],
  loading: false,
  loads: 0,
  pending: [],
  thread: null,
  views: [],
  drafts: new Map(),
  unread: new Map(),
  dismissed: new Set(),
  highlight: null,
  source: null,
};

// ---- server -----------------------------------------------------------------------------

/**
 * A `/ui/…` path in the workspace shown.
 * @param {string} path
 */
export function inTeam(path) {
  if (!state.team) return path;
  const url = new URL(path, location.origin);
  url.searchParams.set('team', state.team);
  return `${url.pathname}${url.search}`;
}

/**
 * @param {string} method
 * @param {string} path
 * @param {Json} [body]
 * @returns {Promise<Json>}
 */
export async function api(method, path, body) {
  const res = await fetch(inTeam(path), {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
  if (!res.ok || !data.ok) {
    const error = /** @type {ApiError} */ (new Error(data.detail || data.error || `HTTP ${res.status}`));
    error.data = data;
    throw error;
  }
  return data;
}

/**
 * @param {string} id
 */
/** @param {string} id */
export const userOf = (id) => state.workspace?.users.find((u) => u.id === id);
/**
 * @param {string} id
 */
/** @param {string | null | undefined} id */
export const channelOf = (id) => state.workspace?.channels.find((c) => c.id === id || c.name === id);

/**
 * @param {string} id
 */
export function displayName(id) {
  if (id === state.workspace?.slackbot) return 'Slackbot';
  if (id === state.workspace?.bot.userId) return 'Lookout';
  const u = userOf(id);
  return u ? u.real_name || u.name : id;
}

/** @type {TextContext} */
export const textCtx = {
  userName: (id) => userOf(id)?.name ?? (id === state.workspace?.bot.userId ? 'lookout' : id),
  channelName: (id) => channelOf(id)?.name ?? id,
  onChannel: (id) => {
    const channel = channelOf(id);
    return channel && page.selectChannel(channel.id);
  },
};

export const PALETTE = ['#e8912d', '#2eb67d', '#36c5f0', '#e01e5a', '#9b59b6', '#4a154b', '#ecb22e', '#1264a3'];

/**
 * @param {string} id
 */
export function avatar(id, size = '') {
  const node = el('span', `avatar ${size}`);
  node.setAttribute('aria-hidden', 'true');
  if (id === state.workspace?.bot.userId) {
    node.classList.add('avatar-bot');
    node.textContent = 'L';
  } else if (id === state.workspace?.slackbot) {
    node.classList.add('avatar-slackbot');
    node.textContent = 'S';
  } else {
    const name = displayName(id);
    node.textContent = name.slice(0, 1).toUpperCase();
    let hash = 0;
    for (const ch of id) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    node.style.background = PALETTE[hash % PALETTE.length];
  }
  return node;
}

/**
 * What needs the whole page, for the modules below app.js: a #channel link opens the channel,
 * and a message elsewhere redraws the sidebar's unread counts. app.js sets both.
 */
export const page = {
  /** @type {(id: string) => Promise<void>} */
  selectChannel: async () => {},
  renderSidebar: () => {},
};

/**
 * @param {Json} body
 */
export async function sendAction(body) {
  try {
    await api('POST', '/ui/action', { user: state.user, ...body });
  } catch (error) {
    toast(error.message);
  }
}
