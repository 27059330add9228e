/**
 * Every payload Lookout sends to Slack passes here first: the Web API client's fetch (chat.*
 * and views.*) and every response_url answer. What breaks a rule of Slack's is fitted
 * (kit/fit.ts) and the change logged; a message that still breaks one goes as its text
 * alone, a view that still breaks one is not sent. Each report goes to the gate's `observe`
 * (metrics) and to the diagnostics channel PREFLIGHT_CHANNEL (tests, which fail on any).
 */
import { channel } from 'node:diagnostics_channel';
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from '../log.js';
import { fitMessage, fitView, type OutgoingMessage } from './kit/fit.js';

export interface PreflightReport {
  /** The Web API method, or `response_url`. */
  method: string;
  changes: string[];
  /** Rules still broken after fitting: the message went as text, the view was not sent. */
  reasons: string[];
}

/** Node's diagnostics channel every gate publishes its reports on (subscribe with `node:diagnostics_channel`). */
export const PREFLIGHT_CHANNEL = 'lookout:slack-preflight';
const published = channel(PREFLIGHT_CHANNEL);

export class PreflightError extends Error {
  readonly code = 'slack_preflight_refused';
  constructor(
    readonly method: string,
    readonly reasons: string[],
  ) {
    super(`not sent to ${method}: Slack would refuse it (${reasons.slice(0, 3).join('; ')})`);
  }
}

const MESSAGE_METHODS = new Set(['chat.postMessage', 'chat.update', 'chat.postEphemeral', 'response_url']);
const VIEW_METHODS: Record<string, 'modal' | 'home'> = {
  'views.open': 'modal',
  'views.update': 'modal',
  'views.push': 'modal',
  'views.publish': 'home',
};

/** The checks one app's payloads pass: `log` hears what was fitted or held back, and so does `observe`. */
export class PreflightGate {
  constructor(
    private readonly log?: Logger,
    private readonly observe?: (report: PreflightReport) => void,
  ) {}

  private report(r: PreflightReport): void {
    if (r.changes.length === 0 && r.reasons.length === 0) return;
    if (r.reasons.length > 0)
      this.log?.error(
        { method: r.method, changes: r.changes, reasons: r.reasons },
        "a payload broke Slack's rules after fitting",
      );
    else this.log?.warn({ method: r.method, changes: r.changes }, "a payload was fitted to Slack's rules");
    this.observe?.(r);
    if (published.hasSubscribers) published.publish(r);
  }

  /** A message payload for `method`, fitted; text alone when it cannot be. */
  message<T extends OutgoingMessage>(method: string, payload: T): T {
    const fitted = fitMessage(payload);
    this.report({ method, changes: fitted.changes, reasons: fitted.reasons });
    if (fitted.reasons.length === 0) return fitted.value as T;
    const text =
      typeof payload.text === 'string' && payload.text !== '' ? payload.text : 'Lookout could not show this message.';
    // chat.update keeps blocks and attachments it is not given: empty ones remove them.
    return { ...payload, text, blocks: [], attachments: [] };
  }

  /** A view for `method`, fitted; throws PreflightError when it still breaks a rule. */
  view(method: string, view: unknown): unknown {
    const fitted = fitView(view, VIEW_METHODS[method] ?? 'modal');
    this.report({ method, changes: fitted.changes, reasons: fitted.reasons });
    if (fitted.reasons.length > 0) throw new PreflightError(method, fitted.reasons);
    return fitted.value;
  }

  /**
   * The Web API client's fetch, checking chat.* and views.* bodies (form-encoded, blocks and
   * views as JSON) before they leave. Given to every WebClient Lookout makes or Bolt makes for it.
   */
  fetch(inner: typeof fetch = fetch): NonNullable<WebClientOptions['fetch']> {
    return async (url, init) => {
      const method = String(url).slice(String(url).lastIndexOf('/') + 1);
      const body = init?.body;
      const view = VIEW_METHODS[method];
      if ((!MESSAGE_METHODS.has(method) && !view) || typeof body !== 'string') return inner(url, init);
      const form = new URLSearchParams(body);
      if (view) {
        try {
          form.set('view', JSON.stringify(this.view(method, parseJson(form.get('view')))));
        } catch (error) {
          if (!(error instanceof PreflightError)) throw error;
          // Answered as Slack would, without sending: the client reads it as a refusal and does not retry.
          const answer = {
            ok: false,
            error: 'invalid_arguments',
            response_metadata: {
              messages: error.reasons.map((r) => `[ERROR] ${r} (Lookout's preflight: not sent)`),
            },
          };
          return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
        }
      } else {
        const payload: OutgoingMessage = {
          text: form.get('text') ?? undefined,
          blocks: parseJson(form.get('blocks')),
          attachments: parseJson(form.get('attachments')),
        };
        const fitted = this.message(method, payload);
        for (const key of ['text', 'blocks', 'attachments'] as const) {
          const value = fitted[key];
          if (value === undefined) form.delete(key);
          else form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
        }
      }
      return inner(url, { ...init, body: form.toString() });
    };
  }
}

function parseJson(value: string | null): unknown {
  if (value === null) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
