/**
 * The offline Slack's in-memory workspace: one team, its users and channels, the
 * messages in each channel (threads, ephemerals, edits), open modals, and the
 * trigger_ids handed out. Every change is announced as a `change` event so a live
 * UI (and `waitFor` in tests) can follow along without polling.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { isRecord, SlackError, type Delivery, type Json } from './types.js';

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

export const TEAM: Team = { id: 'T_LOOKOUT', name: 'Lookout Sandbox', domain: 'lookout-sandbox' };
export const BOT = { userId: 'U_LOOKOUT_BOT', botId: 'B_LOOKOUT', appId: 'A_LOOKOUT', name: 'lookout' } as const;
export const SLACKBOT = 'USLACKBOT';

/** The app's bot in one workspace: the app id is the app's, the bot user and bot ids are the workspace's own. */
export interface BotIdentity {
  readonly userId: string;
  readonly botId: string;
  readonly appId: string;
  readonly name: string;
}

/** The second workspace: its own people, channels and bot user, nothing shared with the first but the app. */
export const OTHER_TEAM: Team = { id: 'T_OTHER', name: 'Other Co', domain: 'other-co' };
export const OTHER_BOT: BotIdentity = { userId: 'U_OTHER_BOT', botId: 'B_OTHER', appId: BOT.appId, name: 'lookout' };

const SEED_USERS: SlackUser[] = [
  { id: 'U_ALICE', name: 'alice', real_name: 'Alice Adler', tz: 'Europe/Berlin', is_bot: false },
  { id: 'U_BOB', name: 'bob', real_name: 'Bob Brown', tz: 'America/New_York', is_bot: false },
  { id: 'U_CAROL', name: 'carol', real_name: 'Carol Chen', tz: 'UTC', is_bot: false },
];

const SEED_CHANNELS: Array<Omit<Channel, 'created'>> = [
  { id: 'C_GENERAL', name: 'general', is_private: false, is_archived: false, is_member: true },
  { id: 'C_MARKETING', name: 'marketing', is_private: false, is_archived: false, is_member: true },
  { id: 'C_SECURITY', name: 'security', is_private: false, is_archived: false, is_member: true },
  { id: 'C_ARCHIVED', name: 'old-news', is_private: false, is_archived: true, is_member: false },
];

const OTHER_USERS: SlackUser[] = [
  { id: 'U_DANA', name: 'dana', real_name: 'Dana Diaz', tz: 'America/Los_Angeles', is_bot: false },
  { id: 'U_ERIK', name: 'erik', real_name: 'Erik Ek', tz: 'Europe/Stockholm', is_bot: false },
];

/** The app is not installed in Other Co at first, so its bot is in no channel there. */
const OTHER_CHANNELS: Array<Omit<Channel, 'created'>> = [
  { id: 'C_OTHER_GENERAL', name: 'general', is_private: false, is_archived: false, is_member: false },
  { id: 'C_OTHER_GROWTH', name: 'growth', is_private: false, is_archived: false, is_member: false },
];

/** What a workspace holds when it is made: who and where. */
export interface WorkspaceSeed {
  team: Team;
  bot: BotIdentity;
  users: readonly SlackUser[];
  channels: ReadonlyArray<Omit<Channel, 'created'>>;
}

export const LOOKOUT_SEED: WorkspaceSeed = { team: TEAM, bot: BOT, users: SEED_USERS, channels: SEED_CHANNELS };
export const OTHER_SEED: WorkspaceSeed = {
  team: OTHER_TEAM,
  bot: OTHER_BOT,
  users: OTHER_USERS,
  channels: OTHER_CHANNELS,
};

const TRIGGER_TTL_MS = 3000;
const MAX_VIEW_STACK = 3;

interface Trigger {
  user: string;
  issuedAt: number;
  used: boolean;
}

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

function randomId(length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** The UTC offset of `tz` at `atMs`, in seconds (what users.info calls tz_offset). */
export function tzOffsetSeconds(tz: string, atMs: number): number {
  const dtf = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const parts: Record<string, number> = {};
  for (const p of dtf.formatToParts(new Date(atMs))) parts[p.type] = Number(p.value);
  const asUtc = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return Math.round((asUtc - Math.floor(atMs / 1000) * 1000) / 1000);
}

export function tzLabel(tz: string, atMs: number): string {
  const part = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'long' })
    .formatToParts(new Date(atMs))
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? tz;
}

/** Compare two Slack timestamps ("1732200000.000100") numerically. */
export function compareTs(a: string, b: string): number {
  const [as = '0', af = '0'] = a.split('.');
  const [bs = '0', bf = '0'] = b.split('.');
  return Number(as) - Number(bs) || Number(af.padEnd(6, '0')) - Number(bf.padEnd(6, '0'));
}

/** A deep copy through JSON: what went over the wire, detached from the caller's objects. */
export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

export class Workspace extends EventEmitter<{ change: [WorkspaceChange] }> {
  readonly team: Team;
  readonly bot: BotIdentity;
  readonly users = new Map<string, SlackUser>();
  readonly channels = new Map<string, Channel>();
  readonly now: () => number;
  private readonly triggerTtlMs: number;
  private readonly messagesByChannel = new Map<string, Message[]>();
  private readonly views = new Map<string, View>();
  private readonly stacks = new Map<string, string[]>();
  private readonly triggers = new Map<string, Trigger>();
  /** Who is in each channel (people, and the bot when `is_member`). */
  private readonly memberships = new Map<string, Set<string>>();
  private lastMicros = 0;
  /** The app reaches this workspace through its organisation's org-wide install (OAuthServer.addToWorkspace). */
  orgWide = false;

  constructor(options: WorkspaceOptions = {}) {
    super();
    this.setMaxListeners(0);
    this.now = options.now ?? Date.now;
    this.triggerTtlMs = options.triggerTtlMs ?? TRIGGER_TTL_MS;
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

  // ---- triggers ---------------------------------------------------------------------

  /** A new trigger_id for `user`, good for one views.open/push within the trigger TTL. */
  issueTrigger(user: string): string {
    const id = `${Math.floor(this.now() / 1000)}${randomId(3, '0123456789')}.${randomId(11, '0123456789')}.${randomBytes(16).toString('hex')}`;
    this.triggers.set(id, { user, issuedAt: this.now(), used: false });
    return id;
  }

  /** Uses up a trigger_id: `invalid_trigger_id`, `expired_trigger_id` or `exchanged_trigger_id` when it cannot be used. */
  consumeTrigger(id: unknown): { user: string } {
    if (typeof id !== 'string' || id === '')
      throw new SlackError('invalid_arguments', { reasons: ['trigger_id: is required'] });
    const trigger = this.triggers.get(id);
    if (!trigger) throw new SlackError('invalid_trigger_id');
    if (this.now() - trigger.issuedAt > this.triggerTtlMs) throw new SlackError('expired_trigger_id');
    if (trigger.used) throw new SlackError('exchanged_trigger_id');
    trigger.used = true;
    return { user: trigger.user };
  }

  // ---- views ------------------------------------------------------------------------

  private readonly homes = new Map<string, { view: Json; publishedAt: number; publishes: number }>();

  /** Replaces `user`'s Home tab; what views.publish answers with. */
  publishHome(user: string, view: Json): Json {
    const before = this.homes.get(user);
    const id = `VH${user}`;
    const home = { ...view, id, type: 'home', hash: `${Date.now()}.${(before?.publishes ?? 0) + 1}` };
    this.homes.set(user, { view: home, publishedAt: Date.now(), publishes: (before?.publishes ?? 0) + 1 });
    this.emit('change', { type: 'home', user, view: home });
    return home;
  }

  /** `user`'s Home tab as last published, and how many times it was. */
  home(user: string): { view: Json; publishedAt: number; publishes: number } | undefined {
    return this.homes.get(user);
  }

  view(id: string): View | undefined {
    return this.views.get(id);
  }

  viewByExternalId(externalId: string): View | undefined {
    for (const v of this.views.values()) if (v.open && v.external_id === externalId) return v;
    return undefined;
  }

  /** The user's open modal stack, bottom first (the visible one is last). */
  openViews(user: string): View[] {
    return (this.stacks.get(user) ?? []).map((id) => this.views.get(id)).filter((v): v is View => v !== undefined);
  }

  /** Opens a new modal for `user`, replacing any stack they had open. */
  openView(user: string, input: Json): View {
    for (const v of this.openViews(user)) this.markClosed(v);
    const view = this.buildView(user, input, null, null);
    this.views.set(view.id, view);
    this.stacks.set(user, [view.id]);
    this.emit('change', { type: 'view_open', view });
    return view;
  }

  pushView(user: string, input: Json): View {
    const stack = this.stacks.get(user) ?? [];
    if (stack.length === 0) return this.openView(user, input);
    if (stack.length >= MAX_VIEW_STACK) throw new SlackError('push_limit_reached');
    const top = this.views.get(stack[stack.length - 1] ?? '');
    const view = this.buildView(user, input, top?.root_view_id ?? null, top?.id ?? null);
    this.views.set(view.id, view);
    stack.push(view.id);
    this.emit('change', { type: 'view_open', view });
    return view;
  }

  updateView(id: string, input: Json): View {
    const view = this.views.get(id);
    if (!view || !view.open) throw new SlackError('not_found');
    const fresh = this.buildView(view.user, input, view.root_view_id, view.previous_view_id, view.id);
    const keep = new Set(fresh.blocks.map((b) => String(b.block_id)));
    const values = Object.fromEntries(Object.entries(view.state.values).filter(([blockId]) => keep.has(blockId)));
    Object.assign(view, fresh, { state: { values }, errors: undefined });
    delete view.errors;
    this.emit('change', { type: 'view_update', view });
    return view;
  }

  /** Closes a view; `all` closes the whole stack it belongs to. Returns the views closed. */
  closeView(id: string, options: { all?: boolean } = {}): View[] {
    const view = this.views.get(id);
    if (!view || !view.open) return [];
    const stack = this.stacks.get(view.user) ?? [];
    const index = stack.indexOf(id);
    const from = options.all ? 0 : Math.max(index, 0);
    const closing = stack
      .splice(from)
      .map((vid) => this.views.get(vid))
      .filter((v): v is View => v !== undefined);
    for (const v of closing.reverse()) this.markClosed(v);
    return closing;
  }

  setViewErrors(id: string, errors: Record<string, string>): void {
    const view = this.views.get(id);
    if (!view) return;
    view.errors = { ...errors };
    this.emit('change', { type: 'view_update', view });
  }

  setViewState(id: string, blockId: string, actionId: string, state: Json): void {
    const view = this.views.get(id);
    if (!view) return;
    view.state.values[blockId] = { ...view.state.values[blockId], [actionId]: state };
  }

  private markClosed(view: View): void {
    if (!view.open) return;
    view.open = false;
    this.emit('change', { type: 'view_close', view });
  }

  private buildView(
    user: string,
    input: Json,
    rootId: string | null,
    previousId: string | null,
    reuseId?: string,
  ): View {
    const id = reuseId ?? `V${randomId(10)}`;
    const text = (v: unknown): Json | null => (isRecord(v) ? { emoji: true, ...clone(v) } : null);
    return {
      id,
      team_id: this.team.id,
      type: 'modal',
      title: text(input.title) ?? { type: 'plain_text', text: '' },
      submit: text(input.submit),
      close: text(input.close),
      blocks: normalizeBlocks(clone(Array.isArray(input.blocks) ? input.blocks : [])),
      private_metadata: typeof input.private_metadata === 'string' ? input.private_metadata : '',
      callback_id: typeof input.callback_id === 'string' ? input.callback_id : '',
      external_id: typeof input.external_id === 'string' ? input.external_id : '',
      hash: `${Math.floor(this.now() / 1000)}.${randomId(8, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`,
      clear_on_close: input.clear_on_close === true,
      notify_on_close: input.notify_on_close === true,
      state: { values: {} },
      root_view_id: rootId ?? id,
      previous_view_id: previousId,
      app_id: this.bot.appId,
      bot_id: this.bot.botId,
      user,
      open: true,
    };
  }

  // ---- deliveries (recorded here so one event stream carries everything) -------------

  readonly deliveries: Delivery[] = [];

  recordDelivery(delivery: Delivery): void {
    if (!this.deliveries.includes(delivery)) this.deliveries.push(delivery);
    this.emit('change', { type: 'delivery', delivery });
  }
}

/** Attachments' blocks get their ids as a message's do. */
export function normalizeAttachments(attachments: unknown[]): unknown[] {
  for (const a of attachments) if (isRecord(a) && Array.isArray(a.blocks)) a.blocks = normalizeBlocks(a.blocks);
  return attachments;
}

/**
 * Slack fills in a `block_id` for every block and an `action_id` for every interactive
 * element that lacks one; the stored message (and what the app gets back) carries them.
 */
export function normalizeBlocks(blocks: unknown[]): Json[] {
  const out: Json[] = [];
  for (const b of blocks) {
    if (!isRecord(b)) continue;
    if (b.block_id === undefined)
      b.block_id = randomId(5, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789');
    const withAction = (el: unknown): void => {
      if (
        isRecord(el) &&
        el.type !== 'image' &&
        el.action_id === undefined &&
        typeof el.type === 'string' &&
        !['plain_text', 'mrkdwn'].includes(el.type)
      ) {
        el.action_id = randomId(5, 'abcdefghijklmnopqrstuvwxyz0123456789');
      }
    };
    if (b.type === 'actions' && Array.isArray(b.elements)) b.elements.forEach(withAction);
    if (b.type === 'section') withAction(b.accessory);
    if (b.type === 'input') withAction(b.element);
    out.push(b);
  }
  return out;
}
