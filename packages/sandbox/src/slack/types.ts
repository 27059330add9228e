/** Shapes shared by the offline Slack's modules. */

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One request the offline Slack sent to the app, and what came back. */
export interface Delivery {
  id: number;
  kind: 'slash_command' | 'block_actions' | 'view_submission' | 'view_closed' | 'event' | 'url_verification';
  /** An Events API retry: which one (1–3), as `X-Slack-Retry-Num` said. */
  retryNum?: number;
  /** The app's request URL it went to. */
  url: string;
  /** The HTTP status of the app's answer; 0 when the app could not be reached. */
  status: number;
  /** Milliseconds from sending the request to having the whole answer. */
  ackMs: number;
  /** The raw response body. */
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
  /** True when the answer took longer than the ack deadline (3 s, like Slack). */
  timedOut: boolean;
  /** What Slack would report: operation_timeout, dispatch_failed, http_service_error, invalid_blocks, … */
  error?: string;
  /** Validation reasons behind `error` (e.g. a view in `response_action: update` over a limit). */
  reasons?: string[];
  /** The payload as sent: the slash-command fields, or the parsed interaction `payload`. */
  payload: Json;
  /** The response_url handed to the app with this request, if any. */
  responseUrl?: string;
  /** The trigger_id handed to the app with this request. */
  triggerId?: string;
  /** Epoch ms (real clock) when the request was sent. */
  startedAt: number;
}

/** A Slack-style error with the `error` code that goes into `{ ok: false, error }`. */
export class SlackError extends Error {
  constructor(
    readonly code: string,
    readonly extra: Json = {},
  ) {
    super(code);
    this.name = 'SlackError';
  }
}
