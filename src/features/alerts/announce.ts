import type { VerdictName } from '../../kernel/verdict.js';
import { DeliveryRepo } from '../../platform/deliveries/repo.js';
import type { Queryable } from '../../platform/store/db.js';
import { alertMessage, alertViewOf, groupMessage, type AlertRecord, type AlertView } from './blocks.js';
import { ALERT, ALERT_EDIT, ALERT_GROUP } from './deliveries.js';
import { GROUP_WINDOW_MS, planDelivery, type NewAlert } from './plan.js';
import { AlertRepo, type Alert } from './repos/alerts.js';
import { AlertGroupRepo, type AlertGroup } from './repos/groups.js';
import { AlertMuteRepo } from './repos/mutes.js';
import type { AlertSubscription } from './repos/subscriptions.js';

export interface AnnounceOptions {
  /** An alert not posted within this is given up (and shown as failed). */
  deliveryDeadlineMs: number;
  timeZone: string;
  /** ALERT_BURST: in a channel that takes one message per visitor, more new flagged visitors than this in one scan become one group. */
  burst: number;
}

/** An alert as its message shows it. */
export function viewOf(
  alert: AlertRecord,
  now: Date,
  timeZone: string,
  extra: { raised?: boolean; mutedUntil?: Date | null } = {},
): AlertView {
  return alertViewOf(alert, { timeZone, now, ...extra });
}

/**
 * The new alerts of a channel, out as its grouping says (plan.ts): a post each, or a
 * group's message (posted, or edited to its new summary) with a reply each in its thread.
 * Each alert records the delivery that announces it; how many were announced.
 */
export async function announceNew(
  tx: Queryable,
  subscription: AlertSubscription,
  claimed: readonly NewAlert[],
  now: Date,
  options: AnnounceOptions,
): Promise<number> {
  if (claimed.length === 0) return 0;
  const alerts = new AlertRepo(tx);
  const groups = new AlertGroupRepo(tx);
  const outbox = new DeliveryRepo(tx);
  const { teamId: team, channelId: channel } = subscription;
  const expiresInMs = options.deliveryDeadlineMs;
  // A channel's groups are decided by one scan at a time (replicas handing the lease over).
  await groups.lock(team, channel);
  const open = subscription.grouping === 'grouped' ? await openGroup(groups, outbox, team, channel, now) : undefined;
  const plan = planDelivery(claimed, {
    grouping: subscription.grouping,
    burst: options.burst,
    ...(open ? { open } : {}),
  });
  const rows = await alerts.getMany(
    team,
    channel,
    plan.alerts.map((a) => a.visitorId),
  );
  const fresh = plan.alerts.map((a) => rows.get(a.visitorId)).filter((a): a is Alert => a !== undefined);
  const post = (alert: Alert, where: { threadOf?: number }, mutedUntil?: Date | null) =>
    outbox.enqueue({
      subject: ALERT,
      payload: { visitorId: alert.visitorId },
      team,
      channelId: channel,
      message: alertMessage(viewOf(alert, now, options.timeZone, mutedUntil === undefined ? {} : { mutedUntil })),
      expiresInMs,
      ...where,
    });
  const summary = (members: readonly Alert[], since: Date, openUntil?: Date) =>
    groupMessage({
      channelId: channel,
      since,
      ...(openUntil ? { openUntil } : {}),
      members: members.map((a) => ({ ...a, verdict: a.verdict as VerdictName })),
      timeZone: options.timeZone,
      now,
    });

  if (plan.kind === 'each') {
    for (const alert of fresh) await alerts.announce(team, channel, alert.visitorId, await post(alert, {}));
  } else if (plan.kind === 'start' && !plan.summary) {
    // A lone alert is posted as it is; it opens a group that a second one turns into a summary.
    const [alert] = fresh;
    if (!alert) return 0;
    const id = await post(alert, {});
    const group = await groups.create({
      teamId: team,
      channelId: channel,
      startedAt: now,
      endsAt: new Date(now.getTime() + GROUP_WINDOW_MS),
      deliveryId: id,
      summarised: false,
    });
    await alerts.announce(team, channel, alert.visitorId, id, { groupId: group.id });
  } else if (plan.kind === 'start') {
    const endsAt = plan.closed ? now : new Date(now.getTime() + GROUP_WINDOW_MS);
    const top = await outbox.enqueue({
      subject: ALERT_GROUP,
      team,
      channelId: channel,
      message: summary(fresh, now, plan.closed ? undefined : endsAt),
      expiresInMs,
    });
    const group = await groups.create({
      teamId: team,
      channelId: channel,
      startedAt: now,
      endsAt,
      deliveryId: top,
      summarised: true,
    });
    for (const alert of fresh)
      await alerts.announce(team, channel, alert.visitorId, await post(alert, { threadOf: top }), {
        groupId: group.id,
      });
  } else {
    const group = open!;
    const before = await alerts.inGroup(team, group.id);
    const others = before.filter((a) => !rows.has(a.visitorId));
    await outbox.enqueue({
      subject: ALERT_EDIT,
      team,
      channelId: channel,
      message: summary([...others, ...fresh], group.startedAt, group.endsAt),
      updateOf: group.deliveryId,
      expiresInMs,
    });
    if (plan.convert) {
      // The group's message was its first alert: that alert moves into the thread, as it stands now
      // (unless it was announced elsewhere since, its severity having risen).
      await groups.summarise(team, group.id);
      const mutes = new AlertMuteRepo(tx);
      for (const alert of others.filter((a) => a.deliveryId === group.deliveryId)) {
        const mute = await mutes.isMuted(team, channel, alert.visitorId, now);
        await alerts.announce(
          team,
          channel,
          alert.visitorId,
          await post(alert, { threadOf: group.deliveryId }, mute ? (mute.until ?? null) : undefined),
          { moved: true },
        );
      }
    }
    for (const alert of fresh)
      await alerts.announce(team, channel, alert.visitorId, await post(alert, { threadOf: group.deliveryId }), {
        groupId: group.id,
      });
  }
  return fresh.length;
}

/** The channel's group still taking alerts: its window not over and its message not given up. */
async function openGroup(
  groups: AlertGroupRepo,
  outbox: DeliveryRepo,
  team: string,
  channel: string,
  now: Date,
): Promise<AlertGroup | undefined> {
  const group = await groups.latestOpen(team, channel, now);
  if (!group) return undefined;
  const top = await outbox.get(group.deliveryId);
  return top && top.status !== 'failed' ? group : undefined;
}
