import { z } from 'zod';
import type { ReportQuery } from '../../../kernel/query.js';
import { withoutFilter } from '../../../kernel/query.js';
import { LIMITS } from '../../../platform/slack/kit/limits.js';
import { problemMessage, staleMessage } from '../../../platform/slack/kit/messages.js';
import { guarded } from '../../../platform/slack/respond.js';
import { workspaceOf, type Workspace } from '../../../platform/tenancy/team.js';
import {
  buttonValue,
  isEphemeral,
  type ActionArgs,
  type Handling,
  type ViewArgs,
} from '../../../platform/slack/routes.js';
import {
  decodeContext,
  DRILL_INPUTS,
  drillModal,
  FILTER_INPUTS,
  filterModal,
  readDrillForm,
  readFilterForm,
  sealedPart,
  type ModalContext,
} from '../modals.js';
import type { ReportService } from '../service.js';

/** A Remove button's value: `group:filter`, both small indexes. */
const FILTER_INDEX = z
  .string()
  .regex(/^\d{1,2}:\d{1,2}$/)
  .transform((v) => v.split(':').map(Number) as [number, number]);

function contextOf(reports: ReportService, args: ActionArgs, ref: string, where: Workspace): ModalContext {
  const context = {
    ref,
    responseUrl: args.body.response_url,
    replaceOriginal: isEphemeral(args.body),
    channelId: args.body.channel?.id,
  };
  return { ...context, tag: reports.seal.tag(sealedPart(context), where) };
}

/** What a form gets back when its metadata is old, tampered with, or another workspace's. */
const FORM_TOO_OLD = 'This form is too old, or not from this workspace. Close it and run the command again.';

/** "Filter…" or "Drill down": opens its modal at once (a trigger_id lasts 3 seconds). */
export function openModal(reports: ReportService, kind: 'filter' | 'drill') {
  return async (args: ActionArgs, { log, reply, team, tenant }: Handling) => {
    const ref = buttonValue(args);
    const query = await reports.refs.resolve(team, ref);
    if (!query || !ref) return reply(staleMessage());
    const def = reports.catalog[query.report];
    const context = contextOf(reports, args, ref, workspaceOf(args.body));
    if (kind === 'filter')
      return args.client.views.open({ trigger_id: args.body.trigger_id, view: filterModal(def, query, context) });
    const opened = await args.client.views.open({
      trigger_id: args.body.trigger_id,
      view: drillModal(reports.catalog, def, undefined, context),
    });
    if (!opened.view?.id) return;
    const fetched = await reports.rows(await tenant(), query, context.channelId, log, args.body.user.id);
    const view = !fetched.ok
      ? drillModal(reports.catalog, def, undefined, context, fetched.problem)
      : drillModal(
          reports.catalog,
          def,
          fetched.rows,
          context,
          fetched.rows.length > 0 ? undefined : 'There are no rows on this page to drill into.',
        );
    return args.client.views.update({ view_id: opened.view.id, view });
  };
}

/** "Remove" beside a filter inside the modal: the modal is redrawn without it. */
export function removeFilter(reports: ReportService) {
  return async (args: ActionArgs, { team }: Handling) => {
    const view = args.body.view;
    const where = workspaceOf(args.body);
    const context = decodeContext(view?.private_metadata, reports.seal, where);
    const query = context ? await reports.refs.resolve(team, context.ref) : null;
    const which = FILTER_INDEX.safeParse(buttonValue(args));
    if (!view || !context || !query || !which.success) return;
    const next = withoutFilter(query, ...which.data);
    const ref = await reports.refs.ref(team, next, LIMITS.buttonValue);
    const nextContext = { ...context, ref, tag: reports.seal.tag(sealedPart({ ...context, ref }), where) };
    return args.client.views.update({
      view_id: view.id,
      hash: view.hash,
      view: filterModal(reports.catalog[next.report], next, nextContext),
    });
  };
}

/** A modal's submission: checked before the ack (errors go beside the fields), answered after it through the response_url. */
export function submitModal(reports: ReportService, kind: 'filter' | 'drill') {
  const firstBlock = kind === 'filter' ? FILTER_INPUTS.target.block : DRILL_INPUTS.row.block;
  return async ({ ack, view, body, context: requestContext }: ViewArgs) => {
    const { log, responses, tenant } = requestContext;
    const where = workspaceOf(body);
    const { team } = where;
    const context = decodeContext(view.private_metadata, reports.seal, where);
    const query = context ? await reports.refs.resolve(team, context.ref) : null;
    if (!context || !query) {
      await ack({ response_action: 'errors', errors: { [firstBlock]: FORM_TOO_OLD } });
      return;
    }
    const form = kind === 'filter' ? readFilterForm(view.state.values, query) : readDrillForm(view.state.values);
    if ('errors' in form) {
      await ack({ response_action: 'errors', errors: form.errors });
      return;
    }
    await ack();
    const answer = async (next: ReportQuery) => {
      const result = await reports.answer(await tenant(), next, {
        channelId: context.channelId,
        ephemeral: true,
        user: body.user.id,
        log,
      });
      await responses.post(context.responseUrl, {
        ...result.message,
        response_type: 'ephemeral',
        replace_original: context.replaceOriginal,
      });
    };
    await guarded(log, `apply ${kind}`, responses.reply(context.responseUrl, false), async () => {
      if ('query' in form) return answer(form.query);
      const drilled = await reports.drill(
        await tenant(),
        query,
        form.row,
        form.report,
        context.channelId,
        body.user.id,
      );
      if (drilled.ok) return answer(drilled.query);
      await responses.post(context.responseUrl, {
        ...problemMessage(drilled.problem),
        response_type: 'ephemeral',
        replace_original: false,
      });
    });
  };
}
