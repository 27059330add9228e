import { z } from 'zod';
import { DeliveryRepo } from '../../platform/deliveries/repo.js';
import { defineSubject, NOTICE, type Delivered, type SubjectHooks } from '../../platform/deliveries/subject.js';
import type { Queryable } from '../../platform/store/db.js';
import { channelRefusedNotice } from '../../platform/slack/kit/messages.js';
import { AlertRepo } from './repos/alerts.js';
import { AlertSubscriptionRepo } from './repos/subscriptions.js';

const NOTICE_DEADLINE_MS = 24 * 3_600_000;

/**
 * What any delivery to an alert channel means for its subscription: once one is posted,
 * the channel takes messages; when Slack refuses the channel for good, the subscription
 * needs attention and whoever turned it on is told, once.
 */
const subscriptionHooks = {
  async posted(tx: Queryable, delivery: Delivered<unknown>) {
    await new AlertSubscriptionRepo(tx).clearAttention(delivery.team, delivery.channelId);
  },
  async failed(tx: Queryable, delivery: Delivered<unknown>, failure: { reason: string; channel: boolean }) {
    if (!failure.channel) return;
    const channelId = delivery.channelId;
    const before = await new AlertSubscriptionRepo(tx).markAttention(delivery.team, channelId, failure.reason);
    if (!before || before.attention) return;
    await new DeliveryRepo(tx).enqueue({
      subject: NOTICE,
      team: delivery.team,
      channelId: before.createdBy,
      message: channelRefusedNotice(
        'threat alerts',
        channelId,
        failure.reason,
        'turn alerts off there with /traffic alerts off. Until then its alerts show as failed in /traffic alerts status.',
      ),
      expiresInMs: NOTICE_DEADLINE_MS,
    });
  },
} satisfies SubjectHooks<unknown>;

/** A flagged visitor's alert; once posted, the alert records its message (so later sightings thread under it). */
export const ALERT = defineSubject({
  kind: 'alert',
  payload: z.object({ visitorId: z.string().optional() }),
  sensitive: true,
  hooks: {
    async posted(tx, delivery, messageTs, threadTs) {
      const { visitorId } = delivery.payload;
      if (visitorId)
        await new AlertRepo(tx).setPosted(
          delivery.team,
          delivery.channelId,
          visitorId,
          messageTs,
          threadTs ?? messageTs,
          delivery.id,
        );
      await subscriptionHooks.posted(tx, delivery);
    },
    failed: (tx, delivery, failure) => subscriptionHooks.failed(tx, delivery, failure),
  },
});

/** A group's message: the flagged visitors of a burst, summed up (each alert replies in its thread). */
export const ALERT_GROUP = defineSubject({
  kind: 'burst',
  label: 'alert group',
  payload: z.object({}),
  sensitive: true,
  hooks: subscriptionHooks,
});

/** A reply in an alert's thread: the visitor was seen again. */
export const SIGHTING = defineSubject({
  kind: 'sighting',
  payload: z.object({}),
  sensitive: true,
  hooks: subscriptionHooks,
});

/** An alert or a group's message edited in place. */
export const ALERT_EDIT = defineSubject({
  kind: 'update',
  label: 'alert update',
  payload: z.object({}),
  sensitive: true,
  hooks: subscriptionHooks,
});

export const ALERT_SUBJECTS = [ALERT, ALERT_GROUP, SIGHTING, ALERT_EDIT];
