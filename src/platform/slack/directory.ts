import type { WebClient } from '@slack/web-api';
import { growingLru } from '../lru.js';
import type { ChannelRef } from '../../kernel/text.js';
import type { Logger } from '../log.js';

/** Names and zones from Slack: a channel typed as `#name`, a person's time zone. */
export interface SlackDirectory {
  /** The channel's id: as mentioned, or looked up by name (undefined: no such channel the app can see). */
  channelId(ref: ChannelRef): Promise<string | undefined>;
  /** The person's own time zone from their profile, else `fallback`. */
  userTimeZone(user: string, fallback: string): Promise<string>;
  /** Whether `user` is in `channel` (conversations.members, kept a minute); undefined when Slack cannot say. */
  isMember(user: string, channel: string): Promise<boolean | undefined>;
}

const MAX_PAGES = 20;
/** How long a channel's members are kept: someone who just joined waits at most this long. */
const MEMBERS_TTL_MS = 60_000;

/** `clientOf`: the client to ask with, fetched for each call (a workspace's token may be refreshed meanwhile). */
export function webDirectory(clientOf: WebClient | (() => Promise<WebClient>), log: Logger): SlackDirectory {
  const clientNow = async () => (typeof clientOf === 'function' ? clientOf() : clientOf);
  const members = growingLru<string, Set<string>>(5_000, {
    ttl: MEMBERS_TTL_MS,
    fetchMethod: async (channel) => {
      const found = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const client = await clientNow();
        const result = await client.conversations.members({ channel, limit: 1000, cursor });
        for (const m of result.members ?? []) found.add(m);
        cursor = result.response_metadata?.next_cursor || undefined;
        if (!cursor) break;
      }
      return found;
    },
  });
  return {
    async isMember(user, channel) {
      try {
        return (await members.fetch(channel))?.has(user);
      } catch (error) {
        log.warn(
          { channel, err: String((error as { data?: { error?: string } }).data?.error ?? error) },
          'conversations.members failed: who is in that channel is unknown',
        );
        return undefined;
      }
    },
    async channelId(ref) {
      if (ref.id) return ref.id;
      if (!ref.name) return undefined;
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const client = await clientNow();
        const result = await client.conversations.list({
          limit: 200,
          cursor,
          exclude_archived: true,
          types: 'public_channel,private_channel',
        });
        const found = result.channels?.find((c) => c.name === ref.name);
        if (found?.id) return found.id;
        cursor = result.response_metadata?.next_cursor || undefined;
        if (!cursor) return undefined;
      }
      return undefined;
    },
    async userTimeZone(user, fallback) {
      try {
        const client = await clientNow();
        const info = await client.users.info({ user });
        return info.user?.tz || fallback;
      } catch (error) {
        log.warn({ user, err: String(error) }, 'users.info failed; using the default time zone');
        return fallback;
      }
    },
  };
}
