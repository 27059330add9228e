import { z } from 'zod';
import { DeliveryRepo } from '../../platform/deliveries/repo.js';
import { defineSubject, NOTICE } from '../../platform/deliveries/subject.js';
import { channelRefusedNotice } from '../../platform/slack/kit/messages.js';
import { DigestRepo } from './repo.js';
import { DigestRunRepo } from './runs.js';

const NOTICE_DEADLINE_MS = 24 * 3_600_000;

/**
 * A digest's slot. Posted or failed, its run records it, with Slack's reason.
 * When Slack refuses the channel for good, the digest needs attention and its owner is told, once.
 */
export const DIGEST = defineSubject({
  kind: 'digest',
  payload: z.object({ digestId: z.number().int(), slot: z.coerce.date() }),
  hooks: {
    async posted(tx, delivery, messageTs) {
      const { digestId, slot } = delivery.payload;
      await new DigestRunRepo(tx).markPosted(digestId, slot, messageTs, delivery.channelId);
      await new DigestRepo(tx).clearAttention(digestId);
    },
    async failed(tx, delivery, failure) {
      const { digestId, slot } = delivery.payload;
      await new DigestRunRepo(tx).markFailed(digestId, slot, failure.reason);
      if (!failure.channel) return;
      const before = await new DigestRepo(tx).markAttention(digestId, failure.reason);
      if (!before || before.attention) return;
      await new DeliveryRepo(tx).enqueue({
        subject: NOTICE,
        team: delivery.team,
        channelId: before.ownerId,
        message: channelRefusedNotice(
          `digest #${digestId}`,
          delivery.channelId,
          failure.reason,
          `move it with /traffic digest edit ${digestId}.`,
        ),
        expiresInMs: NOTICE_DEADLINE_MS,
      });
    },
  },
});
