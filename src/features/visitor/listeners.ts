import type { Routes } from '../../platform/slack/routes.js';
import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { staleMessage, usageMessage } from '../../platform/slack/kit/messages.js';
import { guarded, postToResponseUrl, replyTo, requestLog } from '../../platform/slack/respond.js';
import { decodeCardRef, VISITOR_ACTIONS } from './card.js';
import { BACK_TO_CARD_ACTION } from '../../kernel/trend.js';
import { parseVisitorCommand } from './parse.js';
import type { VisitorService } from './service.js';

type ActionArgs = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** `/visitor <id> [visit <visit_id>]`: the security card, ephemeral, for those allowed to see it. */
function visitorCommand(visitors: VisitorService) {
  return async ({ ack, command, context }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const log = requestLog(context, visitors.log);
    const reply = replyTo(command.response_url, false);
    await guarded(log, '/visitor', reply, async () => {
      const parsed = parseVisitorCommand(command.text ?? '');
      if (parsed.kind === 'error') return reply(usageMessage(parsed.message, parsed.usage));
      const card = await visitors.card({ visitorId: parsed.visitorId, visitId: parsed.visitId, channelId: command.channel_id, user: command.user_id, log });
      return reply(card.message);
    });
  };
}

/**
 * The card's own buttons. "Recent visits ▶" replaces the card in place; "Post to channel"
 * posts it for everyone, with IP addresses masked.
 */
function cardButton(visitors: VisitorService, mode: 'page' | 'share') {
  return async (args: ActionArgs) => {
    await args.ack();
    const log = requestLog(args.context, visitors.log);
    const ephemeral = (args.body.container as { is_ephemeral?: boolean } | undefined)?.is_ephemeral === true;
    const tell = replyTo(args.body.response_url, false);
    await guarded(log, `visitor ${mode}`, tell, async () => {
      const wanted = decodeCardRef(args.action.type === 'button' ? args.action.value : undefined);
      if (!wanted) return tell(staleMessage());
      const share = mode === 'share';
      const card = await visitors.card({ ...wanted, channelId: args.body.channel?.id, user: args.body.user.id, share, log });
      if (share && card.ok) return postToResponseUrl(args.body.response_url, { ...card.message, response_type: 'in_channel', replace_original: false });
      return replyTo(args.body.response_url, !share && ephemeral)(card.message);
    });
  };
}

export function registerVisitor(app: Routes, visitors: VisitorService): void {
  app.command('/visitor', visitorCommand(visitors));
  app.action(VISITOR_ACTIONS.more, cardButton(visitors, 'page'));
  app.action(VISITOR_ACTIONS.newer, cardButton(visitors, 'page'));
  app.action(BACK_TO_CARD_ACTION, cardButton(visitors, 'page'));
  app.action(VISITOR_ACTIONS.share, cardButton(visitors, 'share'));
}
