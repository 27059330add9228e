import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { parseVisitorCommand } from '../reports/parse.js';
import { mayPostSecurity, maySeeSecurity, refusal } from '../../platform/slack/access.js';
import { usageMessage, type SlackMessage } from '../../platform/slack/kit/messages.js';
import type { SlackDeps } from '../../platform/slack/deps.js';
import { guarded } from '../../platform/slack/respond.js';
import { runVisitorCard } from './service.js';

/** `/visitor <id> [visit <visit_id>]`: the security card, ephemeral, for those allowed to see it. */
export function visitorCommand(deps: SlackDeps) {
  return async ({ ack, command, respond }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const ephemeral = (message: SlackMessage) => respond({ ...message, response_type: 'ephemeral' });
    await guarded(deps, '/visitor', ephemeral, async () => {
      if (!maySeeSecurity(deps.security, command.user_id, command.channel_id)) {
        deps.log.info({ user: command.user_id, channel: command.channel_id }, '/visitor refused');
        return ephemeral(refusal(deps.security, command.user_id, command.channel_id));
      }
      const parsed = parseVisitorCommand(command.text ?? '');
      if (parsed.kind === 'error') return ephemeral(usageMessage(parsed.message, parsed.usage));
      const answer = await runVisitorCard(deps, {
        visitorId: parsed.visitorId,
        visitId: parsed.visitId,
        channelId: command.channel_id,
        showIp: true,
        canShare: mayPostSecurity(deps.security, command.channel_id),
      });
      return ephemeral(answer.message);
    });
  };
}
