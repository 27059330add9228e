import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { staleMessage } from '../../../platform/slack/kit/messages.js';
import type { SlackDeps } from '../../../platform/slack/deps.js';
import { runReport } from '../service.js';
import { guarded, replyTo } from '../../../platform/slack/respond.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

/** "Post to channel": the same report, fetched afresh, posted for everyone; the ephemeral copy goes away. */
export function shareReport(deps: SlackDeps) {
  return async ({ ack, action, body, respond }: Args) => {
    await ack();
    const tell = (m: Parameters<typeof replyTo>[2]) => replyTo(respond, { ephemeral: true }, m);
    await guarded(deps, 'share report', tell, async () => {
      const query = await deps.refs.resolve(action.type === 'button' ? action.value : undefined);
      if (!query) return tell(staleMessage());
      const answer = await runReport(deps, query, { channelId: body.channel?.id, ephemeral: false });
      if (!answer.ok) return tell(answer.message);
      await respond({ ...answer.message, response_type: 'in_channel', replace_original: false });
      await respond({ delete_original: true });
    });
  };
}
