import { withRange, withSort, type ReportQuery } from '../../../kernel/query.js';
import { isSafeId } from '../../../kernel/text.js';
import { staleMessage, usageMessage } from '../../../platform/slack/kit/messages.js';
import { buttonValue, type ActionArgs, type Handling } from '../../../platform/slack/routes.js';
import type { VisitorCards } from '../../visitor/index.js';
import { decodeMenuChoice, MENU_BLOCK_PREFIX } from '../blocks.js';
import { TRAFFIC_USAGE } from '../parse.js';
import type { ReportService } from '../service.js';

/**
 * ◀ Prev / Next ▶: the button's value is the page to show. The menus: the query is in the
 * block_id, the change in the option. A query that is gone or tampered with is `stale`; a
 * menu option that is not one of the report's is answered as a bad command would be.
 */
async function targetOf(
  reports: ReportService,
  args: ActionArgs,
  team: string,
): Promise<ReportQuery | 'stale' | { error: string }> {
  const { action } = args;
  if (action.type === 'button') return (await reports.refs.resolve(team, action.value)) ?? 'stale';
  if (action.type !== 'static_select' || !action.block_id?.startsWith(MENU_BLOCK_PREFIX)) return 'stale';
  const query = await reports.refs.resolve(team, action.block_id.slice(MENU_BLOCK_PREFIX.length));
  if (!query) return 'stale';
  const choice = decodeMenuChoice(action.selected_option?.value, reports.catalog[query.report]);
  if (!choice.ok) return { error: choice.error };
  return 'range' in choice.choice ? withRange(query, choice.choice.range) : withSort(query, choice.choice.sort);
}

/** Changes one thing and shows the result in place of the message (or, under a shared one, to the clicker). */
export function navigate(reports: ReportService) {
  return async (args: ActionArgs, { log, reply, team, tenant }: Handling) => {
    const query = await targetOf(reports, args, team);
    if (query === 'stale') return reply(staleMessage());
    if ('error' in query) return reply(usageMessage(query.error, TRAFFIC_USAGE));
    const answer = await reports.answer(await tenant(), query, {
      channelId: args.body.channel?.id,
      ephemeral: true,
      user: args.body.user.id,
      log,
    });
    return reply(answer.message);
  };
}

/** "Post to channel": the same report, fetched afresh, posted for everyone; the ephemeral copy goes away. */
export function share(reports: ReportService) {
  return async (args: ActionArgs, { log, reply, team, tenant }: Handling) => {
    const query = await reports.refs.resolve(team, buttonValue(args));
    if (!query) return reply(staleMessage());
    const answer = await reports.answer(await tenant(), query, {
      channelId: args.body.channel?.id,
      ephemeral: false,
      user: args.body.user.id,
      sharedBy: args.body.user.id,
      log,
    });
    if (!answer.ok) return reply(answer.message);
    return args.context.responses.share(args.body.response_url, answer.message);
  };
}

/** "Inspect visitor…" on a visitors or visits page: the visitor's card, for the clicker. */
export function inspect(reports: ReportService, cards: VisitorCards) {
  return async (args: ActionArgs, { log, reply, tenant }: Handling) => {
    const visitorId = args.action.type === 'static_select' ? args.action.selected_option?.value : undefined;
    if (!isSafeId(visitorId)) return reply(staleMessage());
    const card = await cards.card(await tenant(), {
      visitorId,
      channelId: args.body.channel?.id,
      user: args.body.user.id,
      log,
    });
    return reply(card.message);
  };
}
