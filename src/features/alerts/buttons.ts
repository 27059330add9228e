import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { isSafeId } from '../../platform/api/security.js';
import { mayPostSecurity, maySeeSecurity, refusal } from '../../platform/slack/access.js';
import { alertMessage, alertViewOf } from './blocks.js';
import { problemMessage } from '../../platform/slack/kit/messages.js';
import type { SlackDeps } from '../../platform/slack/deps.js';
import { guarded } from '../../platform/slack/respond.js';
import { runVisitorCard } from '../visitor/service.js';
import { isAdmin } from '../digests/listeners.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;
export type AlertVerb = 'ack' | 'mute24h' | 'mute7d' | 'unmute' | 'details';

const MUTE_MS: Partial<Record<AlertVerb, number>> = { mute24h: 24 * 3_600_000, mute7d: 7 * 86_400_000 };

/**
 * The buttons on an alert. Acknowledge (anyone) and Mute/Unmute (admins) update
 * the alert in place, for everyone; Details opens the visitor card for the clicker alone.
 */
export function alertButton(deps: SlackDeps, verb: AlertVerb) {
  return async (args: Args) => {
    await args.ack();
    const user = args.body.user.id;
    const channel = args.body.channel?.id;
    const ephemeral = (m: { text: string; blocks: unknown[] }) => args.respond({ ...m, blocks: m.blocks as never, response_type: 'ephemeral', replace_original: false });
    await guarded(deps, `alert ${verb}`, ephemeral, async () => {
      const visitorId = args.action.type === 'button' ? (args.action.value ?? '') : '';
      if (!channel || !isSafeId(visitorId)) return ephemeral(problemMessage('This alert is too old to act on.'));
      if (verb === 'details') {
        if (!maySeeSecurity(deps.security, user, channel)) return ephemeral(refusal(deps.security, user, channel));
        const card = await runVisitorCard(deps, { visitorId, channelId: channel, showIp: true, canShare: mayPostSecurity(deps.security, channel) });
        return ephemeral(card.message);
      }
      const now = deps.now();
      if (verb !== 'ack' && !isAdmin(deps, user)) return ephemeral(problemMessage('Only Lookout admins can mute alerts.', 'Acknowledge it instead, or ask one of the ADMIN_USERS.'));
      const { alerts, mutes } = deps.alerts;
      if (verb === 'ack') await alerts.acknowledge(channel, visitorId, user, now);
      else if (verb === 'unmute') await mutes.unmute(channel, visitorId);
      else await mutes.mute(channel, visitorId, new Date(now.getTime() + MUTE_MS[verb]!), user);
      const alert = await alerts.get(channel, visitorId);
      if (!alert) return ephemeral(problemMessage('This alert is no longer in the store.'));
      const mute = await mutes.isMuted(channel, visitorId, now);
      deps.log.info({ channel, visitorId, user, verb }, 'alert changed');
      await args.respond({
        ...alertMessage(alertViewOf(alert, { timeZone: deps.defaultTimezone, now, mutedUntil: mute ? (mute.until ?? null) : undefined })),
        replace_original: true,
      });
    });
  };
}
