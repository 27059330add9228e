import type { AllMiddlewareArgs, BlockAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { ApiError } from '../../../platform/api/errors.js';
import { resolveRange } from '../../../kernel/dates.js';
import { toMarketingRequest, withoutFilter } from '../../../kernel/query.js';
import { staleMessage } from '../../../platform/slack/kit/messages.js';
import { LIMITS } from '../../../platform/slack/kit/limits.js';
import { drillModal, filterModal, type ModalContext } from '../modals.js';
import type { SlackDeps } from '../../../platform/slack/deps.js';
import { guarded, replyTo } from '../../../platform/slack/respond.js';
import { isEphemeral } from './context.js';
import { readContext } from './view-context.js';

type Args = SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs;

function contextOf(args: Args, ref: string): ModalContext {
  return { q: ref, u: args.body.response_url, e: isEphemeral(args.body), c: args.body.channel?.id };
}

/** "Filter…": opens the modal at once (the trigger_id lasts 3 seconds). */
export function openFilterModal(deps: SlackDeps) {
  return async (args: Args) => {
    await args.ack();
    const tell = (m: Parameters<typeof replyTo>[2]) => replyTo(args.respond, { ephemeral: true }, m);
    await guarded(deps, 'open filter modal', tell, async () => {
      const ref = args.action.type === 'button' ? args.action.value : undefined;
      const query = await deps.refs.resolve(ref);
      if (!query || !ref) return tell(staleMessage());
      await args.client.views.open({
        trigger_id: args.body.trigger_id,
        view: filterModal(deps.catalog[query.report], query, contextOf(args, ref)),
      });
    });
  };
}

/** "Remove" beside a filter inside the modal: the modal is redrawn without it. */
export function removeFilterInModal(deps: SlackDeps) {
  return async (args: Args) => {
    await args.ack();
    await guarded(deps, 'remove filter', undefined, async () => {
      const view = args.body.view;
      const context = readContext(view?.private_metadata);
      const query = context ? await deps.refs.resolve(context.q) : null;
      const [g, f] = (args.action.type === 'button' ? (args.action.value ?? '') : '').split(':').map(Number);
      if (!view || !context || !query || g === undefined || f === undefined) return;
      const next = withoutFilter(query, g, f);
      const nextContext = { ...context, q: await deps.refs.ref(next, LIMITS.buttonValue) };
      await args.client.views.update({
        view_id: view.id,
        hash: view.hash,
        view: filterModal(deps.catalog[next.report], next, nextContext),
      });
    });
  };
}

/** "Drill down": opens the modal at once, then fills in the rows of the page on screen. */
export function openDrillModal(deps: SlackDeps) {
  return async (args: Args) => {
    await args.ack();
    const tell = (m: Parameters<typeof replyTo>[2]) => replyTo(args.respond, { ephemeral: true }, m);
    await guarded(deps, 'open drill-down modal', tell, async () => {
      const ref = args.action.type === 'button' ? args.action.value : undefined;
      const query = await deps.refs.resolve(ref);
      if (!query || !ref) return tell(staleMessage());
      const def = deps.catalog[query.report];
      const context = contextOf(args, ref);
      const opened = await args.client.views.open({
        trigger_id: args.body.trigger_id,
        view: drillModal(deps.catalog, def, undefined, context),
      });
      const viewId = opened.view?.id;
      if (!viewId) return;
      let view;
      try {
        const timeZone = await deps.timeZoneFor(context.c);
        const range = resolveRange(query.range, timeZone, deps.now());
        if (!range.ok) throw new Error(range.error);
        const rows = await deps.api.report(query.report, toMarketingRequest(query, deps.catalog, range.range));
        view = rows.length > 0
          ? drillModal(deps.catalog, def, rows, context)
          : drillModal(deps.catalog, def, rows, context, 'There are no rows on this page to drill into.');
      } catch (error) {
        const reason = error instanceof ApiError || error instanceof Error ? error.message : String(error);
        view = drillModal(deps.catalog, def, undefined, context, reason);
      }
      await args.client.views.update({ view_id: viewId, view });
    });
  };
}
