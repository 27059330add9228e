import { Agent, request } from 'undici';
import type { Logger } from '../log.js';
import { problemMessage, type SlackMessage } from './kit/messages.js';
import type { PreflightGate } from './preflight-gate.js';

export type Reply = (message: SlackMessage) => Promise<unknown>;

const RESPONSE_TIMEOUT_MS = 10_000;

/** Slack's hosts for response_urls. */
const SLACK_ORIGINS = ['https://hooks.slack.com', 'https://hooks.slack-gov.com'];

/**
 * One app's answers through response_urls. Only Slack's hosts are answered, and the origin of
 * a configured SLACK_API_URL (the offline Slack); every answer passes the app's preflight.
 */
export class ResponseUrls {
  private readonly origins: Set<string>;
  /** One keep-alive agent for every response_url (WHATWG fetch, as Bolt's respond() uses, costs more CPU per answer). */
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 32 });

  constructor(
    private readonly preflight: PreflightGate,
    slackApiUrl?: string,
  ) {
    this.origins = new Set([...SLACK_ORIGINS, ...(slackApiUrl ? [new URL(slackApiUrl).origin] : [])]);
  }

  /**
   * Posts a message (or `delete_original`) to a response_url; rejects on a refusal, after
   * 10 s, or at once when the URL is not Slack's: a URL read back from a tampered message
   * or modal must not make Lookout post anywhere else.
   */
  async post(url: string, answer: Record<string, unknown>): Promise<void> {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      throw new Error('refused to answer: the response_url is not a URL');
    }
    if (!this.origins.has(origin)) throw new Error(`refused to answer: the response_url is not Slack's (${origin})`);
    const body = answer.delete_original === true ? answer : this.preflight.message('response_url', answer);
    const response = await request(url, {
      method: 'POST',
      dispatcher: this.agent,
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
  reply(responseUrl: string, replace: boolean): Reply {
    return (message) => this.post(responseUrl, { ...message, response_type: 'ephemeral', replace_original: replace });
  }

  /** "Post to channel": the answer for everyone, and the ephemeral copy it was shared from goes away. */
  async share(url: string, message: SlackMessage): Promise<void> {
    await this.post(url, { ...message, response_type: 'in_channel', replace_original: false });
    await this.post(url, { delete_original: true });
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/**
 * Runs a listener's work after its ack: anything unexpected is logged and the
 * person told, so nothing fails silently.
 */
export async function guarded(
  log: Logger,
  what: string,
  reply: Reply | undefined,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof Error && error.name === 'TenantError') {
      log.info({ what, reason: (error as { code?: string }).code }, 'the workspace cannot be served yet');
      await reply?.(problemMessage(error.message)).catch(() => undefined);
      return;
    }
    log.error({ what, err: error instanceof Error ? error.message : String(error) }, 'listener failed');
    if (!reply) return;
    try {
      await reply(
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
