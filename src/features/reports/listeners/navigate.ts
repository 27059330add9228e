import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { withRange, withSort, type ReportQuery } from '../../../kernel/query.js';
import { staleMessage } from '../../../platform/slack/kit/messages.js';
import type { SlackDeps } from '../../../platform/slack/deps.js';
import { runReport } from '../service.js';
import { guarded, replyTo } from '../../../platform/slack/respond.js';
import { isEphemeral, menuRef } from './context.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** Reads the query the click asks for; null when it cannot be trusted. */
type Target = (deps: SlackDeps, args: Args) => Promise<ReportQuery | null>;

/** ◀ Prev / Next ▶: the button's value is the page to show. */
export const pageTarget: Target = (deps, { action }) =>
  deps.refs.resolve(action.type === 'button' ? action.value : undefined);

/** The range and sort menus: the current query is in the block_id, the change in the option. */
export const menuTarget: Target = async (deps, { action }) => {
  if (action.type !== 'static_select') return null;
  const query = await deps.refs.resolve(menuRef(action.block_id));
  const choice = action.selected_option?.value ?? '';
  if (!query) return null;
  if (choice.startsWith('r:')) return withRange(query, choice.slice(2));
  const sort = /^s:(.+):(asc|desc)$/.exec(choice);
  if (sort) return withSort(query, { key: sort[1]!, dir: sort[2] as 'asc' | 'desc' });
  return null;
};

/** Changes one thing and shows the result in place of the message (or, under a shared one, to the clicker). */
export function navigate(deps: SlackDeps, target: Target) {
  return async (args: Args) => {
    await args.ack();
    const where = { ephemeral: isEphemeral(args.body) };
    const tell = (m: Parameters<typeof replyTo>[2]) => replyTo(args.respond, where, m);
    await guarded(deps, `action ${args.action.action_id}`, tell, async () => {
      const query = await target(deps, args);
      if (!query) return tell(staleMessage());
      const answer = await runReport(deps, query, { channelId: args.body.channel?.id, ephemeral: true });
      return tell(answer.message);
    });
  };
}
