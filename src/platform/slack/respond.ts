import type { RespondFn } from '@slack/bolt';
import type { Logger } from '../log.js';
import { problemMessage, type SlackMessage } from './kit/messages.js';

export type Reply = (message: SlackMessage) => Promise<unknown>;

/**
 * An ephemeral answer to a click: `replace` puts it in place of the clicked message
 * (which must itself be ephemeral); otherwise it arrives as a new one for the clicker.
 */
export function replyTo(respond: RespondFn, replace: boolean): Reply {
  return (message) => respond({ ...message, response_type: 'ephemeral', replace_original: replace });
}

/** Posts to a response_url outside a listener that has `respond` (a modal's submission). */
export async function postToResponseUrl(url: string, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`response_url answered HTTP ${response.status}`);
}

/**
 * Runs a listener's work after its ack: anything unexpected is logged and the
 * person told, so nothing fails silently.
 */
export async function guarded(log: Logger, what: string, tell: Reply | undefined, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    log.error({ what, err: error instanceof Error ? error.message : String(error) }, 'listener failed');
    if (!tell) return;
    try {
      await tell(problemMessage('Something went wrong on our side while answering that.', 'Try again; if it keeps happening, tell whoever runs Lookout.'));
    } catch (inner) {
      log.error({ what, err: inner instanceof Error ? inner.message : String(inner) }, 'could not tell the user about a failure');
    }
  }
}

/** The request's own logger (set by the app's middleware), so a listener's lines carry the request id. */
export function requestLog(context: Record<string, unknown>, fallback: Logger): Logger {
  return (context.log as Logger | undefined) ?? fallback;
}
