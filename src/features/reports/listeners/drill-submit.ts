import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import { ApiError } from '../../../platform/api/errors.js';
import { REPORT_IDS, type ReportId } from '../../../kernel/catalog.js';
import { resolveRange } from '../../../kernel/dates.js';
import { toMarketingRequest, withFilter, withReport } from '../../../kernel/query.js';
import { problemMessage } from '../../../platform/slack/kit/messages.js';
import { DRILL_INPUTS } from '../modals.js';
import { fieldOf } from '../blocks.js';
import type { SlackDeps } from '../../../platform/slack/deps.js';
import { guarded, postToResponseUrl } from '../../../platform/slack/respond.js';
import { answerFromModal } from './answer.js';
import { readContext } from './view-context.js';

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** Drill down: the chosen row becomes a filter, and the chosen report breaks it down. */
export function submitDrill(deps: SlackDeps) {
  return async ({ ack, view }: Args) => {
    const context = readContext(view.private_metadata);
    const query = context ? await deps.refs.resolve(context.q) : null;
    const state = view.state.values;
    const index = Number(state[DRILL_INPUTS.row.block]?.[DRILL_INPUTS.row.action]?.selected_option?.value);
    const target = state[DRILL_INPUTS.report.block]?.[DRILL_INPUTS.report.action]?.selected_option?.value;
    if (!context || !query) {
      await ack({ response_action: 'errors', errors: { [DRILL_INPUTS.row.block]: 'This form is too old. Close it and run the command again.' } });
      return;
    }
    if (!Number.isInteger(index) || index < 0) {
      await ack({ response_action: 'errors', errors: { [DRILL_INPUTS.row.block]: 'Pick a row.' } });
      return;
    }
    if (!REPORT_IDS.includes(target as ReportId)) {
      await ack({ response_action: 'errors', errors: { [DRILL_INPUTS.report.block]: 'Pick a report.' } });
      return;
    }
    await ack();
    const tell = (text: string) => postToResponseUrl(context.u, { ...problemMessage(text), response_type: 'ephemeral', replace_original: false });
    await guarded(deps, 'drill down', undefined, async () => {
      const def = deps.catalog[query.report];
      if (!def.rowFilter) return tell(`${def.title} rows cannot be drilled into.`);
      const range = resolveRange(query.range, await deps.timeZoneFor(context.c), deps.now());
      if (!range.ok) return tell(range.error);
      let rows;
      try {
        rows = await deps.api.report(query.report, toMarketingRequest(query, deps.catalog, range.range));
      } catch (error) {
        if (error instanceof ApiError) return tell(error.message);
        throw error;
      }
      const value = fieldOf(rows[index], def.rowFilter.rowField);
      if (typeof value !== 'string' || value === '') return tell('That row is no longer there. Run the report again.');
      const filtered = withFilter(query, { object: def.rowFilter.object, field: def.rowFilter.field, operator: 'is_any_of', value: [value] });
      await answerFromModal(deps, context, withReport(filtered, target as ReportId, deps.catalog));
    });
  };
}
