/**
 * The offline Slack: a real HTTP server that behaves like Slack towards a Slack app.
 *
 *   POST /api/<method>      the Web API subset (point the app's `clientOptions.slackApiUrl` at `apiUrl`)
 *   POST /response/<id>     response_url endpoints
 *   GET  /, /ui/…           the browser UI (ui-routes.ts)
 *   anything else           routes added later (`router.add`) or the `extraRoutes` fallback (a browser UI)
 *
 * and it sends signed slash commands and interactions to the app's request URL through
 * the driver methods (`slash`, `click`, `select`, `submit`, …).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Deliverer } from './delivery.js';
import { SlackDriver } from './driver.js';
import { HttpError, sendJson, sendText } from './http-util.js';
import { DEFAULT_RATE_LIMIT, MethodTiers, RateLimiter, type RateLimitOptions } from './rate-limit.js';
import { ResponseUrls } from './response-url.js';
import { mountUiRoutes } from './ui-routes.js';
import { NO_SUGGESTIONS, type Suggestions } from './suggestions.js';
import { WebApi, type InjectedFailure } from './web-api.js';
import { LOOKOUT_SEED, OTHER_SEED, extraSeed, type ExtraWorkspace } from './seeds.js';
import { Workspace } from './workspace.js';
import { SocketModeHub } from './socket-mode.js';
import { OAuthServer, type OAuthApp } from './oauth.js';
import type { Delivery } from './types.js';
import { type ExtraRoutes, Router } from './router.js';
import { PageHold } from './page-hold.js';

export interface OfflineSlackOptions {
  port?: number;
  host?: string;
  /** The app's signing secret: every delivery is signed with it. */
  signingSecret: string;
  /** Workspace one's bot token (the app installed there from the start; it never expires). */
  botToken: string;
  /**
   * Whether the app is installed in workspace one from the start, with `botToken` (default true).
   * False: it is installed only through OAuth, its bot in no channel until then, as in Other Co.
   */
  installed?: boolean;
  /** The app as registered for distribution (client id and secret, redirect URLs, token rotation); settable later with configureOAuth. */
  oauth?: OAuthApp;
  /** The app's request URL (e.g. http://127.0.0.1:3000/slack/events); settable later with setAppUrl. */
  appUrl?: string;
  /** chat.postMessage per-channel token bucket (default burst 5, 1 per second); false turns it off, and the method tiers too. */
  rateLimit?: RateLimitOptions | false;
  /** Slack's method tiers, per method per workspace (default on unless rateLimit is false). */
  methodTiers?: boolean;
  /** The workspace clock (message ts, trigger and response_url expiry, rate buckets). Signatures use the real clock. */
  now?: () => number;
  /** How long the app has to answer a request (Slack: 3000 ms). */
  ackTimeoutMs?: number;
  /** Waits before the Events API's retries of an unanswered event (default Slack's: at once, 1 min, 5 min). */
  eventRetryDelaysMs?: readonly number[];
  /** How long a trigger_id stays usable (Slack: 3000 ms). */
  triggerTtlMs?: number;
  /** response_url limits (Slack: 5 uses within 30 minutes). */
  responseUrl?: { maxUses?: number; ttlMs?: number };
  /** The deprecated verification token put into payloads. */
  verificationToken?: string;
  /** Answers requests no route matched (e.g. a browser UI). */
  extraRoutes?: ExtraRoutes;
  /** Socket Mode: the app-level token `apps.connections.open` takes; requests then go to the app's WebSocket, not a URL. */
  appToken?: string;
  /**
   * Further workspaces beside the two built in (benchmarks of many workspaces): each its own team,
   * channels (the bot a member of each), and a bot token that never expires, installed from the start.
   */
  workspaces?: ExtraWorkspace[];
  /** What the page's composer suggests (the app's commands); settable later with setSuggestions. */
  suggestions?: Suggestions;
}

/** A demo analytics account's address and key (made up for the run, never a real account's). */
export interface DemoAccountNote {
  baseUrl: string;
  apiKey: string;
}

export class OfflineSlack extends SlackDriver {
  /** Base URL, no trailing slash. */
  readonly url: string;
  /** What the app passes as `clientOptions.slackApiUrl`. */
  readonly apiUrl: string;
  readonly router = new Router();
  private appUrlValue: string | undefined;
  private installUrlValue: string | undefined;
  private suggestionsValue: Suggestions = NO_SUGGESTIONS;
  private readonly demoAccounts = new Map<string, DemoAccountNote>();
  private closed = false;
  /** The page's requests, held while the app starts behind it. */
  readonly page = new PageHold();

  constructor(
    readonly server: Server,
    url: string,
    workspace: Workspace,
    deliverer: Deliverer,
    readonly webApi: WebApi,
    readonly responseUrls: ResponseUrls,
    private readonly rateLimiter: RateLimiter,
    private readonly tiers: MethodTiers,
    appUrl: string | undefined,
    /** Socket Mode's connections, when the offline Slack serves an app in Socket Mode. */
    readonly socket: SocketModeHub | undefined,
    /** The authorise page, `oauth.v2.access` and every workspace's tokens. */
    readonly oauth: OAuthServer,
    /** Each workspace's driver, by team id (workspace one's is this object). */
    private readonly drivers: ReadonlyMap<string, SlackDriver> = new Map(),
  ) {
    super(workspace, deliverer);
    this.url = url;
    this.apiUrl = `${url}/api/`;
    this.appUrlValue = appUrl;
  }

  /** Every workspace's driver, workspace one (the default) first. */
  get teams(): SlackDriver[] {
    return [this, ...[...this.drivers.values()].filter((d) => d.workspace !== this.workspace)];
  }

  /** The driver of one workspace (`T_LOOKOUT`, `T_OTHER`): slash commands, clicks and messages there. */
  team(teamId: string): SlackDriver {
    if (teamId === this.workspace.team.id) return this;
    const driver = this.drivers.get(teamId);
    if (!driver) throw new Error(`no workspace ${teamId}`);
    return driver;
  }

  /** Registers the app for distribution (or removes it): what the authorise page and `oauth.v2.access` accept. */
  configureOAuth(app: OAuthApp | undefined): void {
    this.oauth.configure(app);
  }

  /**
   * An Org Admin adds the app, installed org-wide, to a workspace of the organisation: from then on its
   * requests say `is_enterprise_install` and the org's token acts there (https://api.slack.com/enterprise/apps/changes-install).
   */
  addToWorkspace(teamId: string): void {
    this.oauth.addToWorkspace(teamId);
  }

  /**
   * The workspace removes the app: its tokens are revoked at once and its bot user leaves
   * every channel (as a revoked bot token does: https://docs.slack.dev/reference/methods/auth.revoke),
   * then the app gets
   * `tokens_revoked` (the bot user's id under `bot`) and `app_uninstalled`, signed like
   * every event (https://docs.slack.dev/reference/events/tokens_revoked,
   * https://docs.slack.dev/reference/events/app_uninstalled). Returns every delivery attempt.
   */
  async uninstall(teamId: string): Promise<Delivery[]> {
    const driver = this.team(teamId);
    this.oauth.revokeTeam(teamId);
    driver.workspace.removeBot();
    const revoked = await driver.deliverEvent({
      type: 'tokens_revoked',
      tokens: { bot: [driver.workspace.bot.userId] },
    });
    const uninstalled = await driver.deliverEvent({ type: 'app_uninstalled' });
    return [...revoked, ...uninstalled];
  }

  /**
   * The redirect URLs the app registered (its `/slack/oauth_redirect`, known once it listens); an
   * authorise request must name one of them or none (https://docs.slack.dev/authentication/installing-with-oauth).
   */
  setRedirectUris(uris: string[]): void {
    this.oauth.setRedirectUris(uris);
  }

  /** The app's install page (its `/slack/install`), where the page's Add to Slack link leads. */
  get installUrl(): string | undefined {
    return this.installUrlValue;
  }

  /** What the page's composer suggests: the app's commands, their words and examples. */
  get suggestions(): Suggestions {
    return this.suggestionsValue;
  }

  setSuggestions(suggestions: Suggestions): void {
    this.suggestionsValue = suggestions;
  }

  setInstallUrl(url: string): void {
    this.installUrlValue = url;
  }

  /** The demo analytics account a workspace's page shows, for a person to connect the app to by hand. */
  demoAccount(teamId: string): DemoAccountNote | undefined {
    return this.demoAccounts.get(teamId);
  }

  setDemoAccount(teamId: string, account: DemoAccountNote): void {
    const { team } = this.team(teamId).workspace;
    this.demoAccounts.set(team.id, { baseUrl: account.baseUrl, apiKey: account.apiKey });
  }

  /**
   * A person of `teamId` installs the app as they would in a browser: its install page (and the
   * cookies it sets), the link from it to the authorise screen, Allow, and the redirect back to
   * the app with the cookies. Returns the page the app ends on.
   */
  async installApp(teamId: string, userId: string): Promise<{ status: number; html: string }> {
    const installUrl = this.installUrlValue;
    if (!installUrl) throw new Error('the app has no install page: setInstallUrl first');
    const jar = new Map<string, string>();
    const keep = (res: Response) => {
      for (const set of res.headers.getSetCookie()) {
        const pair = set.split(';')[0] ?? '';
        const at = pair.indexOf('=');
        if (at > 0) jar.set(pair.slice(0, at).trim(), pair.slice(at + 1));
      }
    };
    const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const start = await fetch(installUrl, { redirect: 'manual' });
    keep(start);
    const page = await start.text();
    const authorizePage = `${this.url}/oauth/v2/authorize`;
    const href = [...page.matchAll(/href="([^"]+)"/g)]
      .map((m) => (m[1] ?? '').replace(/&amp;/g, '&'))
      .find((h) => h.startsWith(`${authorizePage}?`));
    if (!href) throw new Error(`the install page (${start.status}) has no link to the authorise screen`);
    const authorize = new URL(href);
    authorize.searchParams.set('team', teamId);
    authorize.searchParams.set('user', userId);
    const consent = await (await fetch(authorize)).text();
    const request = /name="request" value="([^"]+)"/.exec(consent)?.[1];
    if (!request) throw new Error('the authorise screen did not open');
    const decided = await fetch(authorizePage, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request, team: teamId, user: userId, decision: 'allow' }).toString(),
    });
    const back = decided.headers.get('location');
    if (!back) throw new Error(`the authorise screen did not redirect (${decided.status})`);
    const done = await fetch(back, { headers: { cookie: cookie() }, redirect: 'manual' });
    return { status: done.status, html: await done.text() };
  }

  get appUrl(): string | undefined {
    return this.appUrlValue;
  }

  /** Where slash commands and interactions go (the app's `/slack/events`). */
  setAppUrl(url: string): void {
    this.appUrlValue = url.replace(/\/+$/, '') || url;
  }

  /** chat.postMessage's per-channel bucket; false turns the method tiers off too. */
  setRateLimit(options: RateLimitOptions | false): void {
    this.rateLimiter.configure(options);
    if (options === false) this.tiers.configure(false);
  }

  /** Slack's method tiers (slack-rules/rules.ts), on or off. */
  setMethodTiers(on: boolean): void {
    this.tiers.configure(on);
  }

  /**
   * Makes the next `times` calls of a Web API method fail (Infinity: until cleared; with
   * `channel`, only calls for that channel): an error code, `{ status, retryAfter }`, or 'hang'.
   */
  failNext(method: string, failure: InjectedFailure, times = 1, options: { channel?: string } = {}): void {
    this.webApi.failNext(method, failure, times, options);
  }

  /** Ends every injected failure; hanging calls are answered with HTTP 503. */
  clearFailures(): void {
    this.webApi.clearFailures();
  }

  /** Stops the server, ending keep-alive connections. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const done = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.socket?.close();
    this.server.closeAllConnections();
    await Promise.all([done, ...this.teams.map((d) => d.closeDeliveries())]);
    for (const d of this.teams) d.workspace.removeAllListeners();
  }
}

export async function startOfflineSlack(options: OfflineSlackOptions): Promise<OfflineSlack> {
  if (!options.signingSecret) throw new Error('startOfflineSlack needs a signingSecret');
  if (!options.botToken) throw new Error('startOfflineSlack needs a botToken');
  const teamIds = [LOOKOUT_SEED, OTHER_SEED, ...(options.workspaces ?? [])].map((w) => w.team.id);
  if (new Set(teamIds).size !== teamIds.length) throw new Error('two workspaces have the same team id');
  const now = options.now ?? Date.now;
  const host = options.host ?? '127.0.0.1';
  const holder: { slack?: OfflineSlack } = {};

  const server = createServer((req, res) => {
    void route(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof HttpError) sendText(res, error.status, error.body);
      else
        sendJson(res, 500, {
          ok: false,
          error: 'internal_error',
          detail: error instanceof Error ? error.message : String(error),
        });
    });
  });
  server.keepAliveTimeout = 5_000;

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const slack = holder.slack;
    if (!slack) return sendText(res, 503, 'starting');
    const url = new URL(req.url ?? '/', slack.url);
    const method = (req.method ?? 'GET').toUpperCase();
    const problem = slack.page.held(url.pathname) && (await slack.page.held(url.pathname));
    if (problem) return sendJson(res, 503, { ok: false, error: 'app_not_started', detail: problem });
    const found = slack.router.match(method, url.pathname);
    if (found) return found.handler(req, res, { url, params: found.params, slack });
    if (options.extraRoutes && (await options.extraRoutes(req, res, { url, slack }))) return;
    if (url.pathname.startsWith('/api/') || url.pathname.startsWith('/response/')) {
      return sendText(res, 405, 'method_not_allowed', { allow: 'POST' });
    }
    sendText(res, 404, 'not_found');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const baseUrl = `http://${hostForUrl}:${address.port}`;

  const workspaceOptions = {
    now,
    ...(options.triggerTtlMs !== undefined ? { triggerTtlMs: options.triggerTtlMs } : {}),
  };
  const workspace = new Workspace({ ...workspaceOptions, of: LOOKOUT_SEED });
  const other = new Workspace({ ...workspaceOptions, of: OTHER_SEED });
  const extras = (options.workspaces ?? []).map((w) => new Workspace({ ...workspaceOptions, of: extraSeed(w) }));
  const workspaces = new Map([workspace, other, ...extras].map((w) => [w.team.id, w] as const));
  const oauth = new OAuthServer(workspaces, now);
  if (options.installed ?? true) oauth.addToken(options.botToken, workspace.team.id);
  else workspace.removeBot();
  (options.workspaces ?? []).forEach((w) => w.botToken && oauth.addToken(w.botToken, w.team.id));
  oauth.configure(options.oauth);
  const rateLimiter = new RateLimiter(options.rateLimit === undefined ? DEFAULT_RATE_LIMIT : options.rateLimit, now);
  const tiers = new MethodTiers(options.methodTiers ?? options.rateLimit !== false, now);
  const socket = options.appToken ? new SocketModeHub(options.appToken, () => baseUrl) : undefined;
  if (socket) server.on('upgrade', (req, sock, head) => socket.upgrade(req, sock, head));
  const webApi = new WebApi({
    workspace,
    teams: workspaces,
    oauth,
    baseUrl: () => baseUrl,
    rateLimiter,
    tiers,
    ...(socket ? { socket } : {}),
  });
  let appUrl: () => string | undefined = () => undefined;
  const deliveryFor = (ws: Workspace): { responseUrls: ResponseUrls; deliverer: Deliverer } => {
    const responseUrls = new ResponseUrls(ws, () => baseUrl, options.responseUrl);
    const deliverer = new Deliverer({
      workspace: ws,
      responseUrls,
      signingSecret: options.signingSecret,
      appUrl: () => appUrl(),
      ackTimeoutMs: options.ackTimeoutMs ?? 3000,
      ...(options.eventRetryDelaysMs ? { eventRetryDelaysMs: options.eventRetryDelaysMs } : {}),
      verificationToken: options.verificationToken ?? 'sandbox-verification-token',
      ...(socket ? { socket } : {}),
    });
    return { responseUrls, deliverer };
  };
  const { responseUrls, deliverer } = deliveryFor(workspace);
  const otherDelivery = deliveryFor(other);
  const otherDriver = new SlackDriver(other, otherDelivery.deliverer);
  const extraDelivery = extras.map((ws) => [ws, deliveryFor(ws)] as const);
  const created = new OfflineSlack(
    server,
    baseUrl,
    workspace,
    deliverer,
    webApi,
    responseUrls,
    rateLimiter,
    tiers,
    options.appUrl,
    socket,
    oauth,
    new Map([
      [other.team.id, otherDriver],
      ...extraDelivery.map(([ws, d]) => [ws.team.id, new SlackDriver(ws, d.deliverer)] as const),
    ]),
  );
  appUrl = () => created.appUrl;
  if (options.suggestions) created.setSuggestions(options.suggestions);
  created.router
    .add('POST', '/api/:method', (req, res, ctx) => webApi.handle(ctx.params.method ?? '', req, res))
    .add('POST', '/response/:id', (req, res, ctx) => {
      const id = ctx.params.id ?? '';
      const owner =
        [otherDelivery, ...extraDelivery.map(([, d]) => d)].find((d) => d.responseUrls.get(id))?.responseUrls ??
        responseUrls;
      return owner.handle(id, req, res);
    })
    .add('GET', '/oauth/v2/authorize', (req, res, ctx) => oauth.authorizePage(ctx.url, res, req))
    .add('POST', '/oauth/v2/authorize', (req, res) => oauth.decide(req, res))
    // Slack's link back from an install (`app_redirect`, https://api.slack.com/docs/deep-linking): here the
    // workspace's page with the app open in it (an app that is not the workspace's, or no team: the page alone).
    .add('GET', '/app_redirect', (_req, res, ctx) => {
      const q = ctx.url.searchParams;
      const ws = ctx.slack.teams.find((d) => d.workspace.team.id === q.get('team'))?.workspace ?? ctx.slack.workspace;
      const page = new URLSearchParams({ team: ws.team.id });
      if (q.get('app') === ws.bot.appId) page.set('app', ws.bot.appId);
      res.writeHead(302, { location: `/?${page.toString()}`, 'content-length': 0 });
      res.end();
    });
  mountUiRoutes(created.router);
  holder.slack = created;
  return created;
}
