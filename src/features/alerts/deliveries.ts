import { DeliveryRepo, type Delivery } from '../../platform/deliveries/repo.js';
import type { SubjectHooks } from '../../platform/deliveries/worker.js';
import type { Queryable } from '../../platform/store/db.js';
import { channelRefusedNotice } from '../../platform/slack/kit/messages.js';
import { AlertRepo, AlertSubscriptionRepo } from './repo.js';

const NOTICE_DEADLINE_MS = 24 * 3_600_000;

/** The alert a delivery announces; no visitor for a group's message or an edit. */
function alertOf(delivery: Delivery): { channelId: string; visitorId?: string } {
  const { visitorId } = delivery.subject as { visitorId?: unknown };
  return { channelId: delivery.channelId, ...(typeof visitorId === 'string' ? { visitorId } : {}) };
}

/**
 * What an alert's delivery means for the alert: once posted, it records its message (so
 * later sightings thread under it); when Slack refuses the channel for good, the
 * subscription needs attention and whoever turned it on is told, once.
 */
export const alertDeliveryHooks: SubjectHooks = {
  async posted(tx: Queryable, delivery, messageTs, threadTs) {
    const { channelId, visitorId } = alertOf(delivery);
    if (visitorId) await new AlertRepo(tx).setPosted(channelId, visitorId, messageTs, threadTs ?? messageTs, delivery.id);
    await new AlertSubscriptionRepo(tx).clearAttention(channelId);
  },
  async failed(tx: Queryable, delivery, failure) {
    if (!failure.channel) return;
    const { channelId } = alertOf(delivery);
    const before = await new AlertSubscriptionRepo(tx).markAttention(channelId, failure.reason);
    if (!before || before.attention) return;
    await new DeliveryRepo(tx).enqueue({
      kind: 'notice',
      channelId: before.createdBy,
      message: channelRefusedNotice('threat alerts', channelId, failure.reason, 'turn alerts off there with /traffic alerts off. Until then its alerts show as failed in /traffic alerts status.'),
      expiresInMs: NOTICE_DEADLINE_MS,
    });
  },
};
