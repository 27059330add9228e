import { DeliveryRepo, type Delivery } from '../../platform/deliveries/repo.js';
import type { SubjectHooks } from '../../platform/deliveries/worker.js';
import { channelRefusedNotice } from '../../platform/slack/kit/messages.js';
import type { Queryable } from '../../platform/store/db.js';
import { DigestRepo } from './repo.js';
import { DigestRunRepo } from './runs.js';

const NOTICE_DEADLINE_MS = 24 * 3_600_000;

function runOf(delivery: Delivery): { digestId: number; slot: Date } {
  const { digestId, slot } = delivery.subject as { digestId?: unknown; slot?: unknown };
  return { digestId: Number(digestId), slot: new Date(String(slot)) };
}

/**
 * What a digest's delivery means for its run: posted or failed, with Slack's reason.
 * When Slack refuses the channel for good, the digest needs attention and its owner is told, once.
 */
export const digestDeliveryHooks: SubjectHooks = {
  async posted(tx: Queryable, delivery, messageTs) {
    const { digestId, slot } = runOf(delivery);
    await new DigestRunRepo(tx).markPosted(digestId, slot, messageTs, delivery.channelId);
    await new DigestRepo(tx).clearAttention(digestId);
  },
  async failed(tx: Queryable, delivery, failure) {
    const { digestId, slot } = runOf(delivery);
    await new DigestRunRepo(tx).markFailed(digestId, slot, failure.reason);
    if (!failure.channel) return;
    const before = await new DigestRepo(tx).markAttention(digestId, failure.reason);
    if (!before || before.attention) return;
    await new DeliveryRepo(tx).enqueue({
      kind: 'notice',
      channelId: before.ownerId,
      message: channelRefusedNotice(`digest #${digestId}`, delivery.channelId, failure.reason, `move it with /traffic digest edit ${digestId}.`),
      expiresInMs: NOTICE_DEADLINE_MS,
    });
  },
};
