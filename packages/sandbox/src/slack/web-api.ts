/**
 * The Web API subset the app uses, at `POST /api/<method>`, answering as Slack does:
 * HTTP 200 with `{ ok: true, … }` or `{ ok: false, error }`, and 429 + `Retry-After`
 * when chat.postMessage runs over its per-channel rate.
 *
 * Requests may be form-encoded (what @slack/web-api sends, with `blocks`/`view`/
 * `attachments` JSON-stringified inside fields) or JSON; the token comes as
 * `Authorization: Bearer …` or a `token` field.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  toJsonPointerMessage,
  validateHomeView,
  validateMessage,
  validateMessageText,
  validateView,
} from '@lookout/slack-rules/validate';
import { contentType, parseForm, readBody, sendJson } from './http-util.js';
import type { MethodTiers, RateLimiter } from './rate-limit.js';
import { isRecord, SlackError, type Json } from './types.js';
import { tzLabel, tzOffsetSeconds } from './time-zones.js';
import { type Channel, type Message, type View, type Workspace } from './workspace.js';
import type { SocketModeHub } from './socket-mode.js';
import type { OAuthServer } from './oauth.js';

/**
 * An injected failure: an error code (HTTP 200, `ok: false`), an HTTP status (429 gets
 * Retry-After), `hang`: the request is never answered (until the server closes), or
 * `answerAfterMs`: the call is carried out, but its answer is held that long (the caller
 * may give up, or die, after Slack accepted it).
 */
export type InjectedFailure =
  string | { status: number; retryAfter?: number; error?: string } | 'hang' | { answerAfterMs: number };

interface FailureRule {
  failure: InjectedFailure;
  /** Only calls for this channel (by id or name); any channel when unset. */
  channel?: string;
  /** Calls left to fail. */
  left: number;
}

export interface ApiCall {
  method: string;
  /** The arguments, without the token. */
  args: Json;
  ok: boolean;
  error?: string;
  status: number;
  at: number;
}

export interface WebApiOptions {
  /** The default workspace (the one failures by channel name and unauthenticated calls count against). */
  workspace: Workspace;
  /** Every workspace, by team id: a token acts in its own. */
  teams: ReadonlyMap<string, Workspace>;
  /** The tokens and `oauth.v2.access`. */
  oauth: OAuthServer;
  /** The server's base URL (for auth.test's `url` and permalinks). */
  baseUrl: () => string;
  rateLimiter: RateLimiter;
  /** Slack's method tiers, per workspace. */
  tiers: MethodTiers;
  /** Socket Mode: `apps.connections.open` hands out its URLs (with the app-level token). */
  socket?: SocketModeHub;
}

type Handler = (args: Json, m: TeamMethods) => Json | Promise<Json>;

const MAX_CALLS_KEPT = 1000;

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

function str(args: Json, key: string): string | undefined {
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
  return blocks;
}

function attachmentsField(args: Json): unknown[] | undefined {
  const attachments = jsonField(args, 'attachments', 'invalid_attachments');
  if (attachments === undefined) return undefined;
  if (!Array.isArray(attachments)) throw new SlackError('invalid_attachments');
  return attachments;
}

function checkMessage(blocks: unknown[] | undefined, attachments: unknown[] | undefined): void {
  const result = validateMessage({ blocks, attachments });
  if (!result.ok) throw new SlackError('invalid_blocks', { reasons: result.reasons });
}

/** The extra fields Slack puts next to a validation error. */
export function errorExtras(error: SlackError): Json {
  const { reasons, ...rest } = error.extra;
  if (!Array.isArray(reasons)) return rest;
  const strings = reasons.map(String);
  return { ...rest, errors: strings, response_metadata: { messages: strings.map(toJsonPointerMessage) } };
}

export class WebApi {
  readonly calls: ApiCall[] = [];
  private readonly failures = new Map<string, FailureRule[]>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly handlers: Record<string, Handler>;
  private readonly ws: Workspace;
  private readonly methodsByTeam = new Map<string, TeamMethods>();

  constructor(private readonly options: WebApiOptions) {
    this.ws = options.workspace;
    for (const [teamId, ws] of options.teams) this.methodsByTeam.set(teamId, new TeamMethods(ws, options));
    this.handlers = {
      'api.test': (args) => {
        const { token: _token, ...rest } = args;
        return Object.keys(rest).length > 0 ? { args: rest } : {};
      },
      'auth.test': (_args, m) => m.authTest(),
      'chat.postMessage': (args, m) => m.postMessage(args),
      'chat.postEphemeral': (args, m) => m.postEphemeral(args),
      'chat.update': (args, m) => m.update(args),
      'chat.delete': (args, m) => m.delete(args),
      'chat.getPermalink': (args, m) => m.getPermalink(args),
      'views.open': (args, m) => m.viewsOpen(args, 'open'),
      'views.push': (args, m) => m.viewsOpen(args, 'push'),
      'views.update': (args, m) => m.viewsUpdate(args),
      'views.publish': (args, m) => m.viewsPublish(args),
      'conversations.info': (args, m) => ({ channel: apiChannel(m.visibleChannel(args)) }),
      'conversations.join': (args, m) => m.join(args),
      'conversations.list': (args, m) => m.list(args),
      'conversations.history': (args, m) => m.history(args),
      'conversations.replies': (args, m) => m.replies(args),
      'users.info': (args, m) => m.usersInfo(args),
      'conversations.members': (args, m) => m.members(args),
      'apps.connections.open': () => ({}),
      'oauth.v2.access': () => ({}),
    };
  }

  /** Methods this Web API answers. */
  get methods(): string[] {
    return Object.keys(this.handlers);
  }

  /**
   * Makes the next `times` calls of `method` (Infinity: every call; with `channel`: only
   * those for that channel) fail with `failure`, before any other check.
   */
  failNext(method: string, failure: InjectedFailure, times = 1, options: { channel?: string } = {}): void {
    const rules = this.failures.get(method) ?? [];
    rules.push({ failure, left: times, ...(options.channel ? { channel: options.channel } : {}) });
    this.failures.set(method, rules);
  }

  /** Removes every injected failure and answers the hanging calls as Slack's own trouble would (HTTP 503). */
  clearFailures(): void {
    this.failures.clear();
    for (const res of this.hanging)
      if (!res.writableEnded) sendJson(res, 503, { ok: false, error: 'service_unavailable' });
    this.hanging.clear();
  }

  private takeFailure(method: string, args: Json): InjectedFailure | undefined {
    const rules = this.failures.get(method);
    if (!rules) return undefined;
    const ref = str(args, 'channel');
    const target = ref ? (this.ws.channel(ref)?.id ?? ref) : undefined;
    const rule = rules.find(
      (r) => r.left > 0 && (!r.channel || (this.ws.channel(r.channel)?.id ?? r.channel) === target),
    );
    if (!rule) return undefined;
    rule.left--;
    return rule.failure;
  }

  async handle(method: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    let args: Json = {};
    let token: string | undefined;
    const reply = (status: number, body: Json, headers: Record<string, string> = {}): void => {
      const { token: _token, ...safeArgs } = args;
      this.calls.push({
        method,
        args: safeArgs,
        ok: body.ok === true,
        status,
        at: this.ws.now(),
        ...(typeof body.error === 'string' ? { error: body.error } : {}),
      });
      if (this.calls.length > MAX_CALLS_KEPT) this.calls.splice(0, this.calls.length - MAX_CALLS_KEPT);
      sendJson(res, status, body, headers);
    };
    try {
      const raw = await readBody(req);
      const type = contentType(req);
      if (type === 'application/json') {
        const parsed: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
        if (!isRecord(parsed)) throw new SlackError('invalid_json');
        args = parsed;
      } else if (type === 'multipart/form-data') {
        throw new SlackError('invalid_form_data');
      } else {
        args = parseForm(raw);
      }
      const auth = req.headers.authorization;
      token = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : str(args, 'token');
    } catch (error) {
      reply(200, { ok: false, error: error instanceof SlackError ? error.code : 'invalid_json' });
      return;
    }

    const handler = this.handlers[method];
    if (!handler) return reply(200, { ok: false, error: 'unknown_method', req_method: method });

    let injected = this.takeFailure(method, args);
    let holdMs = 0;
    if (injected !== undefined && typeof injected === 'object' && 'answerAfterMs' in injected) {
      holdMs = injected.answerAfterMs;
      injected = undefined;
    }
    if (injected !== undefined) {
      if (injected === 'hang') {
        this.hanging.add(res);
        res.once('close', () => this.hanging.delete(res));
        return;
      }
      if (typeof injected === 'string') return reply(200, { ok: false, error: injected });
      if (injected.status === 429) {
        return reply(
          429,
          { ok: false, error: injected.error ?? 'ratelimited' },
          { 'retry-after': String(injected.retryAfter ?? 1) },
        );
      }
      return reply(injected.status, { ok: false, error: injected.error ?? 'internal_error' });
    }

    let checked = token ? this.options.oauth.check(token) : undefined;
    if (checked?.ok && checked.enterpriseId) {
      // auth.test takes no team_id (https://docs.slack.dev/reference/methods/auth.test: no argument but the token) and
      // says whether the token is org-wide (`is_enterprise_install`): Bolt's InstallProvider asks it at an org-wide install.
      if (method === 'auth.test' && !str(args, 'team_id'))
        return reply(200, {
          ok: true,
          ...this.options.oauth.orgAuthTest(checked.enterpriseId, `${this.options.baseUrl()}/`),
        });
      // Any other call of an org-wide token acts in the workspace it names (OAuthServer.orgTeam).
      checked = this.options.oauth.orgTeam(checked.enterpriseId, str(args, 'team_id'));
    }
    const teamId = checked?.ok ? checked.teamId : this.ws.team.id;
    const tier = this.options.tiers.take(method, teamId);
    if (!tier.ok) return reply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(tier.retryAfter) });

    const methods = this.methodsByTeam.get(teamId);
    if (!methods) return reply(200, { ok: false, error: 'team_not_found' });
    if (method === 'api.test') return reply(200, { ok: true, ...(await handler(args, methods)) });
    if (method === 'oauth.v2.access') {
      try {
        return reply(200, { ok: true, ...this.options.oauth.access(args, req.headers.authorization) });
      } catch (error) {
        return reply(200, { ok: false, error: error instanceof SlackError ? error.code : 'internal_error' });
      }
    }
    if (method === 'apps.connections.open') {
      if (!token) return reply(200, { ok: false, error: 'not_authed' });
      if (!this.options.socket || token !== this.options.socket.appToken)
        return reply(200, { ok: false, error: 'invalid_auth' });
      return reply(200, { ok: true, url: this.options.socket.open() });
    }
    if (!token || !checked) return reply(200, { ok: false, error: 'not_authed' });
    if (!checked.ok) return reply(200, { ok: false, error: checked.error });

    if (method === 'chat.postMessage') {
      const ref = str(args, 'channel') ?? '';
      // Per channel of the calling workspace: Slack's limits are per workspace per app (https://docs.slack.dev/apis/web-api/rate-limits).
      const limited = this.options.rateLimiter.take(`chat.postMessage:${teamId}:${methods.ws.channel(ref)?.id ?? ref}`);
      if (!limited.ok)
        return reply(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(limited.retryAfter) });
    }
    try {
      const result = await handler(args, methods);
      if (holdMs > 0) await new Promise((r) => setTimeout(r, holdMs));
      if (res.destroyed) return;
      reply(200, { ok: true, ...result });
    } catch (error) {
      if (error instanceof SlackError) return reply(200, { ok: false, error: error.code, ...errorExtras(error) });
      reply(200, {
        ok: false,
        error: 'internal_error',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

/** The Web API methods, acting in one workspace: the one the calling token belongs to. */
class TeamMethods {
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
