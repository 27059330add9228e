import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { App, HTTPReceiver, SocketModeReceiver, type CustomRoute } from '@slack/bolt';
import type { Logger } from '../log.js';
import { boltLogger } from './bolt-logger.js';
import { guardRequests } from './guard.js';
import { preflightFetch } from './preflight.js';
import { allowResponseOrigin, setResponseLog } from './respond.js';
import { Routes, type FirstSeen, type Observe } from './routes.js';

export interface SlackAppOptions {
  signingSecret: string;
  botToken: string;
  /** Socket Mode when set. */
  appToken?: string;
  /** Socket Mode serves only the health routes over HTTP, on this port (HTTP mode takes it at start). */
  port?: number;
  /** The Web API base URL: Slack's own, or the offline Slack's. */
  slackApiUrl?: string;
  /** A listener's call to Slack not answered within this fails (default 10 s). */
  timeoutMs?: number;
  /** Readiness of what the app depends on (the store, the API). */
  ready: () => Promise<{ ok: boolean; checks: Record<string, string> }>;
  log: Logger;
  /** Each feature's listeners, registered in order. */
  listeners: readonly ((routes: Routes) => void)[];
  /** GET /metrics: Prometheus text. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** Told of each request's outcome. */
  observe?: Observe;
  /** The store's replay keys: each event is handled once, across replicas and restarts. */
  firstSeen?: FirstSeen;
  /** Several replicas may share the store: the request guard checks signatures for replay in it too, not only in this replica's memory. */
  replicated?: boolean;
}

export interface SlackApp {
  app: App;
  start(port: number): Promise<Server | undefined>;
  stop(): Promise<void>;
}

function healthRoutes(ready: SlackAppOptions['ready'], metrics: SlackAppOptions['metrics']): CustomRoute[] {
  const json = (res: Parameters<CustomRoute['handler']>[1], status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const routes: CustomRoute[] = [
    { path: '/healthz', method: ['GET'], handler: (_req, res) => json(res, 200, { ok: true }) },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_req, res) => {
        ready().then(
          (result) => json(res, result.ok ? 200 : 503, result),
          (error: unknown) => json(res, 503, { ok: false, checks: { app: String(error) } }),
        );
      },
    },
  ];
  if (metrics) {
    routes.push({
      path: '/metrics',
      method: ['GET'],
      handler: (_req, res) => {
        metrics().then(
          ({ contentType, body }) => {
            res.writeHead(200, { 'content-type': contentType });
            res.end(body);
          },
          (error: unknown) => json(res, 500, { ok: false, error: String(error) }),
        );
      },
    });
  }
  return routes;
}

/** The Bolt app: HTTP receiver at POST /slack/events (or Socket Mode), health routes, every listener. */
export async function createSlackApp(options: SlackAppOptions): Promise<SlackApp> {
  const { log } = options;
  const logger = boltLogger(log, [options.signingSecret, options.botToken, options.appToken ?? '']);
  const customRoutes = healthRoutes(options.ready, options.metrics);
  // Listeners' own calls (views.open, views.publish, chat.postEphemeral) give up like every other call to Slack, after
  // one retry: the Web API client's default keeps retrying for half an hour, and a trigger_id lasts 3 s.
  const clientOptions = {
    ...(options.slackApiUrl ? { slackApiUrl: options.slackApiUrl } : {}),
    fetch: preflightFetch(log.child({ component: 'preflight' })),
    timeout: options.timeoutMs ?? 10_000,
    retryConfig: { retries: 1, factor: 2, minTimeout: 500, maxTimeout: 1_000 },
  };
  if (options.slackApiUrl) allowResponseOrigin(options.slackApiUrl);
  setResponseLog(log.child({ component: 'preflight' }));

  // Socket Mode: apps.connections.open goes to the same Web API as everything else (slackApiUrl).
  const socketReceiver = options.appToken
    ? new SocketModeReceiver({ appToken: options.appToken, logger, customRoutes, installerOptions: { clientOptions, port: options.port ?? 3000 } })
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
      signingSecret: options.signingSecret,
      ...(options.replicated ? { firstSeen: options.firstSeen } : {}),
      log: log.child({ component: 'guard' }),
    });
  }
  const app = new App({
    token: options.botToken,
    signingSecret: options.signingSecret,
    logger,
    clientOptions,
    deferInitialization: true,
    // No listener uses conversation context; the default store costs time on every request.
    convoStore: false,
    receiver: (receiver ?? socketReceiver)!,
  });
  await app.init();

  // Every request gets an id and a logger that writes it on every line (listeners read it with requestLog).
  app.use(async ({ body, context, next }) => {
    const requestLog = log.child({ requestId: randomUUID() });
    const b = body as { command?: string; type?: string; actions?: { action_id?: string }[]; view?: { callback_id?: string }; user_id?: string; user?: { id?: string } };
    requestLog.debug({ kind: b.command ?? b.type, action: b.actions?.[0]?.action_id ?? b.view?.callback_id, user: b.user_id ?? b.user?.id }, 'slack request');
    context.log = requestLog;
    await next();
  });

  app.error(async (error) => {
    log.error({ err: error.message, code: (error as { code?: string }).code }, 'unhandled error in a listener');
  });

  const routes = new Routes();
  for (const register of options.listeners) register(routes);
  routes.mount(app, { observe: options.observe, firstSeen: options.firstSeen });

  return {
    app,
    async start(port: number) {
      const server = await app.start(port);
      return receiver ? (server as Server) : undefined;
    },
    stop: () => app.stop() as Promise<void>,
  };
}
