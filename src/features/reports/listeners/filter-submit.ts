import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { FilterCondition } from '../../../kernel/filters.js';
import { isFilterField, withFilter } from '../../../kernel/query.js';
import { FILTER_INPUTS } from '../modals.js';
import type { SlackDeps } from '../../../platform/slack/deps.js';
import { guarded } from '../../../platform/slack/respond.js';
import { answerFromModal } from './answer.js';
import { readContext } from './view-context.js';

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

const MAX_VALUES = 20;
const MAX_VALUE_LENGTH = 200;

/** The filter modal's Apply: validate, close, then replace the report with the filtered one. */
export function submitFilter(deps: SlackDeps) {
  return async ({ ack, view }: Args) => {
    const context = readContext(view.private_metadata);
    const query = context ? await deps.refs.resolve(context.q) : null;
    if (!context || !query) {
      await ack({ response_action: 'errors', errors: { [FILTER_INPUTS.target.block]: 'This form is too old. Close it and run the command again.' } });
      return;
    }
    const state = view.state.values;
    const target = state[FILTER_INPUTS.target.block]?.[FILTER_INPUTS.target.action]?.selected_option?.value;
    const operator = state[FILTER_INPUTS.operator.block]?.[FILTER_INPUTS.operator.action]?.selected_option?.value === 'contains' ? 'contains' : 'is_any_of';
    const raw = (state[FILTER_INPUTS.values.block]?.[FILTER_INPUTS.values.action]?.value ?? '').trim();
    const group = state[FILTER_INPUTS.group.block]?.[FILTER_INPUTS.group.action]?.selected_option?.value ?? 'all';

    let next = query;
    if (target || raw) {
      const [object = '', field = 'name'] = (target ?? '').split('.');
      if (!target || !isFilterField(object, field)) {
        await ack({ response_action: 'errors', errors: { [FILTER_INPUTS.target.block]: 'Pick what to filter on.' } });
        return;
      }
      const values = operator === 'contains' ? [raw] : raw.split(',').map((v) => v.trim()).filter(Boolean);
      if (values.length === 0) {
        await ack({ response_action: 'errors', errors: { [FILTER_INPUTS.values.block]: 'Type at least one value.' } });
        return;
      }
      if (values.length > MAX_VALUES || values.some((v) => v.length > MAX_VALUE_LENGTH)) {
        await ack({ response_action: 'errors', errors: { [FILTER_INPUTS.values.block]: `At most ${MAX_VALUES} values of ${MAX_VALUE_LENGTH} characters each.` } });
        return;
      }
      const condition: FilterCondition = { object, field, operator, value: operator === 'contains' ? values[0]! : values };
      const groupIndex = group === 'all' ? undefined : group === 'new' ? query.filters.length : Number(group);
      next = withFilter(query, condition, groupIndex);
    }
    await ack();
    await guarded(deps, 'apply filter', undefined, () => answerFromModal(deps, context, next));
  };
}
