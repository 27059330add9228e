import type { Routes } from '../../../platform/slack/routes.js';
import type { CommandTable } from '../../../platform/feature.js';
import { helpText } from '../help.js';
import { parseTrafficCommand } from '../parse.js';
import type { ReportService } from '../service.js';
import { helpMessage, usageMessage } from '../../../platform/slack/kit/messages.js';

/**
 * `/traffic …`: a report, help, or the sub-command its first word
 * names. The sub-commands are the features' (`subcommands` in their definitions).
 */
export function registerTraffic(routes: Routes, reports: ReportService, commands: CommandTable): void {
  const byWord = new Map(commands.subcommands.flatMap((s) => s.words.map((w) => [w, s] as const)));
  routes.handleCommand('/traffic', async ({ command, client, context }, { log, reply, team, tenant }) => {
    const parsed = parseTrafficCommand(command.text ?? '', reports.catalog, { subcommands: [...byWord.keys()] });
    switch (parsed.kind) {
      case 'help':
        return reply(helpMessage(helpText(parsed.topic, reports.catalog, commands)));
      case 'error':
        log.info({ user: command.user_id, problem: parsed.message }, '/traffic usage error');
        return reply(usageMessage(parsed.message, parsed.usage));
      case 'sub':
        return byWord
          .get(parsed.name)
          ?.run({ command, client, args: parsed.args, reply, log, team, tenant, responses: context.responses });
      case 'report': {
        const shared = parsed.query.public === true;
        const answer = await reports.answer(await tenant(), parsed.query, {
          channelId: command.channel_id,
          ephemeral: !shared,
          user: command.user_id,
          ...(shared ? { sharedBy: command.user_id } : {}),
          log,
        });
        return context.responses.post(command.response_url, {
          ...answer.message,
          response_type: shared && answer.ok ? 'in_channel' : 'ephemeral',
        });
      }
    }
  });
}
