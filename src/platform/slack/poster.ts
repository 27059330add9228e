import type { WebClient } from '@slack/web-api';
import type { SlackMessage } from './kit/messages.js';

/**
 * What Lookout sends to Slack on its own (digests, alerts, confirmations). Services
 * are built against this, before the Bolt app exists. A refusal rejects with an
 * error whose `slackReason` says why.
 */
export interface SlackPoster {
  /** Posts a message (in a thread with `threadTs`); resolves to its ts. */
  post(channel: string, message: SlackMessage, options?: { threadTs?: string }): Promise<string>;
  update(channel: string, ts: string, message: SlackMessage): Promise<void>;
  postEphemeral(channel: string, user: string, message: SlackMessage): Promise<void>;
  /** Publishes `user`'s App Home (the message's blocks); resolves to the view's id. */
  publishHome(user: string, message: SlackMessage): Promise<string>;
}

/** Why Slack refused a call, in Slack's words ("is_archived", "channel_not_found", "ratelimited"). */
export function slackReason(error: unknown): string {
  const data = (error as { data?: { error?: string } } | undefined)?.data;
  return data?.error ?? (error instanceof Error ? error.message : String(error));
}

export function webPoster(client: WebClient): SlackPoster {
  return {
    async post(channel, message, options = {}) {
      const result = await client.chat.postMessage({
        channel,
        text: message.text,
        blocks: message.blocks,
        ...(message.attachments ? { attachments: message.attachments } : {}),
        ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
      return result.ts ?? '';
    },
    async update(channel, ts, message) {
      // chat.update keeps attachments it is not given: an empty list takes an old colour away.
      await client.chat.update({
        channel,
        ts,
        text: message.text,
        blocks: message.blocks,
        attachments: message.attachments ?? [],
      });
    },
    async postEphemeral(channel, user, message) {
      await client.chat.postEphemeral({
        channel,
        user,
        text: message.text,
        blocks: message.blocks,
        ...(message.attachments ? { attachments: message.attachments } : {}),
      });
    },
    async publishHome(user, message) {
      const result = await client.views.publish({ user_id: user, view: { type: 'home', blocks: message.blocks } });
      return result.view?.id ?? '';
    },
  };
}
