/**
 * The offline Slack's in-memory workspace: one team, its users and channels, the
 * messages in each channel (threads, ephemerals, edits), open modals, and the
 * trigger_ids handed out. Every change is announced as a `change` event so a live
 * UI (and `waitFor` in tests) can follow along without polling.
 */
import type { Delivery, Json } from './types.js';
import { clone, normalizeAttachments, normalizeBlocks } from './normalize.js';
import { WorkspaceViews } from './views.js';
import { type BotIdentity, type WorkspaceSeed, LOOKOUT_SEED } from './seeds.js';

export interface Team {
  id: string;
  name: string;
  domain: string;
  /** The Enterprise Grid organisation the workspace belongs to, if any. */
  enterprise?: { id: string; name: string };
}

export interface SlackUser {
  id: string;
  name: string;
  real_name: string;
  tz: string;
  is_bot: boolean;
}

export interface Channel {
  id: string;
  name: string;
  is_private: boolean;
  is_archived: boolean;
  /** Whether the app's bot user is a member. */
  is_member: boolean;
  /** Unix seconds. */
  created: number;
}

export interface Message {
  type: 'message';
  channel: string;
  ts: string;
  text: string;
  blocks?: Json[];
  attachments?: unknown[];
  /** The author: a person's id, or the bot user's id for app messages. */
  user: string;
  bot_id?: string;
  app_id?: string;
  /** Set on replies (the parent's ts) and on a parent once it has replies (its own ts). */
  thread_ts?: string;
  reply_count?: number;
  reply_users?: string[];
  latest_reply?: string;
  reply_broadcast?: boolean;
  metadata?: unknown;
  /** The one user who sees this message, when it is ephemeral. */
  ephemeralTo?: string;
  edited?: { user: string; ts: string };
  /** How many times it was updated (chat.update or response_url replace_original). */
  updates: number;
  /** How it arrived. */
  via: 'api' | 'response_url' | 'ack' | 'user' | 'notice';
  /** The user whose command or click led to this message (for the driver's default clicker). */
  invokedBy?: string;
  /** Latest selections made in this message's elements: `{ [block_id]: { [action_id]: state } }`. */
  state: Record<string, Record<string, Json>>;
}

export interface View {
  id: string;
  team_id: string;
  type: 'modal';
  title: Json;
  submit: Json | null;
  close: Json | null;
  blocks: Json[];
  private_metadata: string;
  callback_id: string;
  external_id: string;
  hash: string;
  clear_on_close: boolean;
  notify_on_close: boolean;
  state: { values: Record<string, Record<string, Json>> };
  root_view_id: string;
  previous_view_id: string | null;
  app_id: string;
  bot_id: string;
  /** The user who sees it. */
  user: string;
  open: boolean;
  /** The last `response_action: errors` the app returned, keyed by block_id. */
  errors?: Record<string, string>;
}

export type WorkspaceChange =
  | { type: 'message'; channel: string; ts: string; message: Message }
  | { type: 'update'; channel: string; ts: string; message: Message }
  | { type: 'delete'; channel: string; ts: string }
  | { type: 'view_open' | 'view_update' | 'view_close'; view: View }
  | { type: 'channel'; channel: Channel }
  | { type: 'delivery'; delivery: Delivery }
  | { type: 'home'; user: string; view: Json };

export interface NewMessage {
  channel: string;
  text: string;
  blocks?: unknown[] | undefined;
  attachments?: unknown[] | undefined;
  /** Author user id; defaults to the bot user (an app message). */
  user?: string;
  threadTs?: string | undefined;
  replyBroadcast?: boolean | undefined;
  ephemeralTo?: string | undefined;
  metadata?: unknown;
  via?: Message['via'];
  invokedBy?: string | undefined;
}

export interface WorkspaceOptions {
  now?: () => number;
  /** Milliseconds a trigger_id stays usable (Slack: 3 s). */
  triggerTtlMs?: number;
  /** Seed the default users and channels (default true). */
  seed?: boolean;
  /** Which workspace: its team, bot, people and channels (default the Lookout Sandbox one). */
  of?: WorkspaceSeed;
}

/** Compare two Slack timestamps ("1732200000.000100") numerically. */
export function compareTs(a: string, b: string): number {
  const [as = '0', af = '0'] = a.split('.');
  const [bs = '0', bf = '0'] = b.split('.');
  return Number(as) - Number(bs) || Number(af.padEnd(6, '0')) - Number(bf.padEnd(6, '0'));
}

export class Workspace extends WorkspaceViews {
  readonly team: Team;
  readonly bot: BotIdentity;
  readonly users = new Map<string, SlackUser>();
  readonly channels = new Map<string, Channel>();
  readonly now: () => number;
  private readonly messagesByChannel = new Map<string, Message[]>();
  /** Who is in each channel (people, and the bot when `is_member`). */
  private readonly memberships = new Map<string, Set<string>>();
  private lastMicros = 0;
  /** The app reaches this workspace through its organisation's org-wide install (OAuthServer.addToWorkspace). */
  orgWide = false;

  constructor(options: WorkspaceOptions = {}) {
    super(options.triggerTtlMs);
    this.setMaxListeners(0);
    this.now = options.now ?? Date.now;
    const seed = options.of ?? LOOKOUT_SEED;
    this.team = { ...seed.team };
    this.bot = seed.bot;
    const bot = this.bot;
    this.users.set(bot.userId, { id: bot.userId, name: bot.name, real_name: 'Lookout', tz: 'UTC', is_bot: true });
    if (options.seed !== false) {
      for (const u of seed.users) this.users.set(u.id, { ...u });
      const created = Math.floor(this.now() / 1000);
      for (const c of seed.channels) {
        this.channels.set(c.id, { ...c, created });
        this.memberships.set(c.id, new Set(seed.users.map((u) => u.id)));
      }
    }
  }

  /** The people in a channel (every seeded person is in every seeded channel). */
  members(channelRef: string): string[] {
    const channel = this.requireChannel(channelRef);
    return [...(this.memberships.get(channel.id) ?? [])];
  }

  /** `user` joins or leaves a channel. */
  setMember(channelRef: string, user: string, member: boolean): void {
    const channel = this.requireChannel(channelRef);
    const set = this.memberships.get(channel.id) ?? new Set<string>();
    if (member) set.add(user);
    else set.delete(user);
    this.memberships.set(channel.id, set);
    this.emit('change', { type: 'channel', channel });
  }

  // ---- people and places ------------------------------------------------------------

  /** A user by id, name or `@name`. */
  user(ref: string): SlackUser | undefined {
    const byId = this.users.get(ref);
    if (byId) return byId;
    const name = ref.replace(/^@/, '');
    for (const u of this.users.values()) if (u.name === name) return u;
    return undefined;
  }

  addUser(user: { id: string; name: string; real_name?: string; tz?: string }): SlackUser {
    if (this.users.has(user.id) || this.user(user.name)) throw new Error(`user ${user.id}/${user.name} exists`);
    const u: SlackUser = {
      id: user.id,
      name: user.name,
      real_name: user.real_name ?? user.name,
      tz: user.tz ?? 'UTC',
      is_bot: false,
    };
    this.users.set(u.id, u);
    return u;
  }

  /** A channel by id, `#name` or name. */
  channel(ref: string): Channel | undefined {
    const byId = this.channels.get(ref);
    if (byId) return byId;
    const name = ref.replace(/^#/, '');
    for (const c of this.channels.values()) if (c.name === name) return c;
    return undefined;
  }

  /** A new channel; its `members` default to every person in the workspace. */
  addChannel(input: {
    name: string;
    id?: string;
    isPrivate?: boolean;
    archived?: boolean;
    botIsMember?: boolean;
    members?: readonly string[];
  }): Channel {
    const name = input.name.replace(/^#/, '');
    if (!/^[a-z0-9][a-z0-9_-]{0,79}$/.test(name)) throw new Error(`invalid channel name "${name}"`);
    if (this.channel(name)) throw new Error(`channel #${name} exists`);
    const id = input.id ?? `C_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
    if (this.channels.has(id)) throw new Error(`channel ${id} exists`);
    const channel: Channel = {
      id,
      name,
      is_private: input.isPrivate ?? false,
      is_archived: input.archived ?? false,
      is_member: input.botIsMember ?? !input.isPrivate,
      created: Math.floor(this.now() / 1000),
    };
    this.channels.set(id, channel);
    const people = input.members ?? [...this.users.values()].filter((u) => !u.is_bot).map((u) => u.id);
    this.memberships.set(id, new Set(people));
    this.emit('change', { type: 'channel', channel });
    return channel;
  }

  /** The bot's direct-message conversation with a person (what chat.postMessage to a user id posts into), made on first use. */
  directMessage(userId: string): Channel {
    const id = `D_${userId.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
    return (
      this.channels.get(id) ??
      this.addChannel({
        id,
        name: `dm-${userId.toLowerCase().replace(/[^a-z0-9_-]/g, '-')}`,
        isPrivate: true,
        botIsMember: true,
      })
    );
  }

  archiveChannel(ref: string, archived = true): Channel {
    const channel = this.requireChannel(ref);
    channel.is_archived = archived;
    this.emit('change', { type: 'channel', channel });
    return channel;
  }

  joinChannel(ref: string): Channel {
    const channel = this.requireChannel(ref);
    channel.is_member = true;
    this.emit('change', { type: 'channel', channel });
    return channel;
  }

  /** The app is removed: its bot user leaves every channel. */
  removeBot(): void {
    for (const channel of this.channels.values()) {
      if (!channel.is_member) continue;
      channel.is_member = false;
      this.emit('change', { type: 'channel', channel });
    }
  }

  requireChannel(ref: string): Channel {
    const channel = this.channel(ref);
    if (!channel) throw new Error(`no channel ${ref}`);
    return channel;
  }

  requireUser(ref: string): SlackUser {
    const user = this.user(ref);
    if (!user) throw new Error(`no user ${ref}`);
    return user;
  }

  // ---- messages ---------------------------------------------------------------------

  /** A fresh message ts: unique, increasing, in Slack's "seconds.micros" form. */
  nextTs(): string {
    const micros = Math.max(Math.floor(this.now()) * 1000, this.lastMicros + 1);
    this.lastMicros = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }

  post(input: NewMessage): Message {
    const channel = this.requireChannel(input.channel);
    const user = input.user ?? this.bot.userId;
    const isBot = user === this.bot.userId;
    const ts = this.nextTs();
    const log = this.log(channel.id);
    let threadTs: string | undefined;
    let parent: Message | undefined;
    if (input.threadTs) {
      const target = log.find((m) => m.ts === input.threadTs && !m.ephemeralTo);
      threadTs = target?.thread_ts ?? input.threadTs;
      parent = log.find((m) => m.ts === threadTs && !m.ephemeralTo);
    }
    const message: Message = {
      type: 'message',
      channel: channel.id,
      ts,
      text: input.text,
      user,
      updates: 0,
      via: input.via ?? (isBot ? 'api' : 'user'),
      state: {},
    };
    if (isBot) {
      message.bot_id = this.bot.botId;
      message.app_id = this.bot.appId;
    }
    if (input.blocks) message.blocks = normalizeBlocks(clone(input.blocks));
    if (input.attachments) message.attachments = normalizeAttachments(clone(input.attachments));
    if (threadTs) message.thread_ts = threadTs;
    if (threadTs && input.replyBroadcast) message.reply_broadcast = true;
    if (input.metadata !== undefined) message.metadata = clone(input.metadata);
    if (input.ephemeralTo) message.ephemeralTo = input.ephemeralTo;
    if (input.invokedBy) message.invokedBy = input.invokedBy;
    log.push(message);
    this.emit('change', { type: 'message', channel: channel.id, ts, message });
    if (parent && !input.ephemeralTo) {
      parent.thread_ts = parent.ts;
      parent.reply_count = (parent.reply_count ?? 0) + 1;
      parent.reply_users = [...new Set([...(parent.reply_users ?? []), user])];
      parent.latest_reply = ts;
      this.emit('change', { type: 'update', channel: channel.id, ts: parent.ts, message: parent });
    }
    return message;
  }

  /** Replaces text/blocks/attachments. `blocks: undefined` keeps the old blocks, `[]` removes them (as chat.update). */
  update(
    channelRef: string,
    ts: string,
    patch: { text?: string | undefined; blocks?: unknown[] | undefined; attachments?: unknown[] | undefined },
    by?: string,
  ): Message | undefined {
    const message = this.message(channelRef, ts);
    if (!message) return undefined;
    if (patch.text !== undefined) message.text = patch.text;
    if (patch.blocks !== undefined) {
      if (patch.blocks.length === 0) delete message.blocks;
      else message.blocks = normalizeBlocks(clone(patch.blocks));
      message.state = {};
    }
    if (patch.attachments !== undefined) message.attachments = normalizeAttachments(clone(patch.attachments));
    message.updates += 1;
    message.edited = { user: by ?? message.user, ts: this.nextTs() };
    this.emit('change', { type: 'update', channel: message.channel, ts, message });
    return message;
  }

  remove(channelRef: string, ts: string): boolean {
    const channel = this.channel(channelRef);
    if (!channel) return false;
    const log = this.log(channel.id);
    const index = log.findIndex((m) => m.ts === ts);
    if (index < 0) return false;
    const [removed] = log.splice(index, 1);
    this.emit('change', { type: 'delete', channel: channel.id, ts });
    if (removed?.thread_ts && removed.thread_ts !== removed.ts && !removed.ephemeralTo) {
      const parent = log.find((m) => m.ts === removed.thread_ts);
      if (parent && parent.reply_count) {
        parent.reply_count -= 1;
        this.emit('change', { type: 'update', channel: channel.id, ts: parent.ts, message: parent });
      }
    }
    return true;
  }

  message(channelRef: string, ts: string): Message | undefined {
    const channel = this.channel(channelRef);
    if (!channel) return undefined;
    return this.log(channel.id).find((m) => m.ts === ts);
  }

  /** Every stored message of a channel (replies and ephemerals included), oldest first. */
  allMessages(channelRef: string): Message[] {
    const channel = this.channel(channelRef);
    return channel ? [...this.log(channel.id)] : [];
  }

  /**
   * What `user` sees in the channel's main view: top-level messages and broadcast replies,
   * plus that user's own ephemerals. Without a user: only what everyone sees.
   */
  visibleMessages(channelRef: string, user?: string): Message[] {
    return this.allMessages(channelRef).filter((m) => {
      if (m.ephemeralTo && m.ephemeralTo !== user) return false;
      const isReply = m.thread_ts !== undefined && m.thread_ts !== m.ts;
      return !isReply || m.reply_broadcast === true;
    });
  }

  /** The thread under `ts`: the parent first, then its replies (plus `user`'s ephemeral replies). */
  thread(channelRef: string, ts: string, user?: string): Message[] {
    return this.allMessages(channelRef).filter(
      (m) => (m.ts === ts || m.thread_ts === ts) && (!m.ephemeralTo || m.ephemeralTo === user),
    );
  }

  private log(channelId: string): Message[] {
    let log = this.messagesByChannel.get(channelId);
    if (!log) {
      log = [];
      this.messagesByChannel.set(channelId, log);
    }
    return log;
  }

  // ---- deliveries (recorded here so one event stream carries everything) -------------

  readonly deliveries: Delivery[] = [];

  recordDelivery(delivery: Delivery): void {
    if (!this.deliveries.includes(delivery)) this.deliveries.push(delivery);
    this.emit('change', { type: 'delivery', delivery });
  }
}
