import type { RespondFn } from '@slack/bolt';
import type { SlackMessage } from './kit/messages.js';
import { problemMessage } from './kit/messages.js';
import type { SlackDeps } from './deps.js';

/** Where an answer to a click goes: in place of an ephemeral message, or as a new ephemeral one under a shared message. */
export interface ReplyTarget {
  ephemeral: boolean;
}

export function replyTo(respond: RespondFn, target: ReplyTarget, message: SlackMessage) {
  return respond({
    ...message,
    response_type: 'ephemeral',
    replace_original: target.ephemeral,
  });
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
export async function guarded(
  deps: SlackDeps,
  what: string,
  tell: ((message: SlackMessage) => Promise<unknown>) | undefined,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    deps.log.error({ what, err: error instanceof Error ? error.message : String(error) }, 'listener failed');
    if (!tell) return;
    try {
      await tell(problemMessage('Something went wrong on our side while answering that.', 'Try again; if it keeps happening, tell whoever runs Lookout.'));
    } catch (inner) {
      deps.log.error({ what, err: inner instanceof Error ? inner.message : String(inner) }, 'could not tell the user about a failure');
    }
  }
}
