import type { WebClient } from '@slack/web-api';
import type { ChannelRef } from '../../kernel/text.js';
import type { Logger } from '../log.js';

/** Names and zones from Slack: a channel typed as `#name`, a person's time zone. */
export interface SlackDirectory {
  /** The channel's id: as mentioned, or looked up by name (undefined: no such channel the app can see). */
  channelId(ref: ChannelRef): Promise<string | undefined>;
  /** The person's own time zone from their profile, else `fallback`. */
  userTimeZone(user: string, fallback: string): Promise<string>;
}

const MAX_PAGES = 20;

export function webDirectory(client: WebClient, log: Logger): SlackDirectory {
  return {
    async channelId(ref) {
      if (ref.id) return ref.id;
      if (!ref.name) return undefined;
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await client.conversations.list({ limit: 200, cursor, exclude_archived: true, types: 'public_channel,private_channel' });
        const found = result.channels?.find((c) => c.name === ref.name);
        if (found?.id) return found.id;
        cursor = result.response_metadata?.next_cursor || undefined;
        if (!cursor) return undefined;
      }
      return undefined;
    },
    async userTimeZone(user, fallback) {
      try {
        const info = await client.users.info({ user });
        return info.user?.tz || fallback;
      } catch (error) {
        log.warn({ user, err: String(error) }, 'users.info failed; using the default time zone');
        return fallback;
      }
    },
  };
}
