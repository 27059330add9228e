import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { isSafeId } from '../../platform/api/security.js';
import { mayPostSecurity, maySeeSecurity, refusal } from '../../platform/slack/access.js';
import { staleMessage } from '../../platform/slack/kit/messages.js';
import { decodeCardRef } from './card.js';
import type { SlackDeps } from '../../platform/slack/deps.js';
import { guarded, replyTo } from '../../platform/slack/respond.js';
import { runVisitorCard } from './service.js';
import { isEphemeral } from '../reports/listeners/context.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Which visitor a click is about: a card's button value, or the id picked in a report's "Inspect visitor" menu. */
function target(args: Args): { visitorId: string; page: number; visitId?: string } | null {
  const { action } = args;
  if (action.type === 'static_select') {
    const id = action.selected_option?.value ?? '';
    return isSafeId(id) ? { visitorId: id, page: 1 } : null;
  }
  const ref = decodeCardRef(action.type === 'button' ? action.value : undefined);
  return ref && isSafeId(ref.visitorId) && (!ref.visitId || isSafeId(ref.visitId)) ? ref : null;
}

/**
 * Opens or pages a visitor card. "Recent visits ▶" replaces the card in place;
 * "Inspect visitor" on a report answers with a new ephemeral card.
 * `share`: the card is posted for everyone, with IP addresses masked.
 */
export function visitorCardAction(deps: SlackDeps, mode: 'open' | 'page' | 'share') {
  return async (args: Args) => {
    await args.ack();
    const channel = args.body.channel?.id;
    const user = args.body.user.id;
    const ephemeralReply = (m: Parameters<typeof replyTo>[2], replace: boolean) => replyTo(args.respond, { ephemeral: replace }, m);
    await guarded(deps, `visitor ${mode}`, (m) => ephemeralReply(m, false), async () => {
      if (!maySeeSecurity(deps.security, user, channel)) return ephemeralReply(refusal(deps.security, user, channel), false);
      const wanted = target(args);
      if (!wanted) return ephemeralReply(staleMessage(), false);
      const share = mode === 'share';
      if (share && !mayPostSecurity(deps.security, channel)) return ephemeralReply(refusal(deps.security, user, undefined), false);
      const answer = await runVisitorCard(deps, {
        ...wanted,
        channelId: channel,
        showIp: !share,
        canShare: !share && mayPostSecurity(deps.security, channel),
      });
      if (share) {
        if (!answer.ok) return ephemeralReply(answer.message, false);
        return args.respond({ ...answer.message, response_type: 'in_channel', replace_original: false });
      }
      return ephemeralReply(answer.message, mode === 'page' && isEphemeral(args.body));
    });
  };
}
