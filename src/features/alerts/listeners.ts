import type { TenantOf } from '../../platform/slack/request-context.js';
import type { Routes } from '../../platform/slack/routes.js';
import { SafeId } from '../../kernel/text.js';
import { messageOf, problemMessage, usageMessage } from '../../platform/slack/kit/messages.js';
import { buttonValue } from '../../platform/slack/routes.js';
import type { Subcommand } from '../../platform/slack/subcommand.js';
import type { VisitorCards } from '../visitor/index.js';
import { ALERT_ACTIONS } from './blocks.js';
import { parseAlertsCommand } from './parse.js';
import type { AlertService } from './service.js';

/** `/traffic alerts …` (after the ack). */
export function alertsCommand(alerts: AlertService, tenantOf: TenantOf): Subcommand {
  return async ({ command, args, reply }) => {
    const parsed = parseAlertsCommand(args.map((t) => t.text));
    if (parsed.kind === 'error') return reply(usageMessage(parsed.message, parsed.usage));
    const tenant = await tenantOf(command.team_id);
    const user = command.user_id;
    const here = command.channel_id;
    switch (parsed.kind) {
      case 'status':
        return reply(await alerts.status(tenant, here));
      case 'on':
        return reply(messageOf(await alerts.subscribe(tenant, user, here, parsed)));
      case 'off':
        return reply(messageOf(await alerts.unsubscribe(tenant, user, here, parsed.channel)));
      case 'mute':
        return reply(messageOf(await alerts.mute(tenant, user, here, parsed.visitorId, parsed.forMs)));
      case 'unmute':
        return reply(messageOf(await alerts.unmute(tenant, user, here, parsed.visitorId)));
    }
  };
}

/**
 * The buttons on an alert. Acknowledge, Mute and Unmute update the alert in place, for
 * everyone; Details opens the visitor card for the clicker alone.
 */
export function registerAlerts(routes: Routes, alerts: AlertService, cards: VisitorCards): void {
  for (const action of ['ack', 'mute24h', 'mute7d', 'unmute', 'details'] as const) {
    routes.handle(ALERT_ACTIONS[action], async (args, { log, reply, tenant }) => {
      const user = args.body.user.id;
      const channel = args.body.channel?.id;
      const parsed = SafeId.safeParse(buttonValue(args));
      if (!channel || !parsed.success) return reply(problemMessage('This alert is too old to act on.'));
      const visitorId = parsed.data;
      if (action === 'details')
        return reply((await cards.card(await tenant(), { visitorId, channelId: channel, user, log })).message);
      const outcome = await alerts.act(await tenant(), user, channel, visitorId, action);
      if (!outcome.ok) return reply(outcome.message);
      return args.context.responses.post(args.body.response_url, { ...outcome.value, replace_original: true });
    });
  }
}
