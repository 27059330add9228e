/**
 * What a distributed app meets at Slack: the OAuth v2 authorise page, `oauth.v2.access`
 * (codes, and refresh grants under token rotation), and the bot tokens it hands out, one
 * workspace each, which can expire or be revoked.
 *
 * Slack's pages behind each rule:
 * - https://docs.slack.dev/authentication/installing-with-oauth — the authorise URL, the
 *   redirect with `code` and `state` (or `error=access_denied`), the code "expires after ten minutes".
 * - https://api.slack.com/docs/oauth — `team`: "Slack team ID of a workspace to attempt to restrict
 *   to". Without it Slack's screen opens on a workspace the person is signed in to, with a menu
 *   to pick another. *Decision:* the workspace the browser last came from (the page's Add to
 *   Slack link sets a cookie for it), else workspace one.
 * - https://docs.slack.dev/reference/methods/oauth.v2.access — the answer's fields, client
 *   credentials by HTTP Basic auth or in the body, and the errors `invalid_client_id`,
 *   `bad_client_secret`, `invalid_code`, `bad_redirect_uri`, `invalid_grant_type`, `invalid_refresh_token`.
 * - https://docs.slack.dev/authentication/using-token-rotation — access tokens expire "every
 *   12 hours"; a refresh grant returns a new access token and a new refresh token, and "the
 *   refresh token is then revoked". The page does not say the old access token stops working
 *   before its expiry, and Slack's SDKs refresh ahead of it (python-slack-sdk's TokenRotator,
 *   two hours before): the old access token stays valid until it expires.
 * - https://docs.slack.dev/reference/methods/auth.test (errors table, as on every method):
 *   `invalid_auth`, `token_revoked`, `token_expired`, `not_authed`.
 * - Org-wide installs (Enterprise Grid): https://api.slack.com/enterprise/apps/changes-install — an Org
 *   Admin installs the app "across the entire organization" through the same OAuth flow; it "is not added
 *   to any workspaces in the organization" then, "the Org Admin must do this later" (`addToWorkspace`).
 *   https://api.slack.com/enterprise/apps/reference — `oauth.v2.access` answers `"team": null`, the
 *   `enterprise` and `"is_enterprise_install": true`. https://api.slack.com/enterprise/org-wide-apps — one
 *   token "that represents the permissions for the app on multiple workspaces". *Decision:* the authorise
 *   page offers each organisation beside its workspaces, as Slack's picker does for an Org Admin; anyone
 *   of the organisation's workspaces may pick it (the offline Slack has no admin roles).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseForm, readBody } from './http-util.js';
import { describeScope } from './scope-descriptions.js';
import { SlackError, type Json } from './types.js';
import type { Workspace } from './workspace.js';

/** The app as registered with Slack: what the authorise page and `oauth.v2.access` check. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  /** Shown on the authorise page. */
  name?: string;
  /** The redirect URLs the app registered; an authorise request must use one of them (the first when it names none). */
  redirectUris: string[];
  /** Token rotation: access tokens expire after 12 hours and come with a refresh token. */
  tokenRotation?: boolean;
}

/** A code lives ten minutes (Slack: "expires after ten minutes"). */
export const CODE_TTL_MS = 10 * 60_000;
/** An access token under token rotation lives 12 hours. */
export const ACCESS_TOKEN_TTL_S = 12 * 60 * 60;

interface TokenRecord {
  /** '' for an org-wide token. */
  teamId: string;
  /** An org-wide token's organisation. */
  enterpriseId?: string;
  scope: string;
  /** Epoch ms; unset for tokens that never expire. */
  expiresAt?: number;
  revoked: boolean;
}

interface CodeRecord {
  teamId: string;
  enterpriseId?: string;
  userId: string;
  scope: string;
  clientId: string;
  /** The redirect_uri the authorise request named, which the exchange must repeat. */
  redirectUri: string | undefined;
  issuedAt: number;
  used: boolean;
}

interface PendingAuthorize {
  clientId: string;
  scope: string;
  userScope: string;
  state: string;
  redirectUri: string;
  /** Whether the request named its redirect_uri (then the exchange must send the same). */
  named: boolean;
}

/**
 * The cookie that stands for the workspace the browser is signed in to: the page's Add to Slack
 * link sets it, and the authorise screen opens on that workspace when the request names none.
 */
export const SIGNED_IN_COOKIE = 'offline_slack_team';

function cookieOf(req: IncomingMessage | undefined): string {
  return req?.headers.cookie ?? '';
}

function signedInTeam(cookie: string): string {
  for (const part of cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SIGNED_IN_COOKIE) return decodeURIComponent(value.join('='));
  }
  return '';
}

export type TokenCheck = { ok: true; teamId: string; enterpriseId?: string } | { ok: false; error: string };

function random(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

function scopes(list: string): string[] {
  return list
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export class OAuthServer {
  private app: OAuthApp | undefined;
  private readonly tokens = new Map<string, TokenRecord>();
  /** Refresh token → the team and scope it renews; deleted once used. */
  private readonly refreshTokens = new Map<string, { teamId: string; enterpriseId?: string; scope: string }>();
  private readonly codes = new Map<string, CodeRecord>();
  private readonly pending = new Map<string, PendingAuthorize>();
  /** The workspaces the app is installed in: from a granted code until it is removed (a token expiring is not leaving). */
  private readonly installedIn = new Set<string>();
  /** The organisations that installed the app org-wide. */
  private readonly installedOrgs = new Set<string>();

  constructor(
    private readonly teams: ReadonlyMap<string, Workspace>,
    private readonly now: () => number,
  ) {}

  /** The registered app's redirect URLs, replaced; throws when no app is registered. */
  setRedirectUris(uris: string[]): void {
    if (!this.app) throw new Error('no app is registered for distribution: configureOAuth first');
    this.app = { ...this.app, redirectUris: [...uris] };
  }

  /** Registers the app (client id and secret, redirect URLs, token rotation). */
  configure(app: OAuthApp | undefined): void {
    this.app = app ? { ...app, redirectUris: [...app.redirectUris] } : undefined;
  }

  get registered(): OAuthApp | undefined {
    return this.app;
  }

  /** A bot token that never expires (the one `npm start` hands the app for workspace one). */
  addToken(token: string, teamId: string, scope = ''): void {
    this.tokens.set(token, { teamId, scope, revoked: false });
    this.installedIn.add(teamId);
  }

  /** Which workspace a token acts in, or the error Slack answers with. */
  check(token: string): TokenCheck {
    const record = this.tokens.get(token);
    if (!record) return { ok: false, error: 'invalid_auth' };
    if (record.revoked) return { ok: false, error: 'token_revoked' };
    if (record.expiresAt !== undefined && this.now() >= record.expiresAt) return { ok: false, error: 'token_expired' };
    return { ok: true, teamId: record.teamId, ...(record.enterpriseId ? { enterpriseId: record.enterpriseId } : {}) };
  }

  /** The workspaces of an organisation. */
  private orgTeams(enterpriseId: string): Workspace[] {
    return [...this.teams.values()].filter((w) => w.team.enterprise?.id === enterpriseId);
  }

  /** The Org Admin adds the org-wide installed app to one of the organisation's workspaces (changes-install, above). */
  addToWorkspace(teamId: string): void {
    const ws = this.teams.get(teamId);
    const org = ws?.team.enterprise?.id;
    if (!ws || !org || !this.installedOrgs.has(org))
      throw new Error(`the app is not installed org-wide in the organisation of ${teamId}`);
    ws.orgWide = true;
    this.installedIn.add(teamId);
  }

  /** auth.test of an org-wide token: the organisation, and the app's bot (that of the organisation's first workspace). */
  orgAuthTest(enterpriseId: string, url: string): Json {
    const ws = this.orgTeams(enterpriseId)[0];
    return {
      url,
      team: ws?.team.enterprise?.name ?? enterpriseId,
      user: ws?.bot.name,
      user_id: ws?.bot.userId,
      bot_id: ws?.bot.botId,
      enterprise_id: enterpriseId,
      is_enterprise_install: true,
    };
  }

  /**
   * The workspace an org-wide token acts in: the `team_id` the call names, if the app was added there
   * (https://api.slack.com/enterprise/apps/reference, "Sample API call with team_id"). Calls that name none get
   * `missing_argument`, and a workspace the app was not added to `team_access_not_granted` (on every method's errors table).
   */
  orgTeam(
    enterpriseId: string,
    teamId: string | undefined,
  ): { ok: true; teamId: string } | { ok: false; error: string } {
    if (!teamId) return { ok: false, error: 'missing_argument' };
    const ws = this.teams.get(teamId);
    if (!ws || ws.team.enterprise?.id !== enterpriseId || !ws.orgWide)
      return { ok: false, error: 'team_access_not_granted' };
    return { ok: true, teamId };
  }

  /** Whether the app is installed in the workspace. */
  installed(teamId: string): boolean {
    return this.installedIn.has(teamId);
  }

  /** The app leaves the workspace: every token of it (refresh tokens too) is revoked. */
  revokeTeam(teamId: string): void {
    for (const record of this.tokens.values()) if (record.teamId === teamId) record.revoked = true;
    for (const [token, record] of this.refreshTokens) if (record.teamId === teamId) this.refreshTokens.delete(token);
    this.installedIn.delete(teamId);
  }

  // ---- the authorise page ----------------------------------------------------------

  /** GET /oauth/v2/authorize: the consent screen, or an error page when the request is not the app's. */
  authorizePage(url: URL, res: ServerResponse, req?: IncomingMessage): void {
    const q = url.searchParams;
    const app = this.app;
    if (!app || q.get('client_id') !== app.clientId) return page(res, 400, 'Invalid client_id', 'invalid_client_id');
    const asked = q.get('redirect_uri') ?? '';
    const redirectUri = asked || app.redirectUris[0];
    if (
      !redirectUri ||
      !URL.canParse(redirectUri) ||
      (app.redirectUris.length > 0 && !app.redirectUris.includes(redirectUri))
    )
      return page(res, 400, 'The redirect_uri is not one the app registered', 'bad_redirect_uri');
    const teamId = q.get('team') || signedInTeam(cookieOf(req));
    const org = this.orgTeams(teamId);
    const team = org[0] ?? this.teams.get(teamId) ?? [...this.teams.values()][0];
    if (!team) return page(res, 400, 'No workspace', 'team_not_found');
    const installingOrg = org.length > 0 ? team.team.enterprise : undefined;
    const id = random(12);
    const scope = scopes(q.get('scope') ?? '').join(',');
    const userScope = scopes(q.get('user_scope') ?? '').join(',');
    this.pending.set(id, {
      clientId: app.clientId,
      scope,
      userScope,
      state: q.get('state') ?? '',
      redirectUri,
      named: asked !== '',
    });
    if (this.pending.size > 1000) this.pending.delete(this.pending.keys().next().value ?? '');
    const people = (installingOrg ? org : [team]).flatMap((w) => [...w.users.values()].filter((u) => !u.is_bot));
    const user = people.find((u) => u.id === q.get('user')) ?? people[0];
    const orgs = new Map(
      [...this.teams.values()].flatMap((w) =>
        w.team.enterprise ? [[w.team.enterprise.id, w.team.enterprise.name]] : [],
      ),
    );
    const options = [
      ...[...this.teams.values()].map(
        (w) =>
          `<option value="${escapeHtml(w.team.id)}"${w === team && !installingOrg ? ' selected' : ''}>${escapeHtml(w.team.name)}</option>`,
      ),
      ...[...orgs].map(
        ([id, name]) =>
          `<option value="${escapeHtml(id)}"${id === installingOrg?.id ? ' selected' : ''}>${escapeHtml(name)} (the whole organisation)</option>`,
      ),
    ].join('');
    // Another workspace is another request: the page never shows one workspace while answering for another.
    const keep = ['client_id', 'scope', 'user_scope', 'state', 'redirect_uri']
      .filter((k) => q.has(k))
      .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(q.get(k) ?? '')}">`)
      .join('');
    const names = { bot: team.bot.name, app: app.name ?? app.clientId };
    const list = scopes(scope)
      .map((s) => {
        const said = describeScope(s, names);
        return `<li>${said ? `${escapeHtml(said)} ` : ''}<code>${escapeHtml(s)}</code>${said ? '' : ' (a scope the offline Slack has no description of)'}</li>`;
      })
      .join('');
    const name = escapeHtml(app.name ?? app.clientId);
    const body = `<main class="authorize">
<h1><strong>${name}</strong> is requesting permission to access the <strong>${escapeHtml(installingOrg?.name ?? team.team.name)}</strong> Slack ${installingOrg ? 'organisation' : 'workspace'}</h1>
<form method="get" action="/oauth/v2/authorize" class="switch">${keep}
<label>Workspace <select name="team">${options}</select></label> <button type="submit">Switch</button>
</form>
<form method="post" action="/oauth/v2/authorize">
<input type="hidden" name="request" value="${id}">
<input type="hidden" name="team" value="${escapeHtml(installingOrg?.id ?? team.team.id)}">
<input type="hidden" name="user" value="${escapeHtml(user?.id ?? '')}">
<p>Installing as ${escapeHtml(user?.real_name ?? 'nobody')}.</p>
<h2>What will ${name} be able to do?</h2>
<ul class="scopes">${list || '<li>Nothing beyond identifying the workspace</li>'}</ul>
<button type="submit" name="decision" value="cancel">Cancel</button>
<button type="submit" name="decision" value="allow">Allow</button>
</form>
</main>`;
    page(res, 200, `Install ${app.name ?? app.clientId}`, undefined, body);
  }

  /** POST /oauth/v2/authorize: Allow redirects with a code and the state, Cancel with `error=access_denied`. */
  async decide(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = parseForm(await readBody(req));
    const pending = this.pending.get(form.request ?? '');
    if (!pending) return page(res, 400, 'This authorisation has expired or was already answered', 'invalid_request');
    this.pending.delete(form.request ?? '');
    const org = this.orgTeams(form.team ?? '');
    const team = org[0] ?? this.teams.get(form.team ?? '');
    const enterpriseId = org.length > 0 ? form.team : undefined;
    const target = new URL(pending.redirectUri);
    if (form.decision !== 'allow' || !team) {
      target.searchParams.set('error', 'access_denied');
    } else {
      const people = (enterpriseId ? org : [team]).flatMap((w) => [...w.users.values()].filter((u) => !u.is_bot));
      const installer = people.find((u) => u.id === form.user) ?? people[0];
      const code = `${enterpriseId ?? team.team.id}.${random(16)}`;
      this.codes.set(code, {
        teamId: enterpriseId ? '' : team.team.id,
        ...(enterpriseId ? { enterpriseId } : {}),
        userId: installer?.id ?? '',
        scope: pending.scope,
        clientId: pending.clientId,
        redirectUri: pending.named ? pending.redirectUri : undefined,
        issuedAt: this.now(),
        used: false,
      });
      target.searchParams.set('code', code);
    }
    target.searchParams.set('state', pending.state);
    res.writeHead(302, { location: target.toString(), 'content-length': 0 });
    res.end();
  }

  // ---- oauth.v2.access -------------------------------------------------------------

  /** `oauth.v2.access`: a code (or, under rotation, a refresh token) for a bot token. */
  access(args: Json, authorization: string | undefined): Json {
    const app = this.app;
    let clientId = typeof args.client_id === 'string' ? args.client_id : undefined;
    let clientSecret = typeof args.client_secret === 'string' ? args.client_secret : undefined;
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice('Basic '.length).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) {
        clientId = decodeURIComponent(decoded.slice(0, colon));
        clientSecret = decodeURIComponent(decoded.slice(colon + 1));
      }
    }
    if (!app || clientId !== app.clientId) throw new SlackError('invalid_client_id');
    if (clientSecret !== app.clientSecret) throw new SlackError('bad_client_secret');
    const grant =
      typeof args.grant_type === 'string' && args.grant_type !== '' ? args.grant_type : 'authorization_code';
    if (grant === 'refresh_token') return this.refresh(app, args);
    if (grant !== 'authorization_code') throw new SlackError('invalid_grant_type');

    const code = typeof args.code === 'string' ? this.codes.get(args.code) : undefined;
    if (!code || code.used || code.clientId !== app.clientId || this.now() - code.issuedAt > CODE_TTL_MS)
      throw new SlackError('invalid_code');
    const redirectUri =
      typeof args.redirect_uri === 'string' && args.redirect_uri !== '' ? args.redirect_uri : undefined;
    if (code.redirectUri !== undefined && redirectUri !== code.redirectUri) throw new SlackError('bad_redirect_uri');
    code.used = true;
    if (code.enterpriseId) {
      this.installedOrgs.add(code.enterpriseId);
      return this.grant(app, { enterpriseId: code.enterpriseId }, code.scope, code.userId);
    }
    this.installedIn.add(code.teamId);
    return this.grant(app, { teamId: code.teamId }, code.scope, code.userId);
  }

  private refresh(app: OAuthApp, args: Json): Json {
    const token = typeof args.refresh_token === 'string' ? args.refresh_token : '';
    const record = this.refreshTokens.get(token);
    if (!app.tokenRotation || !record) throw new SlackError('invalid_refresh_token');
    this.refreshTokens.delete(token);
    const to = record.enterpriseId ? { enterpriseId: record.enterpriseId } : { teamId: record.teamId };
    return this.grant(app, to, record.scope, undefined);
  }

  private grant(
    app: OAuthApp,
    to: { teamId: string } | { enterpriseId: string },
    scope: string,
    userId: string | undefined,
  ): Json {
    const enterpriseId = 'enterpriseId' in to ? to.enterpriseId : undefined;
    const teamId = 'teamId' in to ? to.teamId : '';
    const team = enterpriseId ? this.orgTeams(enterpriseId)[0] : this.teams.get(teamId);
    if (!team) throw new SlackError('invalid_code');
    const rotating = app.tokenRotation === true;
    const accessToken = rotating ? `xoxe.xoxb-1-${random(24)}` : `xoxb-${enterpriseId ?? teamId}-${random(24)}`;
    this.tokens.set(accessToken, {
      teamId,
      ...(enterpriseId ? { enterpriseId } : {}),
      scope,
      revoked: false,
      ...(rotating ? { expiresAt: this.now() + ACCESS_TOKEN_TTL_S * 1000 } : {}),
    });
    const answer: Json = {
      app_id: team.bot.appId,
      authed_user: userId ? { id: userId } : {},
      scope,
      token_type: 'bot',
      access_token: accessToken,
      bot_user_id: team.bot.userId,
      team: enterpriseId ? null : { id: team.team.id, name: team.team.name },
      enterprise: team.team.enterprise ? { ...team.team.enterprise } : null,
      is_enterprise_install: enterpriseId !== undefined,
    };
    if (rotating) {
      const refreshToken = `xoxe-1-${random(24)}`;
      this.refreshTokens.set(refreshToken, { teamId, ...(enterpriseId ? { enterpriseId } : {}), scope });
      answer.refresh_token = refreshToken;
      answer.expires_in = ACCESS_TOKEN_TTL_S;
    }
    return answer;
  }
}

function page(res: ServerResponse, status: number, title: string, error?: string, body?: string): void {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<link rel="icon" href="/ui/assets/favicon.svg" type="image/svg+xml">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}
button{font:inherit;padding:.5rem 1.2rem;margin-right:.5rem}button[value=allow]{background:#007a5a;color:#fff;border:0}</style>
</head><body>${body ?? `<main><h1>${escapeHtml(title)}</h1><p><code>${escapeHtml(error ?? '')}</code></p></main>`}</body></html>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html) });
  res.end(html);
}
