import { decodeTrendRef, defaultMetric, splitBack, TREND_ACTION } from '../../kernel/trend.js';
import { infoMessage, staleMessage, usageMessage } from '../../platform/slack/kit/messages.js';
import { buttonValue, type ActionArgs, type Handling, type Routes } from '../../platform/slack/routes.js';
import type { Subcommand } from '../../platform/slack/subcommand.js';
import type { ReportService } from '../reports/index.js';
import { TREND_ACTIONS } from './blocks.js';
import { parseTrendWords, TREND_USAGE } from './parse.js';
import type { TrendService } from './service.js';

/** `/traffic trend …` (after the ack). */
export function trendCommand(trends: TrendService, reports: ReportService): Subcommand {
  return async ({ command, args, reply, log, tenant, responses }) => {
    const words = parseTrendWords(args, reports.catalog);
    if (words.kind === 'error') return reply(usageMessage(words.message, words.usage));
    const parsed = reports.parse(words.report);
    if (parsed.kind === 'error') return reply(usageMessage(parsed.message, TREND_USAGE));
    if (parsed.kind !== 'report') return reply(usageMessage('Name a report, or nothing for all visits.', TREND_USAGE));
    const query = parsed.query;
    const shared = query.public === true;
    const metric = words.metric ?? defaultMetric(query.report);
    // A long first fill says how it goes; the answer then takes the progress note's place (an ephemeral one only: Slack cannot turn it public).
    let progressed = false;
    const progress = async (text: string) => {
      await responses.post(command.response_url, {
        ...infoMessage(text),
        response_type: 'ephemeral',
        replace_original: progressed,
      });
      progressed = true;
    };
    const answer = await trends.answer(await tenant(), query, metric, {
      channelId: command.channel_id,
      ephemeral: !shared,
      user: command.user_id,
      ...(shared ? { sharedBy: command.user_id } : {}),
      log,
      progress,
    });
    const inChannel = shared && answer.ok;
    await responses.post(command.response_url, {
      ...answer.message,
      response_type: inChannel ? 'in_channel' : 'ephemeral',
      replace_original: progressed && !inChannel,
    });
  };
}

/** Trend (on report answers and visitor cards): the trend in place of an ephemeral message, else for the clicker. */
function openTrend(trends: TrendService) {
  return async (args: ActionArgs, { log, reply, team, tenant }: Handling) => {
    const wanted = decodeTrendRef(buttonValue(args));
    const query = wanted ? await trends.resolve(team, wanted.ref) : null;
    if (!wanted || !query) return reply(staleMessage());
    const answer = await trends.answer(await tenant(), query, wanted.metric, {
      channelId: args.body.channel?.id,
      ephemeral: true,
      user: args.body.user.id,
      log,
      ...(wanted.back ? { back: wanted.back } : {}),
    });
    return reply(answer.message);
  };
}

/** "Post to channel": the same trend, fetched afresh, for everyone; the ephemeral copy goes away. */
function shareTrend(trends: TrendService) {
  return async (args: ActionArgs, { log, reply, team, tenant }: Handling) => {
    const wanted = decodeTrendRef(buttonValue(args));
    const query = wanted ? await trends.resolve(team, wanted.ref) : null;
    if (!wanted || !query) return reply(staleMessage());
    const answer = await trends.answer(await tenant(), query, wanted.metric, {
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

/** "Show table": the report behind the trend. */
function showTable(trends: TrendService, reports: ReportService) {
  return async (args: ActionArgs, { log, reply, team, tenant }: Handling) => {
    const wanted = splitBack(buttonValue(args));
    const query = wanted ? await trends.resolve(team, wanted.value) : null;
    if (!wanted || !query) return reply(staleMessage());
    const answer = await reports.answer(await tenant(), query, {
      channelId: args.body.channel?.id,
      ephemeral: true,
      user: args.body.user.id,
      log,
      ...(wanted.back ? { back: wanted.back } : {}),
    });
    return reply(answer.message);
  };
}

export function registerTrends(routes: Routes, trends: TrendService, reports: ReportService): void {
  routes.handle(TREND_ACTION, openTrend(trends), 'in place if ephemeral');
  routes.handle(TREND_ACTIONS.share, shareTrend(trends), 'replace');
  routes.handle(TREND_ACTIONS.table, showTable(trends, reports), 'in place if ephemeral');
}
