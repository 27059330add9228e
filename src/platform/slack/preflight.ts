/**
 * Every payload Lookout sends to Slack passes here first: the Web API client's fetch (chat.*
 * and views.*) and every response_url answer. What breaks a rule of Slack's is fitted
 * (kit/preflight.ts) and the change logged; a message that still breaks one goes as its text
 * alone, a view that still breaks one is not sent. Listeners hear of each (metrics; tests,
 * which fail on any).
 */
import type { WebClientOptions } from '@slack/web-api';
import type { Logger } from '../log.js';
import { fitMessage, fitView, type OutgoingMessage } from './kit/preflight.js';

export interface PreflightReport {
  /** The Web API method, or `response_url`. */
  method: string;
  changes: string[];
  /** Rules still broken after fitting: the message went as text, the view was not sent. */
  reasons: string[];
}

const listeners = new Set<(report: PreflightReport) => void>();

/** Hears of every payload that had to be changed or held back; returns the way to stop. */
export function onPreflight(listener: (report: PreflightReport) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

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

function report(log: Logger | undefined, r: PreflightReport): void {
  if (r.changes.length === 0 && r.reasons.length === 0) return;
  if (r.reasons.length > 0)
    log?.error(
      { method: r.method, changes: r.changes, reasons: r.reasons },
      "a payload broke Slack's rules after fitting",
    );
  else log?.warn({ method: r.method, changes: r.changes }, "a payload was fitted to Slack's rules");
  for (const listener of listeners) listener(r);
}

/** A message payload for `method`, fitted; text alone when it cannot be. */
export function preflightMessage<T extends OutgoingMessage>(method: string, payload: T, log?: Logger): T {
  const fitted = fitMessage(payload);
  report(log, { method, changes: fitted.changes, reasons: fitted.reasons });
  if (fitted.reasons.length === 0) return fitted.value as T;
  const text =
    typeof payload.text === 'string' && payload.text !== '' ? payload.text : 'Lookout could not show this message.';
  // chat.update keeps blocks and attachments it is not given: empty ones remove them.
  return { ...payload, text, blocks: [], attachments: [] };
}

/** A view for `method`, fitted; throws PreflightError when it still breaks a rule. */
export function preflightView(method: string, view: unknown, log?: Logger): unknown {
  const fitted = fitView(view, VIEW_METHODS[method] ?? 'modal');
  report(log, { method, changes: fitted.changes, reasons: fitted.reasons });
  if (fitted.reasons.length > 0) throw new PreflightError(method, fitted.reasons);
  return fitted.value;
}

function parseJson(value: string | null): unknown {
  if (value === null) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * The Web API client's fetch, checking chat.* and views.* bodies (form-encoded, blocks and
 * views as JSON) before they leave. Given to every WebClient Lookout makes or Bolt makes for it.
 */
export function preflightFetch(log: Logger, inner: typeof fetch = fetch): NonNullable<WebClientOptions['fetch']> {
  return async (url, init) => {
    const method = String(url).slice(String(url).lastIndexOf('/') + 1);
    const body = init?.body;
    const view = VIEW_METHODS[method];
    if ((!MESSAGE_METHODS.has(method) && !view) || typeof body !== 'string') return inner(url, init);
    const form = new URLSearchParams(body);
    if (view) {
      try {
        form.set('view', JSON.stringify(preflightView(method, parseJson(form.get('view')), log)));
      } catch (error) {
        if (!(error instanceof PreflightError)) throw error;
        // Answered as Slack would, without sending: the client reads it as a refusal and does not retry.
        const answer = {
          ok: false,
          error: 'invalid_arguments',
          response_metadata: { messages: error.reasons.map((r) => `[ERROR] ${r} (Lookout's preflight: not sent)`) },
        };
        return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
      }
    } else {
      const payload: OutgoingMessage = {
        text: form.get('text') ?? undefined,
        blocks: parseJson(form.get('blocks')),
        attachments: parseJson(form.get('attachments')),
      };
      const fitted = preflightMessage(method, payload, log);
      for (const key of ['text', 'blocks', 'attachments'] as const) {
        const value = fitted[key];
        if (value === undefined) form.delete(key);
        else form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
      }
    }
    return inner(url, { ...init, body: form.toString() });
  };
}
