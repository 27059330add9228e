import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { helpText, parseTrafficCommand } from './features/reports/parse.js';
import { helpMessage, usageMessage, type SlackMessage } from './platform/slack/kit/messages.js';
import type { SlackDeps } from './platform/slack/deps.js';
import { runReport } from './features/reports/service.js';
import { guarded } from './platform/slack/respond.js';
import { digestCommand } from './features/digests/listeners.js';
import { alertsCommand } from './features/alerts/listeners.js';

/** `/traffic …`: ack at once, then answer through the response_url. */
export function trafficCommand(deps: SlackDeps) {
  return async ({ ack, command, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const ephemeral = (message: SlackMessage) => respond({ ...message, response_type: 'ephemeral' });
    await guarded(deps, '/traffic', ephemeral, async () => {
      const parsed = parseTrafficCommand(command.text ?? '', deps.catalog);
      switch (parsed.kind) {
        case 'help':
          return ephemeral(helpMessage(helpText(parsed.topic, deps.catalog)));
        case 'error':
          deps.log.info({ user: command.user_id, problem: parsed.message }, '/traffic usage error');
          return ephemeral(usageMessage(parsed.message, parsed.usage));
        case 'digest':
          return digestCommand(deps, command, client, parsed.args, ephemeral);
        case 'alerts':
          return alertsCommand(deps, command, client, parsed.args, ephemeral);
        case 'report': {
          const shared = parsed.query.public === true;
          const answer = await runReport(deps, parsed.query, { channelId: command.channel_id, ephemeral: !shared });
          return respond({ ...answer.message, response_type: shared && answer.ok ? 'in_channel' : 'ephemeral' });
        }
      }
    });
  };
}
