/**
 * What a failed Slack call means for a delivery, decided from the error alone: try again
 * later (and when), post once more as plain text, or give up because Slack refused.
 */

/** Slack refused the blocks: one more try as plain text. */
const BLOCKS_REFUSED = new Set([
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'msg_blocks_too_long',
  'invalid_attachments',
]);
/** The channel cannot take messages from Lookout until someone acts. */
const CHANNEL_REFUSED = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'channel_is_archived',
  'restricted_action',
  'cannot_dm_bot',
  'user_not_found',
]);
/** Slack's own trouble, worth waiting out. */
const SLACK_TROUBLE = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
]);

export type Remedy =
  | { kind: 'retry'; reason: string; /** Slack's Retry-After, when it gave one. */ afterMs?: number }
  | { kind: 'plain'; reason: string }
  | {
      kind: 'refused';
      reason: string;
      /** The channel itself is the problem (missing, archived, not a member). */ channel: boolean;
    };

interface SlackishError {
  code?: string;
  data?: { error?: string };
  retryAfter?: number;
  statusCode?: number;
  message?: string;
}

/** How a failed call to the Slack Web API should be handled. */
export function remedyOf(error: unknown): Remedy {
  const e = (error ?? {}) as SlackishError;
  switch (e.code) {
    case 'slack_webapi_rate_limited_error':
      return { kind: 'retry', reason: 'ratelimited', afterMs: Math.max(1, Number(e.retryAfter) || 1) * 1000 };
    case 'slack_webapi_platform_error': {
      const reason = e.data?.error ?? 'unknown_error';
      if (SLACK_TROUBLE.has(reason)) return { kind: 'retry', reason };
      if (BLOCKS_REFUSED.has(reason)) return { kind: 'plain', reason };
      return { kind: 'refused', reason, channel: CHANNEL_REFUSED.has(reason) };
    }
    case 'slack_webapi_http_error': {
      const status = Number(e.statusCode);
      const reason = `HTTP ${status}`;
      if (status >= 500 || status === 408 || status === 429) return { kind: 'retry', reason };
      return { kind: 'refused', reason, channel: false };
    }
    case 'slack_webapi_request_error':
      return { kind: 'retry', reason: timedOut(error) ? 'timed out' : 'could not reach Slack' };
    default:
      // The workspace removed Lookout: nothing can be posted there any more.
      if ((error as { name?: string }).name === 'TenantError')
        return { kind: 'refused', reason: 'app_uninstalled', channel: false };
      return { kind: 'retry', reason: e.message ?? String(error) };
  }
}

function timedOut(error: unknown): boolean {
  const original = (error as { original?: { name?: string; message?: string } }).original;
  const text = `${original?.name ?? ''} ${original?.message ?? ''} ${(error as Error).message ?? ''}`;
  return /timeout|timed out|abort/i.test(text);
}

const BASE_MS = 1_000;
const MAX_MS = 5 * 60_000;

/**
 * How long after the `attempt`-th failed attempt to try again: 1 s, 2 s, 4 s … up to
 * 5 minutes, each ±20% (`jitter` in [0, 1)), and never before Slack's Retry-After.
 */
export function retryDelayMs(attempt: number, afterMs = 0, jitter = Math.random()): number {
  const backoff = Math.min(MAX_MS, BASE_MS * 2 ** Math.max(0, attempt - 1)) * (0.8 + 0.4 * jitter);
  return Math.max(afterMs, Math.round(backoff));
}
