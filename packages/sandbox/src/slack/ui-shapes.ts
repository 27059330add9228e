/** What the page gets: people, channels, messages, views and events, in the page's shapes. */
import type { Delivery, Json } from './types.js';
import type { Channel, Message, SlackUser, View, Workspace, WorkspaceChange } from './workspace.js';

// ---- what the page gets ---------------------------------------------------------------

export function uiUser(u: SlackUser): Json {
  return { id: u.id, name: u.name, real_name: u.real_name, is_bot: u.is_bot };
}

export function uiChannel(c: Channel): Json {
  return { id: c.id, name: c.name, is_private: c.is_private, is_archived: c.is_archived, is_member: c.is_member };
}

export function uiMessage(m: Message): Json {
  const out: Json = {
    channel: m.channel,
    ts: m.ts,
    text: m.text,
    user: m.user,
    via: m.via,
    bot: m.bot_id !== undefined,
    ephemeral: m.ephemeralTo !== undefined,
    edited: m.edited !== undefined,
    updates: m.updates,
    state: m.state,
  };
  if (m.blocks) out.blocks = m.blocks;
  if (m.attachments) out.attachments = m.attachments;
  if (m.thread_ts) out.thread_ts = m.thread_ts;
  if (m.reply_count !== undefined) {
    out.reply_count = m.reply_count;
    out.reply_users = m.reply_users ?? [];
    out.latest_reply = m.latest_reply;
  }
  if (m.reply_broadcast) out.reply_broadcast = true;
  return JSON.parse(JSON.stringify(out)) as Json;
}

export function uiView(v: View): Json {
  return JSON.parse(
    JSON.stringify({
      id: v.id,
      title: v.title,
      submit: v.submit,
      close: v.close,
      blocks: v.blocks,
      state: v.state,
      errors: v.errors ?? {},
      hash: v.hash,
      previous_view_id: v.previous_view_id,
      root_view_id: v.root_view_id,
      open: v.open,
    }),
  ) as Json;
}

export function deliverySummary(d: Delivery | undefined): Json | null {
  if (!d) return null;
  const out: Json = { id: d.id, kind: d.kind, status: d.status, ack_ms: d.ackMs };
  if (d.error) out.error = d.error;
  if (d.reasons) out.reasons = d.reasons;
  if (d.json !== undefined && typeof d.json === 'object' && d.json !== null && 'response_action' in d.json) {
    out.response_action = (d.json as Json).response_action;
  }
  return out;
}

function deliveryUser(d: Delivery): string | undefined {
  const p = d.payload;
  if (typeof p.user_id === 'string') return p.user_id;
  const user = p.user;
  return user && typeof user === 'object' && 'id' in user && typeof user.id === 'string' ? user.id : undefined;
}

/** One workspace change as the SSE event `user` should get, or undefined when it is none of theirs. */
export function uiEvent(
  change: WorkspaceChange,
  user: string,
  ws: Workspace,
): { event: string; data: Json } | undefined {
  switch (change.type) {
    case 'message':
    case 'update':
      if (change.message.ephemeralTo && change.message.ephemeralTo !== user) return undefined;
      return { event: change.type, data: { message: uiMessage(change.message) } };
    case 'delete':
      return { event: 'delete', data: { channel: change.channel, ts: change.ts } };
    case 'view_open':
    case 'view_update':
    case 'view_close':
      if (change.view.user !== user) return undefined;
      return {
        event: 'views',
        data: { change: change.type, view: uiView(change.view), stack: ws.openViews(user).map(uiView) },
      };
    case 'channel':
      return { event: 'channel', data: { channel: uiChannel(change.channel) } };
    case 'home':
      return change.user === user ? { event: 'home', data: { view: change.view } } : undefined;
    case 'delivery': {
      const d = change.delivery;
      if (!d.error || d.kind === 'slash_command' || deliveryUser(d) !== user) return undefined;
      return { event: 'delivery', data: { delivery: deliverySummary(d) } };
    }
    default:
      return undefined;
  }
}
