import { REPORTS } from '../../kernel/catalog.js';
import { newQuery } from '../../kernel/query.js';
import { commandTokens, RowId } from '../../kernel/text.js';
import {
  infoMessage,
  problemMessage,
  usageMessage,
  type Result,
  type SlackMessage,
} from '../../platform/slack/kit/messages.js';
import { mrkdwn } from '../../platform/slack/kit/limits.js';
import { buttonValue, type ActionArgs, type Handling, type Routes } from '../../platform/slack/routes.js';
import type { ResponseUrls } from '../../platform/slack/respond.js';
import type { Subcommand } from '../../platform/slack/subcommand.js';
import type { ReportService } from '../reports/index.js';
import type { Verdicts } from '../threats/index.js';
import type { VisitorCards } from '../visitor/index.js';
import { flaggedVisitorsMessage, WATCH_ACTIONS } from './blocks.js';
import { parseRule, parseWatchCommand } from './parse.js';
import { PREVIEW_ACTIONS, previewMessage } from './preview-blocks.js';
import type { WatchPreviewer } from './previewer.js';
import { PREVIEW_DAYS } from './preview.js';
import type { Watch } from './repo.js';
import type { WatchService } from './service.js';

const said = <T>(outcome: Result<T>, then: (value: T) => SlackMessage): SlackMessage =>
  outcome.ok ? then(outcome.value) : outcome.message;

/**
 * Answers through a response_url that may take a while: a progress note first (ephemeral),
 * then the answer in its place.
 */
function progressive(responses: ResponseUrls, url: string) {
  let progressed = false;
  const answer = (message: SlackMessage) =>
    responses.post(url, { ...message, response_type: 'ephemeral', replace_original: progressed });
  return {
    progress: async (note: string | SlackMessage) => {
      await answer(typeof note === 'string' ? infoMessage(note) : note);
      progressed = true;
    },
    answer,
  };
}

/** A watch's confirmation while its preview is made: the preview takes the note's place. */
function previewing(watches: WatchService, watch: Watch, verb: 'added' | 'changed'): SlackMessage {
  const message = watches.added(watch, verb);
  const note = `Previewing how it would have behaved over the last ${PREVIEW_DAYS[watch.rule.every]} days…`;
  return {
    text: `${message.text} ${note}`,
    blocks: [...(message.blocks ?? []), { type: 'context', elements: [mrkdwn(note)] }],
  };
}

/** `/traffic watch …` (after the ack), in the workspace the command came from. */
export function watchCommand(watches: WatchService, previewer: WatchPreviewer): Subcommand {
  return async ({ command, args, reply, responses }) => {
    const parsed = parseWatchCommand(args, REPORTS);
    const user = command.user_id;
    const from = { channelId: command.channel_id };
    if (parsed.kind === 'error') return reply(usageMessage(parsed.message, parsed.usage));
    const tenant = await watches.tenantOf(command);
    const slow = progressive(responses, command.response_url);
    switch (parsed.kind) {
      case 'list':
        return reply(await watches.list(tenant, user, parsed.all ? 'all' : { channelId: command.channel_id }));
      case 'preview': {
        const zone = await watches.zoneOf(tenant, user);
        const preview = await previewer.preview(tenant, user, parsed.rule, zone, { progress: slow.progress });
        return slow.answer(preview.ok ? previewMessage(preview.value, watches.apiZone) : preview.message);
      }
      case 'add':
      case 'edit': {
        const outcome =
          parsed.kind === 'add'
            ? await watches.add(tenant, user, command.channel_id, parsed.rule, parsed.channel)
            : await watches.edit(tenant, user, parsed.id, parsed.rule, from, parsed.channel);
        if (!outcome.ok) return reply(outcome.message);
        const verb = parsed.kind === 'add' ? 'added' : 'changed';
        await slow.progress(previewing(watches, outcome.value, verb));
        return slow.answer(await watches.confirmation(tenant, user, outcome.value, verb));
      }
      case 'pause':
      case 'resume':
        return reply(
          said(await watches.setPaused(tenant, user, parsed.id, parsed.kind === 'pause', from), (w) =>
            watches.added(w, 'changed'),
          ),
        );
      case 'remove':
        return reply(said(await watches.remove(tenant, user, parsed.id, from), (m) => m));
      case 'mute':
        return reply(
          said(await watches.mute(tenant, user, parsed.id, parsed.forMs, from), (w) =>
            watches.muteNote(w, parsed.forMs),
          ),
        );
      case 'unmute':
        return reply(said(await watches.mute(tenant, user, parsed.id, 0, from), (w) => watches.muteNote(w, 0)));
    }
  };
}

type AlertAction = 'ack' | 'mute24h' | 'unmute' | 'details';

/** The buttons on a watch alert: Acknowledge and Mute update it in place for everyone; Details shows the report behind it to the clicker. */
function alertButton(watches: WatchService, reports: ReportService, action: AlertAction) {
  return async (args: ActionArgs, { log, reply, team, tenant }: Handling) => {
    const user = args.body.user.id;
    const id = RowId.safeParse(buttonValue(args));
    if (!id.success) return reply(problemMessage('This alert is too old to act on.'));
    if (action === 'details') {
      const watch = await watches.find(team, id.data);
      if (!watch) return reply(problemMessage(`There is no watch #${id.data} any more.`));
      const report = watch.rule.metric === 'bots' ? 'visits' : watch.rule.report;
      const query = {
        ...newQuery(report, watch.rule.every === 'hour' ? 'today' : 'last7d'),
        filters: watch.rule.filters,
      };
      return reply(
        (await reports.answer(await tenant(), query, { channelId: args.body.channel?.id, ephemeral: true, user, log }))
          .message,
      );
    }
    const from = { channelId: args.body.channel?.id };
    const outcome =
      action === 'ack'
        ? await watches.acknowledge(await tenant(), user, id.data, from)
        : await watches.mute(await tenant(), user, id.data, action === 'unmute' ? 0 : 24 * 3_600_000, from);
    if (!outcome.ok) return reply(outcome.message);
    return args.context.responses.post(args.body.response_url, {
      ...watches.alertOf(outcome.value),
      replace_original: true,
    });
  };
}

/** "Use the stricter rule" on a preview: the watch takes the rule the button names (read as a command's), and is previewed again. */
function stricterButton(watches: WatchService) {
  return async (args: ActionArgs, { reply, tenant }: Handling) => {
    const [idText, ...words] = (buttonValue(args) ?? '').split(' ');
    const id = RowId.safeParse(idText);
    const tokens = commandTokens(words.join(' '));
    const parsed = id.success && Array.isArray(tokens) ? parseRule(tokens, REPORTS) : undefined;
    if (!id.success || !parsed || !('rule' in parsed))
      return reply(problemMessage('This preview is too old to act on.', 'Edit the watch with /traffic watch edit.'));
    const t = await tenant();
    const user = args.body.user.id;
    const outcome = await watches.edit(t, user, id.data, parsed.rule, { channelId: args.body.channel?.id });
    if (!outcome.ok) return reply(outcome.message);
    return reply(await watches.confirmation(t, user, outcome.value, 'changed'));
  };
}

/** Pause, Resume and Remove in the list: the list is shown again as it is now (in its place). */
function listButton(watches: WatchService, action: 'pause' | 'resume' | 'remove') {
  return async (args: ActionArgs, h: Handling) => {
    const user = args.body.user.id;
    const id = RowId.safeParse(buttonValue(args));
    if (!id.success) return h.reply(problemMessage('This list is too old to change; run /traffic watch list again.'));
    const from = { channelId: args.body.channel?.id };
    const tenant = await h.tenant();
    const outcome =
      action === 'remove'
        ? await watches.remove(tenant, user, id.data, from)
        : await watches.setPaused(tenant, user, id.data, action === 'pause', from);
    if (!outcome.ok) return args.context.responses.reply(args.body.response_url, false)(outcome.message);
    return h.reply(await watches.list(tenant, user, { channelId: args.body.channel?.id ?? '' }));
  };
}

/** What the explanation's buttons need of other features: verdicts on visitors, and their cards. */
export interface ExplainedBy {
  flagged: Pick<Verdicts, 'verdicts'>;
  cards: VisitorCards;
}

/** "Flagged visitors": the period's flagged visitors, with verdicts and their cards, for the clicker alone. */
function flaggedButton(watches: WatchService, by: ExplainedBy) {
  return async (args: ActionArgs, { reply, tenant }: Handling) => {
    const id = RowId.safeParse(buttonValue(args));
    if (!id.success) return reply(problemMessage('This alert is too old to act on.'));
    const t = await tenant();
    const found = await watches.explained(t, args.body.user.id, id.data, { channelId: args.body.channel?.id });
    if (!found.ok) return reply(found.message);
    const watch = found.value;
    // Verdicts on visitors are security details: the same rule as a visitor card's.
    if (!t.access.maySeeSecurity(args.body.user.id, args.body.channel?.id))
      return reply(
        problemMessage(
          'The flagged visitors and their verdicts are security details, which you may not see here.',
          'Ask a Lookout admin, or look in a channel where security details may be shown.',
        ),
      );
    if (!watch.explanation)
      return reply(
        problemMessage(`Watch #${id.data}'s latest alert has no explanation yet.`, 'Try again in a minute.'),
      );
    const label = watches.periodWords(watch, watch.explanation.period);
    const verdicts = await by.flagged.verdicts(t, watch.explanation.flagged);
    return reply(flaggedVisitorsMessage(watch, label, verdicts));
  };
}

/** A flagged visitor's card, from the list above, for the clicker alone (rights checked by the card). */
function cardButton(by: ExplainedBy) {
  return async (args: ActionArgs, { log, reply, tenant }: Handling) => {
    const visitorId = buttonValue(args);
    if (!visitorId) return reply(problemMessage('This list is too old to act on.'));
    const channelId = args.body.channel?.id;
    return reply((await by.cards.card(await tenant(), { visitorId, channelId, user: args.body.user.id, log })).message);
  };
}

/** "Ignore automated spikes": the watch counts people only from its next period; the clicker is told. */
function ignoreAutomatedButton(watches: WatchService) {
  return async (args: ActionArgs, { reply, tenant }: Handling) => {
    const id = RowId.safeParse(buttonValue(args));
    if (!id.success) return reply(problemMessage('This alert is too old to act on.'));
    const outcome = await watches.ignoreAutomated(await tenant(), args.body.user.id, id.data, {
      channelId: args.body.channel?.id,
    });
    return reply(said(outcome, (w) => watches.added(w, 'changed')));
  };
}

export function registerWatches(routes: Routes, watches: WatchService, reports: ReportService, by: ExplainedBy): void {
  routes.handle(PREVIEW_ACTIONS.stricter, stricterButton(watches), 'replace');
  for (const action of ['ack', 'mute24h', 'unmute', 'details'] as const)
    routes.handle(WATCH_ACTIONS[action], alertButton(watches, reports, action));
  routes.handle(WATCH_ACTIONS.flagged, flaggedButton(watches, by));
  routes.handle(WATCH_ACTIONS.flaggedCard, cardButton(by));
  routes.handle(WATCH_ACTIONS.ignoreAutomated, ignoreAutomatedButton(watches));
  for (const action of ['pause', 'resume', 'remove'] as const)
    routes.handle(WATCH_ACTIONS[action], listButton(watches, action), 'replace');
}
