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
import { toJsonPointerMessage } from '@lookout/slack-rules/validate';
import { contentType, parseForm, readBody, sendJson } from './http-util.js';
import type { MethodTiers, RateLimiter } from './rate-limit.js';
import { isRecord, SlackError, type Json } from './types.js';
import type { Workspace } from './workspace.js';
import type { SocketModeHub } from './socket-mode.js';
import type { OAuthServer } from './oauth.js';
import { str, TeamMethods } from './team-methods.js';
import { apiChannel } from './api-objects.js';

/**
 * An injected failure: an error code (HTTP 200, `ok: false`), an HTTP status (429 gets
 * Retry-After), `hang`: the request is never answered (until the server closes), or
 * `answerAfterMs`: the call is carried out, but its answer is held that long (the caller
 * may give up, or die, after Slack accepted it).
 */
export type InjectedFailure =
  string | { status: number; retryAfter?: number; error?: string } | { answerAfterMs: number };

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
