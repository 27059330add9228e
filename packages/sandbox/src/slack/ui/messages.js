// @ts-check
// A channel's messages and a thread's replies, as the page draws them.
import { renderAttachments, renderBlocks } from './blocks.js';
import { $, el, icon, toast } from './dom.js';
import { setViews } from './modal.js';
import { renderMrkdwn } from './mrkdwn.js';
import { api, avatar, channelOf, displayName, page, sendAction, state, textCtx } from './state.js';

/** @import { Message, RenderContext } from './types.js' */

export const nodes = new WeakMap();

export async function loadChannel() {
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

/**
 * @param {Message} m
 */
export const isReply = (m) => m.thread_ts !== undefined && m.thread_ts !== m.ts;
/**
 * @param {Message} a
 * @param {Message} b
 */
export const compareTs = (a, b) => Number(a.ts) - Number(b.ts) || a.ts.localeCompare(b.ts);

/**
 * Newer wins: more updates, or as many and more replies.
 * @param {Message} incoming
 * @param {Message} existing
 */
export function newer(incoming, existing) {
  return (
    incoming.updates > existing.updates ||
    (incoming.updates === existing.updates && (incoming.reply_count ?? 0) >= (existing.reply_count ?? 0))
  );
}

/**
 * @param {Message[]} list
 * @param {Message} m
 */
export function upsert(list, m) {
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

/**
 * @param {Message} m
 * @param {boolean} fresh
 */
export function receive(m, fresh) {
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
      page.renderSidebar();
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

/**
 * @param {string} channel
 * @param {string} ts
 */
export function removeMessage(channel, ts) {
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

/**
 * @param {Date} date
 */
export function dayLabel(date) {
  const today = new Date();
  const yesterday = new Date(Date.now() - 86_400_000);
  if (date.toDateString() === today.toDateString()) return 'Today';
  if (date.toDateString() === yesterday.toDateString()) return 'Yesterday';
  return date.toLocaleDateString(undefined, { weekday: 'long', month: 'long', day: 'numeric' });
}

/**
 * @param {string} ts
 */
export const timeOf = (ts) =>
  new Date(Number(ts) * 1000).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });

/**
 * @param {any} list
 * @param {boolean} toBottom
 * @param {() => void} render
 */
export function stickToBottom(list, toBottom, render) {
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 120;
  const top = list.scrollTop;
  render();
  list.scrollTop = toBottom || atBottom ? list.scrollHeight : top;
}

export function renderMessages({ toBottom = false } = {}) {
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

/**
 * @param {boolean} empty
 */
export function channelIntro(empty) {
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

/**
 * @param {Message} m
 * @param {'channel' | 'thread'} where
 */
export function messageNode(m, where) {
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

  /** @type {RenderContext} */

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

  if (where === 'channel' && (m.reply_count ?? 0) > 0) {
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

// ---- threads ----------------------------------------------------------------------------

/**
 * @param {string} channel
 * @param {string} ts
 */
export async function openThread(channel, ts) {
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

export function closeThread() {
  state.thread = null;
  $('thread-panel').hidden = true;
}

export function renderThread({ toBottom = false } = {}) {
  const thread = state.thread;
  if (!thread) return;
  const list = $('thread-list');
  stickToBottom(list, toBottom, () => {
    const [parent, ...replies] = thread.messages;
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
