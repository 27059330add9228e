import type { Server } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver, type CustomRoute } from '@slack/bolt';
import type { Installation, InstallProvider } from '@slack/oauth';
import type { Logger } from '../log.js';
import { boltLogger } from './bolt-logger.js';
import { guardRequests, type GuardObserve, type SignedRequests } from './guard.js';
import { PreflightGate } from './preflight-gate.js';
import { ResponseUrls } from './respond.js';
import { installPage, type InstallPageLinks } from './install-page.js';
import { requestContextMiddleware, type RequestContext, type TenantOf } from './request-context.js';
import { Routes, type FirstSeen, type Observe } from './routes.js';
import { authorizeInstalled, workspaceRule, type OrgRecords } from './workspace-rule.js';

export interface SlackAppOptions {
  signingSecret: string;
  /** One workspace's bot token; a distributed app has `installer` instead. */
  botToken?: string;
  /** A distributed app: Bolt's OAuth (install page, callback) and `authorize`, with the install page's links. */
  installer?: { provider: InstallProvider; links: InstallPageLinks };
  /** Each workspace's tenant, for handlers. */
  tenantOf: TenantOf;
  /** Socket Mode when set. */
  appToken?: string;
  /** Socket Mode serves only /healthz over HTTP, on this port (HTTP mode takes it at start). */
  port?: number;
  /** The address the HTTP port listens on (both modes); default every interface. */
  host?: string;
  /** The Web API base URL: Slack's own, or the offline Slack's. */
  slackApiUrl?: string;
  /** A listener's call to Slack not answered within this fails (default 10 s). */
  timeoutMs?: number;
  log: Logger;
  /** What every payload to Slack passes (the platform's, counted in its metrics); default one of the app's own. */
  preflight?: PreflightGate;
  /** Each feature's HTTP routes on the Slack port (Bolt's custom routes). */
  routes?: readonly CustomRoute[];
  /** Each feature's listeners, registered in order. */
  listeners: readonly ((routes: Routes) => void)[];
  /** Told of each request's outcome. */
  observe?: Observe;
  /** The store's replay keys: each event is handled once, across replicas and restarts. */
  firstSeen?: FirstSeen;
  /** The rule every signed request passes (signature, window, once only), shared with /mcp (HTTP mode). */
  signed: SignedRequests;
  /** Told of the requests the guard refused before their signature was checked (too large, unreadable). */
  judged?: GuardObserve;
  /** A distributed app: the organisations' records, read and written by the rule on every request's workspace (workspace-rule.ts). */
  orgs?: OrgRecords;
}

export interface SlackApp {
  app: App<RequestContext>;
  start(port: number): Promise<Server | undefined>;
  stop(): Promise<void>;
}

/** GET /healthz, the one route beside Slack's: /metrics and /readyz have their own listener (platform/ops.ts). */
const HEALTH: CustomRoute = {
  path: '/healthz',
  method: ['GET'],
  handler: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  },
};

/**
 * A distributed app's OAuth routes (Bolt's InstallProvider): the install page with "Add to Slack" at
 * /slack/install, and Slack's redirect back at /slack/oauth_redirect, which stores the installation.
 */
/**
 * Slack's link back to the app in the workspace it was installed into, `app_redirect` (with `app` and
 * `team`), which Slack offers for sending people back from an install (https://api.slack.com/docs/deep-linking),
 * on the web origin of its Web API: https://slack.com, or the offline Slack's own in the sandbox.
 */
export function backToSlack(slackApiUrl: string | undefined, installation: Installation): string {
  const url = new URL('/app_redirect', slackApiUrl ?? 'https://slack.com/api/');
  if (installation.appId) url.searchParams.set('app', installation.appId);
  if (installation.team?.id) url.searchParams.set('team', installation.team.id);
  return url.toString();
}

function oauthRoutes(
  installer: InstallProvider,
  links: InstallPageLinks,
  slackApiUrl: string | undefined,
  log: Logger,
): CustomRoute[] {
  const failed = (what: string) => (error: unknown, res: import('node:http').ServerResponse) => {
    log.warn({ err: error instanceof Error ? error.message : String(error) }, what);
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Lookout could not be installed. Start again from the install page.');
  };
  return [
    {
      path: '/slack/install',
      method: ['GET'],
      handler: (req, res) =>
        void installer
          .handleInstallPath(req, res, { beforeRedirection: async () => true }, undefined)
          .catch((e: unknown) => failed('the install page failed')(e, res)),
    },
    {
      path: '/slack/oauth_redirect',
      method: ['GET'],
      handler: (req, res) =>
        void installer
          .handleCallback(req, res, {
            success: (installation, _options, _req, response) => {
              log.info({ team: installation.team?.id, enterprise: installation.enterprise?.id }, 'installed');
              response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
              response.end(
                installPage.done(
                  installation.team?.name ?? installation.enterprise?.name ?? 'your workspace',
                  backToSlack(slackApiUrl, installation),
                  links,
                ),
              );
            },
            failure: (error, _options, _req, response) => {
              log.warn({ err: error.message, code: (error as { code?: string }).code }, 'an install failed');
              response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
              response.end(installPage.failed(links));
            },
          })
          .catch((e: unknown) => failed('the OAuth redirect failed')(e, res)),
    },
  ];
}

/**
 * Bolt's Socket Mode receiver hands its port alone to Node's `server.listen` (every
 * interface); Node takes `{ port, host }` in the same place, so a host goes in with it.
 */
function socketModePort(port: number, host: string | undefined): number {
  return (host === undefined ? port : { port, host }) as number;
}

/** The Bolt app: HTTP receiver at POST /slack/events (or Socket Mode), /healthz, every listener. */
export async function createSlackApp(options: SlackAppOptions): Promise<SlackApp> {
  const { log } = options;
  const logger = boltLogger(log, [options.signingSecret, options.botToken ?? '', options.appToken ?? '']);
  const preflight = options.preflight ?? new PreflightGate(log.child({ component: 'preflight' }));
  const customRoutes = [
    HEALTH,
    ...(options.routes ?? []),
    ...(options.installer
      ? oauthRoutes(options.installer.provider, options.installer.links, options.slackApiUrl, log)
      : []),
  ];
  // Listeners' own calls (views.open, views.publish, chat.postEphemeral) give up like every other call to Slack, after
  // one retry: the Web API client's default keeps retrying for half an hour, and a trigger_id lasts 3 s.
  const clientOptions = {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    fetch: preflight.fetch(),
    timeout: options.timeoutMs ?? 10_000,
    retryConfig: { retries: 1, factor: 2, minTimeout: 500, maxTimeout: 1_000 },
  };
  const responses = new ResponseUrls(preflight, options.slackApiUrl);

  // Socket Mode: apps.connections.open goes to the same Web API as everything else (slackApiUrl).
  const socketReceiver = options.appToken
    ? new SocketModeReceiver({
        appToken: options.appToken,
        logger,
        customRoutes,
        installerOptions: { clientOptions, port: socketModePort(options.port ?? 3000, options.host) },
      })
    : undefined;
  const receiver = options.appToken
    ? undefined
    : new HTTPReceiver({
        signingSecret: options.signingSecret,
        endpoints: '/slack/events',
        customRoutes,
        logger,
        processBeforeResponse: false,
        // The guard below verifies every request, more strictly than Bolt (replays, future timestamps).
        signatureVerification: false,
      });
  if (receiver) {
    receiver.requestListener = guardRequests(receiver.requestListener, {
      signed: options.signed,
      log: log.child({ component: 'guard' }),
      ...(options.judged ? { observe: options.judged } : {}),
    });
  }
  const installer = options.installer?.provider;
  const authorize = installer && authorizeInstalled(installer, log.child({ component: 'authorize' }));
  const app = new App<RequestContext>({
    ...(authorize ? { authorize } : { token: options.botToken }),
    signingSecret: options.signingSecret,
    logger,
    clientOptions,
    deferInitialization: true,
    // No listener uses conversation context; the default store costs time on every request.
    convoStore: false,
    receiver: (receiver ?? socketReceiver)!,
  });
  await app.init();

  // Every request gets an id, its logger, the way to answer it and its tenant, on `context` (request-context.ts).
  app.use(requestContextMiddleware(log, responses, options.tenantOf));
  // One workspace per request, from what Slack signs, before any listener.
  app.use(workspaceRule(options.orgs ? { orgs: options.orgs } : {}));

  app.error(async (error) => {
    log.error({ err: error.message, code: (error as { code?: string }).code }, 'unhandled error in a listener');
  });

  const routes = new Routes();
  for (const register of options.listeners) register(routes);
  routes.mount(app, { observe: options.observe, firstSeen: options.firstSeen });

  return {
    app,
    async start(port: number) {
      const server = await app.start(options.host === undefined ? port : { port, host: options.host });
      return receiver ? server : undefined;
    },
    async stop() {
      await app.stop();
      await responses.close();
    },
  };
}
