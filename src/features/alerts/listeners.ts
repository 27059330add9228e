import type { Routes } from '../../platform/slack/routes.js';
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { SafeId } from '../../kernel/text.js';
import { messageOf, problemMessage, usageMessage } from '../../platform/slack/kit/messages.js';
import { guarded, postToResponseUrl, replyTo, requestLog } from '../../platform/slack/respond.js';
import type { Subcommand } from '../../platform/slack/subcommand.js';
import type { VisitorCards } from '../visitor/index.js';
import { ALERT_ACTIONS } from './blocks.js';
import { parseAlertsCommand } from './parse.js';
import type { AlertAction, AlertService } from './service.js';

type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** `/traffic alerts …` (after the ack). */
export function alertsCommand(alerts: AlertService): Subcommand {
  return async ({ command, args, reply }) => {
    const parsed = parseAlertsCommand(args.map((t) => t.text));
    const user = command.user_id;
    const here = command.channel_id;
    switch (parsed.kind) {
      case 'error':
        return void (await reply(usageMessage(parsed.message, parsed.usage)));
      case 'status':
        return void (await reply(await alerts.status(here)));
      case 'on':
        return void (await reply(messageOf(await alerts.subscribe(user, command.team_id, here, parsed))));
      case 'off':
        return void (await reply(messageOf(await alerts.unsubscribe(user, here, parsed.channel))));
      case 'mute':
        return void (await reply(messageOf(await alerts.mute(user, here, parsed.visitorId, parsed.forMs))));
      case 'unmute':
        return void (await reply(messageOf(await alerts.unmute(user, here, parsed.visitorId))));
    }
  };
}

/**
 * The buttons on an alert. Acknowledge, Mute and Unmute update the alert in place, for
 * everyone; Details opens the visitor card for the clicker alone.
 */
function alertButton(alerts: AlertService, cards: VisitorCards, action: AlertAction | 'details') {
  return async (args: ActionArgs) => {
    await args.ack();
    const log = requestLog(args.context, alerts.log);
    const user = args.body.user.id;
    const channel = args.body.channel?.id;
    const tell = replyTo(args.body.response_url, false);
    await guarded(log, `alert ${action}`, tell, async () => {
      const parsed = SafeId.safeParse(args.action.type === 'button' ? args.action.value : undefined);
      if (!channel || !parsed.success) return tell(problemMessage('This alert is too old to act on.'));
      const visitorId = parsed.data;
      if (action === 'details') return tell((await cards.card({ visitorId, channelId: channel, user, log })).message);
      const outcome = await alerts.act(user, channel, visitorId, action);
      if (!outcome.ok) return tell(outcome.message);
      await postToResponseUrl(args.body.response_url, { ...outcome.value, replace_original: true });
    });
  };
}

export function registerAlerts(app: Routes, alerts: AlertService, cards: VisitorCards): void {
  for (const action of ['ack', 'mute24h', 'mute7d', 'unmute', 'details'] as const) app.action(ALERT_ACTIONS[action], alertButton(alerts, cards, action));
}
