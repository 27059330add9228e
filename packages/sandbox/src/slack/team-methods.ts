/** The Web API's arguments as the methods read them, and the methods themselves (web-api.ts routes to them). */
import { validateHomeView, validateMessage, validateMessageText, validateView } from '@lookout/slack-rules/validate';
import { SlackError, type Json } from './types.js';
import { tzLabel, tzOffsetSeconds } from './time-zones.js';
import type { Channel, Message, Workspace } from './workspace.js';
import type { WebApiOptions } from './web-api.js';
import { apiMessage, apiView, apiChannel } from './api-objects.js';

export function str(args: Json, key: string): string | undefined {
  const v = args[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return undefined;
}

function bool(args: Json, key: string): boolean {
  const v = args[key];
  return v === true || v === 'true' || v === '1' || v === 1;
}

/** A field that may arrive JSON-stringified inside a form. */
function jsonField(args: Json, key: string, error: string): unknown {
  const v = args[key];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    throw new SlackError(error, error === 'invalid_arguments' ? { reasons: [`${key}: must be valid JSON`] } : {});
  }
}

function blocksField(args: Json): unknown[] | undefined {
  const blocks = jsonField(args, 'blocks', 'invalid_blocks_format');
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) throw new SlackError('invalid_blocks_format');
  return blocks as unknown[];
}

function attachmentsField(args: Json): unknown[] | undefined {
  const attachments = jsonField(args, 'attachments', 'invalid_attachments');
  if (attachments === undefined) return undefined;
  if (!Array.isArray(attachments)) throw new SlackError('invalid_attachments');
  return attachments as unknown[];
}

function checkMessage(blocks: unknown[] | undefined, attachments: unknown[] | undefined): void {
  const result = validateMessage({ blocks, attachments });
  if (!result.ok) throw new SlackError('invalid_blocks', { reasons: result.reasons });
}

/** The Web API methods, acting in one workspace: the one the calling token belongs to. */
export class TeamMethods {
  constructor(
    readonly ws: Workspace,
    private readonly options: Pick<WebApiOptions, 'baseUrl'>,
  ) {}

  authTest(): Json {
    return {
      url: `${this.options.baseUrl()}/`,
      team: this.ws.team.name,
      user: this.ws.bot.name,
      team_id: this.ws.team.id,
      user_id: this.ws.bot.userId,
      bot_id: this.ws.bot.botId,
      is_enterprise_install: false,
    };
  }

  /** A channel the bot can see (private channels only when it is a member). */
  visibleChannel(args: Json, key = 'channel'): Channel {
    const ref = str(args, key);
    const channel = ref ? this.ws.channel(ref) : undefined;
    if (!channel || (channel.is_private && !channel.is_member)) throw new SlackError('channel_not_found');
    return channel;
  }

  writableChannel(args: Json): Channel {
    const channel = this.visibleChannel(args);
    if (channel.is_archived) throw new SlackError('is_archived');
    return channel;
  }

  content(args: Json): { text: string; blocks: unknown[] | undefined; attachments: unknown[] | undefined } {
    const blocks = blocksField(args);
    const attachments = attachmentsField(args);
    const text = validateMessageText(args.text, blocks, attachments);
    if (!text.ok) throw new SlackError(text.error);
    checkMessage(blocks, attachments);
    return { text: text.text, blocks, attachments };
  }

  threadTs(args: Json, channel: Channel): string | undefined {
    const threadTs = str(args, 'thread_ts');
    if (!threadTs) return undefined;
    const parent = this.ws.message(channel.id, threadTs);
    if (!parent || parent.ephemeralTo) throw new SlackError('thread_not_found');
    return threadTs;
  }

  postMessage(args: Json): Json {
    // A user id posts into the bot's direct messages with that person, as in Slack.
    const ref = str(args, 'channel') ?? '';
    const person = this.ws.users.get(ref);
    const channel = person && !person.is_bot ? this.ws.directMessage(person.id) : this.writableChannel(args);
    const { text, blocks, attachments } = this.content(args);
    const metadata = jsonField(args, 'metadata', 'invalid_metadata_format');
    const message = this.ws.post({
      channel: channel.id,
      text,
      blocks,
      attachments,
      threadTs: this.threadTs(args, channel),
      replyBroadcast: bool(args, 'reply_broadcast'),
      metadata,
      via: 'api',
    });
    return { channel: channel.id, ts: message.ts, message: apiMessage(message, this.ws.team.id) };
  }

  postEphemeral(args: Json): Json {
    const channel = this.writableChannel(args);
    const userRef = str(args, 'user');
    const user = userRef ? this.ws.users.get(userRef) : undefined;
    if (!user || user.is_bot) throw new SlackError('user_not_found');
    const { text, blocks, attachments } = this.content(args);
    const message = this.ws.post({
      channel: channel.id,
      text,
      blocks,
      attachments,
      threadTs: this.threadTs(args, channel),
      ephemeralTo: user.id,
      via: 'api',
    });
    return { message_ts: message.ts };
  }

  ownMessage(args: Json, tsKey: string, notOwn: string): { channel: Channel; message: Message } {
    const channel = this.visibleChannel(args);
    const ts = str(args, tsKey);
    const message = ts ? this.ws.message(channel.id, ts) : undefined;
    if (!message || message.ephemeralTo) throw new SlackError('message_not_found');
    if (message.user !== this.ws.bot.userId) throw new SlackError(notOwn);
    return { channel, message };
  }

  update(args: Json): Json {
    const { channel, message } = this.ownMessage(args, 'ts', 'cant_update_message');
    if (channel.is_archived) throw new SlackError('is_archived');
    const blocks = blocksField(args);
    const attachments = attachmentsField(args);
    const hasText = typeof args.text === 'string';
    if (!hasText && blocks === undefined && attachments === undefined) throw new SlackError('no_text');
    let text: string | undefined;
    if (hasText) {
      const checked = validateMessageText(args.text, blocks ?? message.blocks, attachments ?? message.attachments);
      text = checked.ok ? checked.text : '';
    }
    checkMessage(blocks, attachments);
    const updated = this.ws.update(channel.id, message.ts, { text, blocks, attachments }, this.ws.bot.userId);
    if (!updated) throw new SlackError('message_not_found');
    return { channel: channel.id, ts: updated.ts, text: updated.text, message: apiMessage(updated, this.ws.team.id) };
  }

  delete(args: Json): Json {
    const { channel, message } = this.ownMessage(args, 'ts', 'cant_delete_message');
    this.ws.remove(channel.id, message.ts);
    return { channel: channel.id, ts: message.ts };
  }

  getPermalink(args: Json): Json {
    const channel = this.visibleChannel(args);
    const ts = str(args, 'message_ts');
    const message = ts ? this.ws.message(channel.id, ts) : undefined;
    if (!message || message.ephemeralTo) throw new SlackError('message_not_found');
    const thread =
      message.thread_ts && message.thread_ts !== message.ts ? `?thread_ts=${message.thread_ts}&cid=${channel.id}` : '';
    return {
      channel: channel.id,
      permalink: `${this.options.baseUrl()}/archives/${channel.id}/p${message.ts.replace('.', '')}${thread}`,
    };
  }

  viewInput(args: Json): Json {
    const view = jsonField(args, 'view', 'invalid_arguments');
    const checked = validateView(view);
    if (!checked.ok) throw new SlackError(checked.error, { reasons: checked.reasons });
    return view as Json;
  }

  viewsOpen(args: Json, mode: 'open' | 'push'): Json {
    const input = this.viewInput(args);
    if (typeof input.external_id === 'string' && this.ws.viewByExternalId(input.external_id)) {
      throw new SlackError('duplicate_external_id');
    }
    const { user } = this.ws.consumeTrigger(args.trigger_id);
    const view = mode === 'open' ? this.ws.openView(user, input) : this.ws.pushView(user, input);
    return { view: apiView(view) };
  }

  viewsUpdate(args: Json): Json {
    const viewId = str(args, 'view_id');
    const externalId = str(args, 'external_id');
    if (!viewId && !externalId)
      throw new SlackError('invalid_arguments', { reasons: ['view_id: view_id or external_id is required'] });
    const input = this.viewInput(args);
    const existing = viewId ? this.ws.view(viewId) : this.ws.viewByExternalId(externalId ?? '');
    if (!existing || !existing.open) throw new SlackError('not_found');
    const hash = str(args, 'hash');
    if (hash && hash !== existing.hash) throw new SlackError('hash_conflict');
    return { view: apiView(this.ws.updateView(existing.id, input)) };
  }

  /** The Home tab of `user_id`: replaced whole on each publish. */
  viewsPublish(args: Json): Json {
    const userId = str(args, 'user_id');
    const user = userId ? this.ws.user(userId) : undefined;
    if (!user || user.is_bot) throw new SlackError('user_not_found');
    const view = jsonField(args, 'view', 'invalid_arguments');
    const checked = validateHomeView(view);
    if (!checked.ok) throw new SlackError(checked.error, { reasons: checked.reasons });
    return { view: this.ws.publishHome(user.id, view as Json) };
  }

  join(args: Json): Json {
    const ref = str(args, 'channel');
    const channel = ref ? this.ws.channel(ref) : undefined;
    if (!channel) throw new SlackError('channel_not_found');
    if (channel.is_archived) throw new SlackError('is_archived');
    if (channel.is_private && !channel.is_member) throw new SlackError('method_not_supported_for_channel_type');
    const already = channel.is_member;
    this.ws.joinChannel(channel.id);
    return { channel: apiChannel(channel), ...(already ? { warning: 'already_in_channel' } : {}) };
  }

  /** Pages as Slack does: `limit` (default 100, at most 1000) a page, an opaque `next_cursor` until the last. */
  list(args: Json): Json {
    const excludeArchived = bool(args, 'exclude_archived');
    const all = [...this.ws.channels.values()]
      .filter((c) => !(c.is_private && !c.is_member))
      .filter((c) => !(excludeArchived && c.is_archived));
    const limit = Math.max(1, Math.min(1000, Number(str(args, 'limit') ?? 100) || 100));
    const cursor = str(args, 'cursor') ?? '';
    const start =
      cursor === ''
        ? 0
        : Number(
            Buffer.from(cursor, 'base64url')
              .toString('utf8')
              .replace(/^offset:/, ''),
          );
    if (!Number.isInteger(start) || start < 0 || start > all.length) throw new SlackError('invalid_cursor');
    const next = start + limit < all.length ? Buffer.from(`offset:${start + limit}`).toString('base64url') : '';
    return { channels: all.slice(start, start + limit).map(apiChannel), response_metadata: { next_cursor: next } };
  }

  history(args: Json): Json {
    const channel = this.visibleChannel(args);
    const limit = Math.max(1, Math.min(1000, Number(str(args, 'limit') ?? 100) || 100));
    const all = this.ws.visibleMessages(channel.id).reverse();
    return {
      messages: all.slice(0, limit).map((m) => apiMessage(m, this.ws.team.id)),
      has_more: all.length > limit,
      pin_count: 0,
      response_metadata: { next_cursor: '' },
    };
  }

  replies(args: Json): Json {
    const channel = this.visibleChannel(args);
    const ts = str(args, 'ts');
    const thread = ts ? this.ws.thread(channel.id, ts) : [];
    if (thread.length === 0) throw new SlackError('thread_not_found');
    return { messages: thread.map((m) => apiMessage(m, this.ws.team.id)), has_more: false };
  }

  /** A channel's members, a page at a time (`limit`, default 100, at most 1000; `cursor` from the last page). */
  members(args: Json): Json {
    const channel = this.visibleChannel(args);
    const limit = Math.max(1, Math.min(1000, Number(str(args, 'limit') ?? 100) || 100));
    const start = Number(str(args, 'cursor') ?? 0) || 0;
    const all = [...this.ws.members(channel.id), ...(channel.is_member ? [this.ws.bot.userId] : [])];
    const page = all.slice(start, start + limit);
    return {
      members: page,
      response_metadata: { next_cursor: start + limit < all.length ? String(start + limit) : '' },
    };
  }

  usersInfo(args: Json): Json {
    const ref = str(args, 'user');
    const user = ref ? this.ws.users.get(ref) : undefined;
    if (!user) throw new SlackError('user_not_found');
    const now = this.ws.now();
    return {
      user: {
        id: user.id,
        team_id: this.ws.team.id,
        name: user.name,
        real_name: user.real_name,
        deleted: false,
        tz: user.tz,
        tz_offset: tzOffsetSeconds(user.tz, now),
        tz_label: tzLabel(user.tz, now),
        is_bot: user.is_bot,
        is_app_user: false,
        profile: { real_name: user.real_name, display_name: user.name },
      },
    };
  }
}
