import type { Logger } from '../../platform/log.js';
import { slackReason, type SlackPoster } from '../../platform/slack/poster.js';
import type { DigestContent } from './content.js';
import type { Digest } from './repo.js';
import type { DigestRunRepo } from './runs.js';

/**
 * How a digest's slot is posted. When `stopping` is aborted before the post goes out,
 * the slot is handed back (the claim released) instead, so a restart or another replica posts it.
 */
export type PostSlot = (digest: Digest, slot: Date, stopping: AbortSignal) => Promise<void>;

/**
 * Posts a claimed slot. The claim was recorded before; the post is recorded after, so a
 * crash in between is visible (and not retried into a duplicate). A failing channel fails
 * this digest's run only.
 */
export function digestPublisher(deps: { content: DigestContent; poster: SlackPoster; runs: DigestRunRepo; log: Logger; owner: string }): PostSlot {
  const { content, poster, runs, log, owner } = deps;
  return async (digest, slot, stopping) => {
    try {
      const message = await content.render(digest, slot, false);
      if (stopping.aborted) {
        await runs.release(digest.id, slot, owner);
        log.info({ digest: digest.id, slot: slot.toISOString() }, 'shutting down: digest slot handed back, not posted');
        return;
      }
      const ts = await poster.post(digest.channelId, message);
      await runs.markPosted(digest.id, slot, ts, digest.channelId);
      log.info({ digest: digest.id, slot: slot.toISOString(), channel: digest.channelId }, 'digest posted');
    } catch (error) {
      const reason = slackReason(error);
      await runs.markFailed(digest.id, slot, reason);
      log.error({ digest: digest.id, slot: slot.toISOString(), channel: digest.channelId, reason }, 'digest failed');
    }
  };
}
