// The sandbox's Slack page: state, server-sent events, the JSON endpoints, and the
// channel / thread / modal / composer views. Block Kit is drawn by blocks.js.
import { confirmDialog, inputValues, isEmptyValue, renderAttachments, renderBlocks } from './blocks.js';
import { renderMrkdwn, setEmoji } from './mrkdwn.js';

// ---- what the composer knows (the commands of manifest.json) ----------------------------

const COMMANDS = [
  {
    name: '/traffic',
    hint: '<report> [range] [filters…] [by <key>] [top <n>] | digest … | alerts … | help',
    description: 'Visitor analytics: reports, digests and threat alerts',
  },
  { name: '/visitor', hint: '<visitor_id> [visit <visit_id>]', description: 'Is this visitor a threat, and why?' },
];
const REPORTS = [
  'sources',
  'channels',
  'campaigns',
  'pages',
  'countries',
  'states',
  'cities',
  'browsers',
  'devices',
  'os',
  'extensions',
  'visitors',
  'visits',
];
const RANGES = ['today', 'yesterday', 'last7d', 'last30d', 'last90d', 'mtd', 'lastmonth', 'ytd', 'all'];
const SUBCOMMANDS = {
  digest: ['add', 'list', 'remove', 'pause', 'resume', 'preview'],
  alerts: ['on', 'off', 'status', 'mute', 'unmute'],
  help: ['reports', 'ranges', 'filters', 'sort', 'examples', 'digest', 'alerts'],
};
const TRAFFIC_WORDS = [
  ...REPORTS.map((r) => [r, 'report']),
  ['digest', 'scheduled digests'],
  ['alerts', 'threat alerts'],
  ['help', 'how to use /traffic'],
];
const EXAMPLES = [
  '/traffic sources last7d',
  '/traffic pages last30d page~/blog by duration',
  '/traffic countries all top 5',
  '/traffic visitors today',
  '/traffic digest list',
  '/traffic alerts status',
  '/traffic help',
];

// ---- state ------------------------------------------------------------------------------

const state = {
  workspace: null,
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

const $ = (id) => document.getElementById(id);

const ICONS = {
  eye: 'M1.5 10S4.7 4.5 10 4.5 18.5 10 18.5 10 15.3 15.5 10 15.5 1.5 10 1.5 10Zm8.5 3a3 3 0 1 0 0-6 3 3 0 0 0 0 6Z',
  reply:
    'M3 4.5A1.5 1.5 0 0 1 4.5 3h11A1.5 1.5 0 0 1 17 4.5v8a1.5 1.5 0 0 1-1.5 1.5H8l-4 3v-3h.5A1.5 1.5 0 0 1 3 12.5v-8Z',
};

/** A small stroked icon (the UI's own chrome: no emoji font needed). */
function icon(name) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 20 20');
  svg.setAttribute('class', `icon icon-${name}`);
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}
const nodes = new WeakMap();

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---- server -----------------------------------------------------------------------------

/** A `/ui/…` path in the workspace shown. */
function inTeam(path) {
  if (!state.team) return path;
  const url = new URL(path, location.origin);
  url.searchParams.set('team', state.team);
  return `${url.pathname}${url.search}`;
}

async function api(method, path, body) {
  const res = await fetch(inTeam(path), {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({ ok: false, error: `HTTP ${res.status}` }));
  if (!res.ok || !data.ok) {
    const error = new Error(data.detail || data.error || `HTTP ${res.status}`);
    error.data = data;
    throw error;
  }
  return data;
}

function toast(text, kind = 'error') {
  const node = el('div', `toast toast-${kind}`, text);
  node.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  $('toasts').append(node);
  setTimeout(() => node.remove(), 6000);
}

function connect() {
  state.source?.close();
  setStatus('connecting');
  const source = new EventSource(inTeam(`/ui/events?user=${encodeURIComponent(state.user)}`));
  state.source = source;
  const on = (name, fn) =>
    source.addEventListener(name, (e) => {
      if (state.source === source) fn(JSON.parse(e.data));
    });
  on('hello', () => {
    setStatus('live');
    void loadChannel();
    if (state.thread) void openThread(state.thread.channel, state.thread.ts);
  });
  on('message', ({ message }) => receive(message, true));
  on('update', ({ message }) => receive(message, false));
  on('delete', ({ channel, ts }) => removeMessage(channel, ts));
  on('views', ({ stack }) => setViews(stack));
  on('channel', ({ channel }) => upsertChannel(channel));
  on('home', ({ view }) => renderHome(view));
  on('delivery', ({ delivery }) => {
    // A failed submission is shown in its modal; a failed command gets Slackbot's notice.
    if (delivery.kind === 'view_submission') return;
    const what = delivery.kind === 'block_actions' ? 'That action' : 'Lookout';
    toast(`${what} failed: ${delivery.error}${delivery.reasons?.length ? ` (${delivery.reasons.join('; ')})` : ''}`);
  });
  source.onerror = () => {
    if (state.source === source) setStatus('reconnecting');
  };
}

function setStatus(kind) {
  const status = $('connection-status');
  status.dataset.state = kind;
  status.textContent = kind === 'live' ? 'live' : kind === 'reconnecting' ? 'reconnecting…' : 'connecting…';
}

// ---- people and channels ----------------------------------------------------------------

const userOf = (id) => state.workspace?.users.find((u) => u.id === id);
const channelOf = (id) => state.workspace?.channels.find((c) => c.id === id || c.name === id);

function displayName(id) {
  if (id === state.workspace?.slackbot) return 'Slackbot';
  if (id === state.workspace?.bot.userId) return 'Lookout';
  const u = userOf(id);
  return u ? u.real_name || u.name : id;
}

const textCtx = {
  userName: (id) => userOf(id)?.name ?? (id === state.workspace?.bot.userId ? 'lookout' : id),
  channelName: (id) => channelOf(id)?.name ?? id,
  onChannel: (id) => channelOf(id) && selectChannel(channelOf(id).id),
};

const PALETTE = ['#e8912d', '#2eb67d', '#36c5f0', '#e01e5a', '#9b59b6', '#4a154b', '#ecb22e', '#1264a3'];

function avatar(id, size = '') {
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

function renderSidebar() {
  const list = $('channel-list');
  list.replaceChildren();
  for (const c of state.workspace.channels.filter((c) => !c.is_archived)) {
    const li = el('li');
    const b = el('button', 'channel-item');
    b.type = 'button';
    b.dataset.testid = 'channel-item';
    b.dataset.channelName = c.name;
    b.dataset.channelId = c.id;
    b.append(el('span', 'hash', c.is_private ? '🔒' : '#'), el('span', 'channel-name', c.name));
    const unread = state.unread.get(c.id) ?? 0;
    if (c.id === state.channel) b.setAttribute('aria-current', 'page');
    if (unread > 0) {
      b.classList.add('unread');
      b.append(el('span', 'badge', String(unread)));
    }
    b.addEventListener('click', () => selectChannel(c.id));
    li.append(b);
    list.append(li);
  }
}

function upsertChannel(channel) {
  const list = state.workspace.channels;
  const i = list.findIndex((c) => c.id === channel.id);
  if (i >= 0) list[i] = channel;
  else list.push(channel);
  renderSidebar();
}

function renderMe() {
  const select = $('user-switcher');
  select.replaceChildren();
  for (const u of state.workspace.users.filter((u) => !u.is_bot)) {
    const o = el('option', null, `${u.real_name} (@${u.name})`);
    o.value = u.id;
    select.append(o);
  }
  select.value = state.user;
  const me = $('me-avatar');
  me.replaceWith(Object.assign(avatar(state.user, 'avatar-xs'), { id: 'me-avatar' }));
}

function remember() {
  if (location.pathname !== '/') return;
  const params = new URLSearchParams({
    ...(state.team ? { team: state.team } : {}),
    channel: channelOf(state.channel)?.name ?? '',
    user: userOf(state.user)?.name ?? '',
  });
  history.replaceState(null, '', `/?${params}`);
}

// ---- channel ----------------------------------------------------------------------------

// ---- the app's Home tab ---------------------------------------------------------------------

/** Opens Lookout's Home tab: Slack sends the app app_home_opened, and the app publishes the view. */
async function openHome() {
  state.homeOpen = true;
  $('message-list').hidden = true;
  $('composer').hidden = true;
  $('home-panel').hidden = false;
  $('channel-title').textContent = 'Lookout';
  $('channel-meta').textContent = 'Home';
  $('app-home').setAttribute('aria-current', 'page');
  renderSidebar();
  try {
    const { view } = await api('GET', `/ui/home?user=${encodeURIComponent(state.user)}`);
    if (view) renderHome(view);
    else $('home-panel').replaceChildren(el('p', 'home-empty', 'Opening…'));
    await api('POST', '/ui/home-open', { user: state.user });
  } catch (error) {
    toast(error.message);
  }
}

function closeHome() {
  if (!state.homeOpen) return;
  state.homeOpen = false;
  $('message-list').hidden = false;
  $('composer').hidden = false;
  $('home-panel').hidden = true;
  $('app-home').removeAttribute('aria-current');
  // The channel's own header again, also when it is the channel the Home was opened from.
  renderHeader();
}

function renderHome(view) {
  const ctx = {
    surface: 'home',
    text: textCtx,
    users: state.workspace.users.filter((u) => !u.is_bot),
    channels: state.workspace.channels,
    state: {},
    onAction: (element, blockId, value) =>
      sendAction({ home: true, block_id: blockId, action_id: element.action_id, value }),
  };
  $('home-panel').replaceChildren(renderBlocks(view.blocks ?? [], ctx));
}

async function selectChannel(id) {
  closeHome();
  if (state.channel === id && !state.loading) return;
  state.channel = id;
  state.unread.delete(id);
  state.messages = [];
  closeThread();
  renderSidebar();
  renderHeader();
  remember();
  await loadChannel();
  $('composer-input').focus();
}

function renderHeader() {
  const c = channelOf(state.channel);
  $('channel-title').textContent = `# ${c?.name ?? ''}`;
  $('channel-meta').textContent = c?.is_member ? 'Lookout is in this channel' : 'Lookout is not in this channel';
  $('composer-input').placeholder = `Message #${c?.name ?? ''} — or type / for commands`;
}

async function loadChannel() {
  if (!state.channel) return;
  const token = ++state.loads;
  state.loading = true;
  state.pending = [];
  try {
    const data = await api(
      'GET',
      `/ui/state?channel=${encodeURIComponent(state.channel)}&user=${encodeURIComponent(state.user)}`,
    );
    if (token !== state.loads) return;
    state.messages = data.messages;
    setViews(data.views);
  } catch (error) {
    if (token !== state.loads) return;
    toast(`Could not load the channel: ${error.message}`);
  }
  state.loading = false;
  const pending = state.pending;
  state.pending = [];
  for (const [m, fresh] of pending) receive(m, fresh);
  renderMessages({ toBottom: true });
}

const isReply = (m) => m.thread_ts !== undefined && m.thread_ts !== m.ts;
const compareTs = (a, b) => Number(a.ts) - Number(b.ts) || a.ts.localeCompare(b.ts);

/** Newer wins: more updates, or as many and more replies. */
function newer(incoming, existing) {
  return (
    incoming.updates > existing.updates ||
    (incoming.updates === existing.updates && (incoming.reply_count ?? 0) >= (existing.reply_count ?? 0))
  );
}

function upsert(list, m) {
  const i = list.findIndex((x) => x.ts === m.ts);
  if (i >= 0) {
    if (!newer(m, list[i])) return false;
    list[i] = m;
  } else {
    list.push(m);
    list.sort(compareTs);
  }
  return true;
}

function receive(m, fresh) {
  if (
    state.thread &&
    m.channel === state.thread.channel &&
    (m.ts === state.thread.ts || m.thread_ts === state.thread.ts)
  ) {
    if (upsert(state.thread.messages, m)) renderThread({ toBottom: fresh });
  }
  if (m.channel !== state.channel) {
    if (fresh && !isReply(m) && m.user !== state.user) {
      state.unread.set(m.channel, (state.unread.get(m.channel) ?? 0) + 1);
      renderSidebar();
    }
    return;
  }
  if (state.loading) {
    state.pending.push([m, fresh]);
    return;
  }
  if (isReply(m) && !m.reply_broadcast) return;
  if (upsert(state.messages, m)) renderMessages({ toBottom: fresh && (m.ephemeral || m.user === state.user) });
}

function removeMessage(channel, ts) {
  if (channel === state.channel) {
    state.messages = state.messages.filter((m) => m.ts !== ts);
    renderMessages();
  }
  if (state.thread?.channel === channel) {
    if (state.thread.ts === ts) closeThread();
    else {
      state.thread.messages = state.thread.messages.filter((m) => m.ts !== ts);
      renderThread();
    }
  }
}

function dayLabel(date) {
  const today = new Date();
  const yesterday = new Date(Date.now() - 86_400_000);
  if (date.toDateString() === today.toDateString()) return 'Today';
  if (date.toDateString() === yesterday.toDateString()) return 'Yesterday';
  return date.toLocaleDateString(undefined, { weekday: 'long', month: 'long', day: 'numeric' });
}

const timeOf = (ts) =>
  new Date(Number(ts) * 1000).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });

function stickToBottom(list, toBottom, render) {
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 120;
  const top = list.scrollTop;
  render();
  list.scrollTop = toBottom || atBottom ? list.scrollHeight : top;
}

function renderMessages({ toBottom = false } = {}) {
  const list = $('message-list');
  stickToBottom(list, toBottom, () => {
    const children = [];
    const visible = state.messages.filter((m) => !state.dismissed.has(m.ts));
    children.push(channelIntro(visible.length === 0));
    let day = '';
    for (const m of visible) {
      const label = dayLabel(new Date(Number(m.ts) * 1000));
      if (label !== day) {
        day = label;
        const divider = el('div', 'day-divider');
        divider.append(el('span', null, label));
        children.push(divider);
      }
      children.push(messageNode(m, 'channel'));
    }
    list.replaceChildren(...children);
  });
  if (state.highlight) {
    const node = list.querySelector(`[data-ts="${CSS.escape(state.highlight)}"]`);
    if (node) {
      node.classList.add('highlight');
      node.scrollIntoView({ block: 'center' });
      state.highlight = null;
    }
  }
}

function channelIntro(empty) {
  const c = channelOf(state.channel);
  const box = el('div', 'intro');
  box.append(el('h2', null, `# ${c?.name ?? ''}`));
  box.append(
    el(
      'p',
      null,
      `This is the very beginning of the #${c?.name ?? ''} channel.${!state.workspace.installed ? ` Lookout is not installed in ${state.workspace.team.name}.` : empty ? ' Ask Lookout something: pick an example below, or type / to see the commands.' : ''}`,
    ),
  );
  return box;
}

function messageNode(m, where) {
  const cached = nodes.get(m);
  if (cached && cached.where === where) return cached.node;
  const node = el('div', 'message');
  node.dataset.testid = 'message';
  node.dataset.ts = m.ts;
  if (m.ephemeral) node.classList.add('ephemeral');
  if (m.bot) node.classList.add('from-bot');

  const main = el('div', 'message-main');
  const head = el('div', 'message-head');
  head.append(el('span', 'author', displayName(m.user)));
  if (m.bot || m.user === state.workspace.slackbot) head.append(el('span', 'app-badge', 'APP'));
  const time = el('time', 'time', timeOf(m.ts));
  time.title = new Date(Number(m.ts) * 1000).toLocaleString();
  head.append(time);
  if (m.edited && !m.bot) head.append(el('span', 'edited', '(edited)'));
  main.append(head);

  if (m.reply_broadcast && where === 'channel') main.append(el('div', 'broadcast-note', 'replied to a thread'));

  const ctx = {
    surface: 'message',
    text: textCtx,
    users: state.workspace.users.filter((u) => !u.is_bot),
    channels: state.workspace.channels,
    state: m.state,
    onAction: (element, blockId, value) =>
      sendAction({ channel: m.channel, ts: m.ts, block_id: blockId, action_id: element.action_id, value }),
  };
  const body = el('div', 'message-body');
  if (Array.isArray(m.blocks) && m.blocks.length > 0) body.append(renderBlocks(m.blocks, ctx));
  else body.append(renderMrkdwn(m.text, textCtx, 'div'));
  if (Array.isArray(m.attachments) && m.attachments.length > 0) body.append(renderAttachments(m.attachments, ctx));
  main.append(body);

  if (m.ephemeral) {
    const note = el('div', 'ephemeral-note');
    note.dataset.testid = 'ephemeral-note';
    note.append(icon('eye'), el('span', null, 'Only visible to you'));
    const dismiss = el('button', 'link-button', 'Dismiss');
    dismiss.type = 'button';
    dismiss.addEventListener('click', () => {
      state.dismissed.add(m.ts);
      renderMessages();
    });
    note.append(dismiss);
    main.prepend(note);
  }

  if (where === 'channel' && m.reply_count > 0) {
    const link = el('button', 'thread-link');
    link.type = 'button';
    link.dataset.testid = 'thread-link';
    const faces = el('span', 'reply-faces');
    for (const u of (m.reply_users ?? []).slice(0, 3)) faces.append(avatar(u, 'avatar-xxs'));
    link.append(faces, el('span', 'reply-count', `${m.reply_count} ${m.reply_count === 1 ? 'reply' : 'replies'}`));
    if (m.latest_reply) link.append(el('span', 'reply-when', `Last reply ${timeOf(m.latest_reply)}`));
    link.addEventListener('click', () => openThread(m.channel, m.ts));
    main.append(link);
  }

  node.append(avatar(m.user), main);
  if (where === 'channel' && !m.ephemeral) {
    const tools = el('div', 'hover-tools');
    const reply = el('button', 'btn-icon');
    reply.append(icon('reply'));
    reply.type = 'button';
    reply.title = 'Reply in thread';
    reply.setAttribute('aria-label', 'Reply in thread');
    reply.addEventListener('click', () => openThread(m.channel, m.ts));
    tools.append(reply);
    node.append(tools);
  }
  nodes.set(m, { where, node });
  return node;
}

async function sendAction(body) {
  try {
    await api('POST', '/ui/action', { user: state.user, ...body });
  } catch (error) {
    toast(error.message);
  }
}

// ---- threads ----------------------------------------------------------------------------

async function openThread(channel, ts) {
  try {
    const data = await api(
      'GET',
      `/ui/thread?channel=${encodeURIComponent(channel)}&ts=${encodeURIComponent(ts)}&user=${encodeURIComponent(state.user)}`,
    );
    state.thread = { channel, ts, messages: data.messages };
    $('thread-panel').hidden = false;
    $('thread-channel').textContent = `# ${channelOf(channel)?.name ?? channel}`;
    renderThread({ toBottom: true });
    $('thread-input').focus();
  } catch (error) {
    toast(error.message);
  }
}

function closeThread() {
  state.thread = null;
  $('thread-panel').hidden = true;
}

function renderThread({ toBottom = false } = {}) {
  if (!state.thread) return;
  const list = $('thread-list');
  stickToBottom(list, toBottom, () => {
    const [parent, ...replies] = state.thread.messages;
    const children = [];
    if (parent) children.push(messageNode(parent, 'thread'));
    const count = replies.filter((r) => !r.ephemeral).length;
    const divider = el('div', 'replies-divider');
    divider.append(el('span', null, count === 0 ? 'No replies yet' : `${count} ${count === 1 ? 'reply' : 'replies'}`));
    children.push(divider);
    for (const r of replies) children.push(messageNode(r, 'thread'));
    list.replaceChildren(...children);
  });
}

// ---- modals -----------------------------------------------------------------------------

function setViews(stack) {
  const open = new Set(stack.map((v) => v.id));
  for (const id of state.drafts.keys()) if (!open.has(id)) state.drafts.delete(id);
  state.views = stack;
  renderModal();
}

function renderModal() {
  const root = $('modal-root');
  const view = state.views.at(-1);
  if (!view) {
    root.hidden = true;
    root.replaceChildren();
    return;
  }
  // Where the person was typing, to put the caret back after the view is drawn anew.
  const active = root.contains(document.activeElement) ? document.activeElement : null;
  const refocus = active?.closest('[data-block-id]')
    ? {
        block: active.closest('[data-block-id]').dataset.blockId,
        caret: typeof active.selectionStart === 'number' ? active.selectionStart : null,
      }
    : null;
  const draft = state.drafts.get(view.id) ?? {};
  state.drafts.set(view.id, draft);
  const errors = { ...view.errors };

  const dialog = el('div', 'dialog modal');
  dialog.setAttribute('role', 'dialog');
  dialog.setAttribute('aria-modal', 'true');
  dialog.dataset.testid = 'modal';
  dialog.dataset.viewId = view.id;

  const header = el('header', 'modal-header');
  if (state.views.length > 1) {
    const back = el('button', 'btn-icon', '‹');
    back.type = 'button';
    back.setAttribute('aria-label', 'Back');
    back.addEventListener('click', () => closeView(view));
    header.append(back);
  }
  const title = el('h2', 'modal-title', view.title?.text ?? '');
  title.id = `modal-title-${view.id}`;
  dialog.setAttribute('aria-labelledby', title.id);
  const close = el('button', 'btn-icon close', '×');
  close.type = 'button';
  close.dataset.testid = 'modal-close';
  close.setAttribute('aria-label', 'Close');
  close.addEventListener('click', () => closeView(view));
  header.append(el('span', 'modal-app', 'L'), title, close);

  const ctx = {
    surface: 'modal',
    text: textCtx,
    users: state.workspace.users.filter((u) => !u.is_bot),
    channels: state.workspace.channels,
    state: view.state?.values ?? {},
    draft,
    errors,
    onInput: (blockId) => {
      const block = dialog.querySelector(`[data-block-id="${CSS.escape(blockId)}"]`);
      block?.classList.remove('has-error');
      const error = block?.querySelector('.input-error');
      if (error) error.hidden = true;
    },
    onAction: (element, blockId, value) =>
      sendAction({ view_id: view.id, block_id: blockId, action_id: element.action_id, value }),
  };
  const body = el('div', 'modal-body');
  body.append(renderBlocks(view.blocks, ctx));
  const problem = el('div', 'modal-problem');
  problem.setAttribute('role', 'alert');
  problem.hidden = true;
  body.append(problem);

  const footer = el('footer', 'modal-footer');
  const cancel = el('button', 'btn', view.close?.text ?? (view.submit ? 'Cancel' : 'Close'));
  cancel.type = 'button';
  cancel.dataset.testid = 'modal-cancel';
  cancel.addEventListener('click', () => closeView(view));
  footer.append(cancel);
  if (view.submit) {
    const submit = el('button', 'btn btn-primary', view.submit.text ?? 'Submit');
    submit.type = 'submit';
    submit.dataset.testid = 'modal-submit';
    footer.append(submit);
  }
  const form = el('form', 'modal-form');
  form.noValidate = true;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void submitView(view, ctx, form, problem);
  });
  form.append(header, body, footer);
  dialog.append(form);
  root.replaceChildren(dialog);
  root.hidden = false;
  const again =
    refocus && dialog.querySelector(`[data-block-id="${CSS.escape(refocus.block)}"] :is(input, textarea, select)`);
  const firstError = dialog.querySelector('.has-error input, .has-error textarea, .has-error select');
  if (firstError) {
    firstError.focus();
    firstError.scrollIntoView({ block: 'center' });
  } else if (again) {
    again.focus();
    if (
      refocus.caret !== null &&
      typeof again.setSelectionRange === 'function' &&
      /^(text|search|url|email|textarea)$/.test(again.type ?? '')
    ) {
      again.setSelectionRange(refocus.caret, refocus.caret);
    }
  } else if (!root.contains(document.activeElement)) (dialog.querySelector('input, textarea, select') ?? close).focus();
}

async function submitView(view, ctx, form, problem) {
  const submit = form.querySelector('[data-testid="modal-submit"]');
  const values = {};
  let missing = false;
  for (const { block, actionId, value } of inputValues(view.blocks, ctx)) {
    if (!block.optional && isEmptyValue(value)) {
      missing = true;
      const node = form.querySelector(`[data-block-id="${CSS.escape(block.block_id)}"]`);
      node?.classList.add('has-error');
      const error = node?.querySelector('.input-error');
      if (error) {
        error.textContent = 'Please complete this required field.';
        error.hidden = false;
      }
    }
    const drafted = ctx.draft[block.block_id]?.[actionId];
    // By block: inputs in different blocks may share an action_id.
    if (drafted !== undefined) values[block.block_id] = drafted;
  }
  if (missing) return;
  submit?.classList.add('busy');
  if (submit) submit.disabled = true;
  problem.hidden = true;
  try {
    const { delivery } = await api('POST', '/ui/submit', { user: state.user, view_id: view.id, values });
    if (delivery?.error) {
      problem.textContent = `We had some trouble connecting (${delivery.error}${delivery.reasons?.length ? `: ${delivery.reasons.join('; ')}` : ''}). Try again?`;
      problem.hidden = false;
    }
  } catch (error) {
    problem.textContent = error.message;
    problem.hidden = false;
  } finally {
    submit?.classList.remove('busy');
    if (submit) submit.disabled = false;
  }
}

async function closeView(view) {
  try {
    await api('POST', '/ui/close-view', { user: state.user, view_id: view.id });
  } catch (error) {
    // Already closed on the server: drop it here too.
    setViews(state.views.filter((v) => v.id !== view.id));
    if (!/view_not_found/.test(error.data?.error ?? '')) toast(error.message);
  }
}

// ---- composer ---------------------------------------------------------------------------

function suggestionsFor(text) {
  if (/^\/\S*$/.test(text)) {
    return COMMANDS.filter((c) => c.name.startsWith(text.toLowerCase())).map((c) => ({
      label: c.name,
      detail: c.hint,
      description: c.description,
      insert: `${c.name} `,
      command: true,
    }));
  }
  let m = /^\/traffic\s+(\S*)$/i.exec(text);
  if (m) {
    return TRAFFIC_WORDS.filter(([w]) => w.startsWith(m[1].toLowerCase())).map(([w, what]) => ({
      label: w,
      detail: what,
      insert: `/traffic ${w} `,
      word: m[1],
    }));
  }
  m = /^\/traffic\s+(\S+)\s+(\S*)$/i.exec(text);
  if (m) {
    const first = m[1].toLowerCase();
    const words = SUBCOMMANDS[first] ?? (REPORTS.includes(first) ? RANGES : []);
    return words
      .filter((w) => w.startsWith(m[2].toLowerCase()))
      .map((w) => ({
        label: w,
        detail: SUBCOMMANDS[first] ? first : 'range',
        insert: `/traffic ${m[1]} ${w} `,
        word: m[2],
      }));
  }
  return [];
}

const composer = { items: [], index: 0 };

function updateSuggestions() {
  const input = $('composer-input');
  const text = input.value;
  const list = $('suggestions');
  composer.items = text.includes('\n') ? [] : suggestionsFor(text);
  composer.index = Math.min(composer.index, Math.max(0, composer.items.length - 1));
  list.replaceChildren();
  composer.items.forEach((item, i) => {
    const li = el('li', `suggestion${i === composer.index ? ' active' : ''}`);
    li.setAttribute('role', 'option');
    li.setAttribute('aria-selected', String(i === composer.index));
    li.dataset.testid = 'suggestion';
    li.append(el('span', 'suggestion-label', item.label));
    if (item.detail) li.append(el('span', 'suggestion-detail', item.detail));
    if (item.description) li.append(el('span', 'suggestion-description', item.description));
    li.addEventListener('mousedown', (e) => {
      e.preventDefault();
      accept(i);
    });
    list.append(li);
  });
  list.hidden = composer.items.length === 0;
  const command = COMMANDS.find((c) => text.toLowerCase().startsWith(`${c.name} `));
  $('composer-hint').textContent = command && composer.items.length === 0 ? `${command.name} ${command.hint}` : '';
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight, 160)}px`;
}

function accept(i) {
  const item = composer.items[i];
  if (!item) return;
  const input = $('composer-input');
  input.value = item.insert;
  composer.index = 0;
  input.focus();
  updateSuggestions();
}

async function send(text, threadTs) {
  const body = { channel: state.channel, user: state.user, text };
  if (threadTs) body.thread_ts = threadTs;
  return api('POST', '/ui/command', body);
}

async function sendComposer() {
  const input = $('composer-input');
  const text = input.value.trim();
  if (!text) return;
  input.value = '';
  updateSuggestions();
  const hint = $('composer-hint');
  const isCommand = text.startsWith('/');
  if (isCommand) hint.textContent = `Running ${text.split(/\s+/)[0]}…`;
  try {
    await send(text);
    if (isCommand && hint.textContent.startsWith('Running')) hint.textContent = '';
  } catch (error) {
    input.value = text;
    updateSuggestions();
    hint.textContent = error.message;
    hint.classList.add('error');
    setTimeout(() => hint.classList.remove('error'), 4000);
  }
}

function setupComposer() {
  const input = $('composer-input');
  input.addEventListener('input', () => {
    composer.index = 0;
    updateSuggestions();
  });
  input.addEventListener('keydown', (e) => {
    const open = composer.items.length > 0;
    if (open && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault();
      const n = composer.items.length;
      composer.index = (composer.index + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
      updateSuggestions();
    } else if (open && e.key === 'Tab') {
      e.preventDefault();
      accept(composer.index);
    } else if (open && e.key === 'Escape') {
      composer.items = [];
      $('suggestions').hidden = true;
    } else if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      const item = composer.items[composer.index];
      // Enter sends once what is typed is already the suggestion (a whole command like /visitor, or a finished word).
      const typed = input.value.trim().toLowerCase();
      const complete =
        item &&
        (typed === String(item.label).trim().toLowerCase() ||
          (!item.command && item.word.toLowerCase() === item.label.toLowerCase()));
      if (open && item && !complete) accept(composer.index);
      else void sendComposer();
    }
  });
  $('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    void sendComposer();
  });
  const examples = $('examples');
  examples.append(el('span', 'examples-label', 'Try'));
  for (const text of EXAMPLES) {
    const chip = el('button', 'example', text);
    chip.type = 'button';
    chip.dataset.testid = 'example';
    chip.addEventListener('click', () => {
      input.value = text;
      updateSuggestions();
      input.focus();
    });
    examples.append(chip);
  }

  const reply = $('thread-input');
  const sendReply = async () => {
    const text = reply.value.trim();
    if (!text || !state.thread) return;
    reply.value = '';
    try {
      await send(text, state.thread.ts);
    } catch (error) {
      reply.value = text;
      toast(error.message);
    }
  };
  reply.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void sendReply();
    }
  });
  $('thread-composer').addEventListener('submit', (e) => {
    e.preventDefault();
    void sendReply();
  });
  $('thread-close').addEventListener('click', closeThread);
}

// ---- workspaces and the app's installation -------------------------------------------------

/** The workspace switcher: another workspace is another page (`/?team=`), its people and channels its own. */
function renderTeams() {
  const select = $('team-switcher');
  select.replaceChildren(
    ...state.workspace.teams.map((t) => {
      const option = el('option', '', t.name);
      option.value = t.id;
      option.selected = t.id === state.workspace.team.id;
      return option;
    }),
  );
  select.hidden = state.workspace.teams.length < 2;
  select.addEventListener('change', () => {
    const team = state.workspace.teams.find((t) => t.id === select.value);
    location.assign(team && !team.default ? `/?team=${encodeURIComponent(team.id)}` : '/');
  });
}

function renderInstalled() {
  const button = $('remove-app');
  button.disabled = !state.workspace.installed;
  button.textContent = state.workspace.installed ? 'Remove app' : 'Not installed';
  $('examples').hidden = !state.workspace.installed;
  // Not installed, and the app has an install page: Add to Slack goes there, as this workspace.
  const add = $('add-to-slack');
  add.hidden = state.workspace.installed || !state.workspace.installable;
  add.href = `/ui/add-to-slack?team=${encodeURIComponent(state.workspace.team.id)}`;
}

/** The workspace's demo analytics account (made up for this run): what a person types into Lookout's "Connect your analytics". */
function renderDemoAccount() {
  const account = state.workspace.demo_account;
  $('demo-account').hidden = !account;
  if (!account) return;
  $('demo-account-url').textContent = account.base_url;
  $('demo-account-key').textContent = account.api_key;
}

/** "Remove app": the workspace uninstalls Lookout; Slack revokes its tokens and tells it with two events. */
async function removeApp() {
  const name = state.workspace.team.name;
  const yes = await confirmDialog({
    title: { type: 'plain_text', text: 'Remove Lookout?' },
    text: {
      type: 'plain_text',
      text: `Lookout will be removed from ${name}: its tokens stop working, and it gets tokens_revoked and app_uninstalled.`,
    },
    confirm: { type: 'plain_text', text: 'Remove app' },
    style: 'danger',
  });
  if (!yes) return;
  try {
    await api('POST', '/ui/remove-app', {});
    state.workspace.installed = false;
    renderInstalled();
    void loadChannel();
    toast(`Lookout was removed from ${name}.`, 'info');
  } catch (error) {
    toast(error.message);
  }
}

/** The demo's controls: a spike in this workspace's demo account, in the current hour up to now. */
async function setupDemoControls() {
  const box = $('demo-controls');
  const { available } = await api('GET', '/ui/demo').catch(() => ({ available: false }));
  if (!available) return; // a real analytics API, or none, behind this workspace
  box.hidden = false;
  for (const button of box.querySelectorAll('button[data-spike]')) {
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const { text } = await api('POST', '/ui/demo/spike', { kind: button.dataset.spike });
        toast(text, 'info');
      } catch (error) {
        toast(error.message);
      } finally {
        button.disabled = false;
      }
    });
  }
}

// ---- start ------------------------------------------------------------------------------

async function start() {
  const [workspace, emoji] = await Promise.all([
    api('GET', '/ui/workspace'),
    api('GET', '/ui/emoji.json').catch(() => ({})),
  ]);
  state.workspace = workspace;
  setEmoji(emoji);
  const params = new URLSearchParams(location.search);
  const permalink = /^\/archives\/([^/]+)\/p(\d{10})(\d{6})/.exec(location.pathname);
  const wantedUser = params.get('user');
  const person =
    wantedUser && state.workspace.users.find((u) => !u.is_bot && (u.id === wantedUser || u.name === wantedUser));
  state.user = person?.id ?? state.workspace.default_user;
  const wantedChannel = permalink?.[1] ?? params.get('channel');
  const channel = (wantedChannel && channelOf(wantedChannel)) || channelOf('general') || state.workspace.channels[0];
  state.channel = channel.id;
  if (permalink) state.highlight = `${permalink[2]}.${permalink[3]}`;
  document.title = `${state.workspace.team.name} · Slack`;
  $('workspace-name').textContent = state.workspace.team.name;

  renderTeams();
  renderInstalled();
  renderDemoAccount();
  $('remove-app').addEventListener('click', () => void removeApp());
  void setupDemoControls();
  renderSidebar();
  renderMe();
  renderHeader();
  setupComposer();
  remember();
  $('app-home').addEventListener('click', () => void openHome());
  $('user-switcher').addEventListener('change', (e) => {
    state.user = e.target.value;
    state.dismissed.clear();
    state.unread.clear();
    state.drafts.clear();
    closeThread();
    renderMe();
    renderSidebar();
    remember();
    connect();
    if (state.homeOpen) void openHome();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.views.length > 0 && !document.querySelector('.confirm-backdrop'))
      void closeView(state.views.at(-1));
  });
  connect();
  // Slack's link back from an install (/app_redirect) lands here with the app to open.
  if (params.get('app') && params.get('app') === state.workspace.bot.appId) void openHome();
}

start().catch((error) => {
  document.body.textContent = `The sandbox UI could not start: ${error.message}`;
});
