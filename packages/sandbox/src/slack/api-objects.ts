/** Slack's objects as the Web API returns them: messages, views and channels. */
import type { Json } from './types.js';
import type { Channel, Message, View } from './workspace.js';

/** Slack's message object, as the Web API returns it. */
export function apiMessage(m: Message, teamId: string): Json {
  const out: Json = { type: 'message', text: m.text, user: m.user, ts: m.ts, team: teamId };
  if (m.bot_id) {
    out.bot_id = m.bot_id;
    out.app_id = m.app_id;
    out.bot_profile = { id: m.bot_id, app_id: m.app_id, name: 'lookout', team_id: teamId, deleted: false };
  }
  if (m.blocks) out.blocks = m.blocks;
  if (m.attachments) out.attachments = m.attachments;
  if (m.thread_ts) out.thread_ts = m.thread_ts;
  if (m.reply_broadcast) out.subtype = 'thread_broadcast';
  if (m.reply_count !== undefined) {
    out.reply_count = m.reply_count;
    out.reply_users = m.reply_users ?? [];
    out.reply_users_count = (m.reply_users ?? []).length;
    out.latest_reply = m.latest_reply;
  }
  if (m.edited) out.edited = m.edited;
  if (m.metadata !== undefined) out.metadata = m.metadata;
  return JSON.parse(JSON.stringify(out)) as Json;
}

/** Slack's view object (what views.* return and interaction payloads carry). */
export function apiView(v: View): Json {
  return JSON.parse(
    JSON.stringify({
      id: v.id,
      team_id: v.team_id,
      type: v.type,
      blocks: v.blocks,
      private_metadata: v.private_metadata,
      callback_id: v.callback_id,
      state: v.state,
      hash: v.hash,
      title: v.title,
      clear_on_close: v.clear_on_close,
      notify_on_close: v.notify_on_close,
      close: v.close,
      submit: v.submit,
      previous_view_id: v.previous_view_id,
      root_view_id: v.root_view_id,
      app_id: v.app_id,
      external_id: v.external_id,
      app_installed_team_id: v.team_id,
      bot_id: v.bot_id,
    }),
  ) as Json;
}

export function apiChannel(c: Channel): Json {
  return {
    id: c.id,
    name: c.name,
    name_normalized: c.name,
    is_channel: !c.is_private,
    is_group: c.is_private,
    is_im: false,
    is_mpim: false,
    is_private: c.is_private,
    is_archived: c.is_archived,
    is_general: c.name === 'general',
    is_member: c.is_member,
    created: c.created,
  };
}
