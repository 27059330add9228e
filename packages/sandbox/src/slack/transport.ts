/**
 * How a request reaches the app: a signed HTTP POST to its request URL, or an envelope on its
 * Socket Mode connection; each is recorded as a Delivery with its status, body and ack time,
 * and a late answer is a timeout. Deliverer (delivery.ts) builds the requests Slack sends.
 */
import { performance } from 'node:perf_hooks';
import type { Agent } from 'undici';
import type { ResponseUrl, ResponseUrls } from './response-url.js';
import { signRequest, unixSeconds, type SignatureHeaders } from './signing.js';
import type { Delivery, Json } from './types.js';
import type { EnvelopeType, SocketModeHub } from './socket-mode.js';
import type { Workspace } from './workspace.js';

/** Per-delivery overrides, for testing how the app treats bad requests. */
export interface DeliveryOptions {
  /** Sign with this secret instead of the real one (a forged request). */
  signingSecret?: string;
  /** Use this `x-slack-request-timestamp` (Unix seconds) instead of now (a stale or replayed request). */
  timestampSec?: number;
}

export interface DelivererConfig {
  workspace: Workspace;
  responseUrls: ResponseUrls;
  signingSecret: string;
  appUrl: () => string | undefined;
  ackTimeoutMs: number;
  verificationToken: string;
  /** Socket Mode: requests go to the app's WebSocket instead of its request URL. */
  socket?: SocketModeHub;
  /** How long the Events API waits before each retry of an event the app did not answer with 200 in time (Slack: at once, 1 min, 5 min). */
  eventRetryDelaysMs?: readonly number[];
}

export interface Hooks {
  /** Called once when the ack deadline passes without an answer, or the app cannot be reached. */
  onFailure?: (d: Delivery) => void;
  /** Called with an answer that came in time. */
  onAnswer?: (d: Delivery) => void;
}

const MAX_KEPT = 1000;

export class Transport {
  /** undici, loaded at the first request: `npm start` serves its page before. */
  private http?: Promise<{ agent: Agent; request: typeof import('undici').request }>;
  private nextId = 1;
  protected readonly ws: Workspace;

  constructor(protected readonly config: DelivererConfig) {
    this.ws = config.workspace;
  }

  protected async send(
    kind: Delivery['kind'],
    body: string,
    payload: Json,
    options: DeliveryOptions,
    extra: { responseUrl?: ResponseUrl | undefined; triggerId?: string },
    hooks: Hooks,
    http: { contentType?: string; headers?: Record<string, string> } = {},
  ): Promise<Delivery> {
    if (this.config.socket) return this.sendOnSocket(this.config.socket, kind, payload, extra, hooks);
    const url = this.config.appUrl();
    if (!url) throw new Error('the offline Slack has no app URL: pass appUrl or call setAppUrl()');
    const timestamp = options.timestampSec ?? unixSeconds();
    const headers = {
      'content-type': http.contentType ?? 'application/x-www-form-urlencoded',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      ...http.headers,
      ...signRequest(options.signingSecret ?? this.config.signingSecret, body, timestamp),
    };
    const delivery: Delivery = {
      id: this.nextId++,
      kind,
      url,
      status: 0,
      ackMs: 0,
      body: '',
      timedOut: false,
      payload,
      startedAt: Date.now(),
      ...(extra.responseUrl ? { responseUrl: extra.responseUrl.url } : {}),
      ...(extra.triggerId ? { triggerId: extra.triggerId } : {}),
    };
    const deliveries = this.ws.deliveries;
    deliveries.push(delivery);
    if (deliveries.length > MAX_KEPT) deliveries.splice(0, deliveries.length - MAX_KEPT);

    const timeOut = (): void => {
      if (delivery.timedOut) return;
      delivery.timedOut = true;
      delivery.error = 'operation_timeout';
      hooks.onFailure?.(delivery);
      this.ws.recordDelivery(delivery);
    };
    const started = performance.now();
    const timer = setTimeout(timeOut, this.config.ackTimeoutMs);
    try {
      const { agent, request } = await this.undici();
      const res = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      delivery.body = await res.body.text();
      delivery.status = res.statusCode;
      const type = String(res.headers['content-type'] ?? '');
      if (type.includes('json') || /^\s*[[{]/.test(delivery.body)) {
        try {
          delivery.json = JSON.parse(delivery.body) as unknown;
        } catch {
          // not JSON after all: keep the raw body
        }
      }
    } catch (error) {
      delivery.status = 0;
      delivery.error = 'dispatch_failed';
      delivery.body = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
      delivery.ackMs = Math.round((performance.now() - started) * 10) / 10;
    }
    if (!delivery.timedOut && delivery.ackMs >= this.config.ackTimeoutMs) timeOut();
    if (!delivery.timedOut) {
      if (delivery.status === 0) hooks.onFailure?.(delivery);
      else hooks.onAnswer?.(delivery);
    }
    this.ws.recordDelivery(delivery);
    return delivery;
  }

  /** The same request as an envelope on the app's socket: answered when the app acks it in time. */
  private async sendOnSocket(
    hub: SocketModeHub,
    kind: Delivery['kind'],
    payload: Json,
    extra: { responseUrl?: ResponseUrl | undefined; triggerId?: string },
    hooks: Hooks,
  ): Promise<Delivery> {
    const type: EnvelopeType | undefined =
      kind === 'slash_command'
        ? 'slash_commands'
        : kind === 'event'
          ? 'events_api'
          : kind === 'url_verification'
            ? undefined
            : 'interactive';
    if (!type) throw new Error('url_verification is HTTP only: Socket Mode apps are not asked for it');
    const delivery: Delivery = {
      id: this.nextId++,
      kind,
      url: 'socket',
      status: 0,
      ackMs: 0,
      body: '',
      timedOut: false,
      payload,
      startedAt: Date.now(),
      ...(extra.responseUrl ? { responseUrl: extra.responseUrl.url } : {}),
      ...(extra.triggerId ? { triggerId: extra.triggerId } : {}),
    };
    this.ws.deliveries.push(delivery);
    const started = performance.now();
    const ack = await hub.send(type, payload, this.config.ackTimeoutMs);
    delivery.ackMs = Math.round((performance.now() - started) * 10) / 10;
    if (ack.acked) {
      delivery.status = 200;
      if (ack.payload !== undefined) {
        delivery.json = ack.payload;
        delivery.body = JSON.stringify(ack.payload);
      }
      hooks.onAnswer?.(delivery);
    } else {
      delivery.timedOut = hub.connected;
      delivery.error = hub.connected ? 'operation_timeout' : 'dispatch_failed';
      hooks.onFailure?.(delivery);
    }
    this.ws.recordDelivery(delivery);
    return delivery;
  }

  private undici() {
    return (this.http ??= import('undici').then(({ Agent, request }) => ({
      agent: new Agent({ keepAliveTimeout: 2_000, keepAliveMaxTimeout: 10_000 }),
      request,
    })));
  }

  async close(): Promise<void> {
    if (this.http) await (await this.http).agent.close();
  }

  /** The signature headers Slack would put on `body`, now. */
  sign(body: string): SignatureHeaders {
    return signRequest(this.config.signingSecret, body);
  }
}
