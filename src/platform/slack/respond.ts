import { Agent, request } from 'undici';
import type { Logger } from '../log.js';
import { problemMessage, type SlackMessage } from './kit/messages.js';
import { preflightMessage } from './preflight.js';

export type Reply = (message: SlackMessage) => Promise<unknown>;

const RESPONSE_TIMEOUT_MS = 10_000;
/** One keep-alive agent for every response_url (WHATWG fetch, as Bolt's respond() uses, costs more CPU per answer). */
const responses = new Agent({ keepAliveTimeout: 30_000, connections: 32 });

/** Where response_urls may point: Slack's hosts, and the origin of a configured SLACK_API_URL (the offline Slack). */
const responseOrigins = new Set(['https://hooks.slack.com', 'https://hooks.slack-gov.com']);

let preflightLog: Logger | undefined;

/** Where answers that had to be fitted to Slack's rules are logged. */
export function setResponseLog(log: Logger): void {
  preflightLog = log;
}

/** Allows response_urls on this origin too (the configured SLACK_API_URL's). */
export function allowResponseOrigin(url: string): void {
  responseOrigins.add(new URL(url).origin);
}

/** "Post to channel": the answer for everyone, and the ephemeral copy it was shared from goes away. */
export async function shareInChannel(url: string, message: SlackMessage): Promise<void> {
  await postToResponseUrl(url, { ...message, response_type: 'in_channel', replace_original: false });
  await postToResponseUrl(url, { delete_original: true });
}

/**
 * Posts a message (or `delete_original`) to a response_url; rejects on a refusal, after
 * 10 s, or at once when the URL is not Slack's: a URL read back from a tampered message
 * or modal must not make Lookout post anywhere else.
 */
export async function postToResponseUrl(url: string, answer: Record<string, unknown>): Promise<void> {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    throw new Error('refused to answer: the response_url is not a URL');
  }
  if (!responseOrigins.has(origin)) throw new Error(`refused to answer: the response_url is not Slack's (${origin})`);
  const body = answer.delete_original === true ? answer : preflightMessage('response_url', answer, preflightLog);
  const response = await request(url, {
    method: 'POST',
    dispatcher: responses,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: RESPONSE_TIMEOUT_MS,
    bodyTimeout: RESPONSE_TIMEOUT_MS,
  });
  await response.body.dump();
  if (response.statusCode >= 300) throw new Error(`response_url answered HTTP ${response.statusCode}`);
}

/**
 * An ephemeral answer through a response_url: `replace` puts it in place of the message
 * clicked (which must itself be ephemeral); otherwise it arrives as a new one.
 */
export function replyTo(responseUrl: string, replace: boolean): Reply {
  return (message) =>
    postToResponseUrl(responseUrl, { ...message, response_type: 'ephemeral', replace_original: replace });
}

/**
 * Runs a listener's work after its ack: anything unexpected is logged and the
 * person told, so nothing fails silently.
 */
export async function guarded(
  log: Logger,
  what: string,
  tell: Reply | undefined,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof Error && error.name === 'TenantError') {
      log.info({ what, reason: (error as { code?: string }).code }, 'the workspace cannot be served yet');
      await tell?.(problemMessage(error.message)).catch(() => undefined);
      return;
    }
    log.error({ what, err: error instanceof Error ? error.message : String(error) }, 'listener failed');
    if (!tell) return;
    try {
      await tell(
        problemMessage(
          'Something went wrong on our side while answering that.',
          'Try again; if it keeps happening, tell whoever runs Lookout.',
        ),
      );
    } catch (inner) {
      log.error(
        { what, err: inner instanceof Error ? inner.message : String(inner) },
        'could not tell the user about a failure',
      );
    }
  }
}

/** The request's own logger (set by the app's middleware), so a listener's lines carry the request id. */
export function requestLog(context: Record<string, unknown>, fallback: Logger): Logger {
  return (context.log as Logger | undefined) ?? fallback;
}
