import type { Routes } from '../../platform/slack/routes.js';
import { staleMessage, usageMessage } from '../../platform/slack/kit/messages.js';
import { buttonValue, isEphemeral } from '../../platform/slack/routes.js';
import { decodeCardRef, VISITOR_ACTIONS } from './card.js';
import { BACK_TO_CARD_ACTION } from '../../kernel/trend.js';
import { parseVisitorCommand } from './parse.js';
import type { VisitorService } from './service.js';

/**
 * `/visitor <id> [visit <visit_id>]`: the security card, ephemeral, for those allowed to see it.
 * The card's own buttons: "Recent visits ▶" replaces the card in place; "Post to channel"
 * posts it for everyone, with IP addresses masked.
 */
export function registerVisitor(routes: Routes, visitors: VisitorService): void {
  routes.handleCommand('/visitor', async ({ command }, { log, reply, tenant }) => {
    const parsed = parseVisitorCommand(command.text ?? '');
    if (parsed.kind === 'error') return reply(usageMessage(parsed.message, parsed.usage));
    const card = await visitors.card(await tenant(), {
      visitorId: parsed.visitorId,
      visitId: parsed.visitId,
      channelId: command.channel_id,
      user: command.user_id,
      log,
    });
    return reply(card.message);
  });
  const page = (id: string) =>
    routes.handle(id, async ({ body, action, context }, { log, reply, tenant }) => {
      const wanted = decodeCardRef(action.type === 'button' ? action.value : undefined);
      if (!wanted) return reply(staleMessage());
      const card = await visitors.card(await tenant(), {
        ...wanted,
        channelId: body.channel?.id,
        user: body.user.id,
        log,
      });
      return context.responses.reply(body.response_url, isEphemeral(body))(card.message);
    });
  for (const id of [VISITOR_ACTIONS.more, VISITOR_ACTIONS.newer, BACK_TO_CARD_ACTION]) page(id);
  routes.handle(VISITOR_ACTIONS.share, async (args, { log, reply, tenant }) => {
    const wanted = decodeCardRef(buttonValue(args));
    if (!wanted) return reply(staleMessage());
    const card = await visitors.card(await tenant(), {
      ...wanted,
      channelId: args.body.channel?.id,
      user: args.body.user.id,
      share: true,
      log,
    });
    if (card.ok)
      return args.context.responses.post(args.body.response_url, {
        ...card.message,
        response_type: 'in_channel',
        replace_original: false,
      });
    return reply(card.message);
  });
}
