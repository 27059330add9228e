import type { KnownBlock, PlainTextOption, View } from '@slack/types';
import { z } from 'zod';
import { isReportId, type ReportCatalog, type ReportDef, type ReportId, type ReportRow } from '../../kernel/catalog.js';
import { FILTER_FIELDS, isFilterField, type FilterCondition } from '../../kernel/filters.js';
import { withFilter, type ReportQuery } from '../../kernel/query.js';
import { fieldOf, textOf } from '../../kernel/records.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { clip, LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';
import { describeFilters } from '../../platform/slack/kit/filter-words.js';
import type { Seal, SealedFor } from '../../platform/slack/kit/seal.js';
import { CHANNEL_ID } from '../../kernel/text.js';

/** What a modal carries between opening and submission, in its private_metadata. */
export interface ModalContext {
  /** The query ref (see refs.ts). */
  ref: string;
  /** The response_url of the click that opened the modal: where the answer goes. */
  responseUrl: string;
  /** Whether the answer replaces the message the modal came from (it was ephemeral). */
  replaceOriginal: boolean;
  channelId?: string;
  /** Lookout's tag over the rest and the workspace (see kit/seal.ts): without it, a forged or another workspace's metadata could send the answer anywhere. */
  tag: string;
}

const modalContext = z.object({
  q: z.string().min(1).max(LIMITS.buttonValue),
  u: z.url({ protocol: /^https?$/ }).max(500),
  e: z.boolean(),
  c: z.string().regex(CHANNEL_ID).optional(),
  t: z.string().max(64),
});

/** What the tag covers: everything the context says. */
export function sealedPart(context: Omit<ModalContext, 'tag'>): string {
  return JSON.stringify([context.ref, context.responseUrl, context.replaceOriginal, context.channelId ?? null]);
}

/** Short keys on the wire. A context that would not fit private_metadata is a bug here, so it throws. */
export function encodeContext(context: ModalContext): string {
  const wire: z.infer<typeof modalContext> = {
    q: context.ref,
    u: context.responseUrl,
    e: context.replaceOriginal,
    c: context.channelId,
    t: context.tag,
  };
  const json = JSON.stringify(wire);
  if (json.length > LIMITS.privateMetadata)
    throw new Error(`modal context of ${json.length} characters does not fit private_metadata`);
  return json;
}

/** A modal's private_metadata, checked on the way back; null when it is not ours, or not this workspace's, or its tag does not match. */
export function decodeContext(metadata: string | undefined, seal: Seal, where: SealedFor): ModalContext | null {
  if (!metadata) return null;
  try {
    const parsed = modalContext.safeParse(JSON.parse(metadata));
    if (!parsed.success) return null;
    const { q, u, e, c, t } = parsed.data;
    const context = { ref: q, responseUrl: u, replaceOriginal: e, ...(c ? { channelId: c } : {}), tag: t };
    return seal.verify(sealedPart(context), t, where) ? context : null;
  } catch {
    return null;
  }
}

export const FILTER_MODAL = 'filter.modal';
export const DRILL_MODAL = 'drill.modal';
/** Each Remove button's action_id is this plus `g.f` (group and filter index), so each is distinct. */
export const FILTER_REMOVE = 'filter.remove';
export const FILTER_REMOVE_PATTERN = /^filter\.remove\.\d+\.\d+$/;

export const FILTER_INPUTS = {
  target: { block: 'f_target', action: 'target' },
  operator: { block: 'f_operator', action: 'operator' },
  values: { block: 'f_values', action: 'values' },
  group: { block: 'f_group', action: 'group' },
} as const;

export const DRILL_INPUTS = {
  row: { block: 'd_row', action: 'row' },
  report: { block: 'd_report', action: 'report' },
} as const;

function option(text: string, value: string): PlainTextOption {
  return { text: plainText(text, LIMITS.optionText), value: value.slice(0, LIMITS.optionValue) };
}

/** Lists the current filters (each with Remove) and asks for one more. */
export function filterModal(def: ReportDef, query: ReportQuery, context: ModalContext): View {
  const blocks: KnownBlock[] = [];
  const current = query.filters.flatMap((group, g) =>
    group.filters.map((_, f) => ({ g, f, text: describeFilters([{ filters: [group.filters[f]!] }]) })),
  );
  if (current.length === 0) {
    blocks.push({ type: 'section', text: mrkdwn('No filters yet.') });
  } else {
    const grouped = query.filters.length > 1;
    for (const { g, f, text } of current.slice(0, 40)) {
      blocks.push({
        type: 'section',
        block_id: `cur_${g}_${f}`,
        text: mrkdwn(`${grouped ? `Group ${g + 1}: ` : ''}${text}`),
        accessory: {
          type: 'button',
          action_id: `${FILTER_REMOVE}.${g}.${f}`,
          text: plainText('Remove', LIMITS.buttonText),
          value: `${g}:${f}`,
        },
      });
    }
  }
  blocks.push({ type: 'divider' });

  const targets = Object.entries(FILTER_FIELDS).flatMap(([object, fields]) =>
    fields.map((field) => option(field === 'name' ? object : `${object} ${field}`, `${object}.${field}`)),
  );
  const groups = [option('Every group (narrows the whole result)', 'all')];
  query.filters.forEach((_, i) => groups.push(option(`Group ${i + 1} only`, String(i))));
  groups.push(option('A new OR group (widens the result)', 'new'));

  blocks.push(
    {
      type: 'input',
      block_id: FILTER_INPUTS.target.block,
      optional: true,
      label: plainText('Add a filter on', LIMITS.inputLabel),
      element: {
        type: 'static_select',
        action_id: FILTER_INPUTS.target.action,
        placeholder: plainText('country, page url, browser…', LIMITS.placeholder),
        options: targets.slice(0, LIMITS.selectOptions),
      },
    },
    {
      type: 'input',
      block_id: FILTER_INPUTS.operator.block,
      label: plainText('Match', LIMITS.inputLabel),
      element: {
        type: 'static_select',
        action_id: FILTER_INPUTS.operator.action,
        initial_option: option('is any of', 'is_any_of'),
        options: [option('is any of', 'is_any_of'), option('contains', 'contains')],
      },
    },
    {
      type: 'input',
      block_id: FILTER_INPUTS.values.block,
      optional: true,
      label: plainText('Values', LIMITS.inputLabel),
      hint: plainText('Comma-separated for "is any of", like: Germany, France', LIMITS.placeholder),
      element: {
        type: 'plain_text_input',
        action_id: FILTER_INPUTS.values.action,
        max_length: 500,
        placeholder: plainText('Germany, France', LIMITS.placeholder),
      },
    },
    {
      type: 'input',
      block_id: FILTER_INPUTS.group.block,
      label: plainText('Add it to', LIMITS.inputLabel),
      element: {
        type: 'static_select',
        action_id: FILTER_INPUTS.group.action,
        initial_option: groups[0]!,
        options: groups.slice(0, LIMITS.selectOptions),
      },
    },
  );

  return {
    type: 'modal',
    callback_id: FILTER_MODAL,
    private_metadata: encodeContext(context),
    title: plainText(clip(`Filter ${def.title}`, LIMITS.viewTitle), LIMITS.viewTitle),
    submit: plainText('Apply', LIMITS.viewButton),
    close: plainText('Cancel', LIMITS.viewButton),
    blocks: blocks.slice(0, LIMITS.viewBlocks),
  };
}

/** Pick a row and the report to break it down by. `rows` undefined: still loading. */
export function drillModal(
  catalog: ReportCatalog,
  def: ReportDef,
  rows: readonly ReportRow[] | undefined,
  context: ModalContext,
  problem?: string,
): View {
  const base = {
    type: 'modal' as const,
    callback_id: DRILL_MODAL,
    private_metadata: encodeContext(context),
    title: plainText('Drill down', LIMITS.viewTitle),
    close: plainText('Cancel', LIMITS.viewButton),
  };
  if (problem) return { ...base, blocks: [{ type: 'section', text: mrkdwn(`:warning: ${escapeMrkdwn(problem)}`) }] };
  if (!rows) return { ...base, blocks: [{ type: 'section', text: mrkdwn('Loading the rows…') }] };

  const rowField = def.rowFilter?.rowField ?? 'name';
  const rowOptions = rows
    .slice(0, LIMITS.selectOptions)
    .map((row, i) => option(textOf(fieldOf(row, rowField), '—'), String(i)));
  const reports = Object.values(catalog).filter((d) => d.id !== def.id && d.breaksDown);
  const reportOptions = reports.map((d) => option(d.title, d.id));
  const preferred = reportOptions.find((o) => o.value === def.drillTo);

  return {
    ...base,
    submit: plainText('Show', LIMITS.viewButton),
    blocks: [
      {
        type: 'input',
        block_id: DRILL_INPUTS.row.block,
        label: plainText(`Which ${def.rowFilter?.object ?? 'row'}`, LIMITS.inputLabel),
        element: { type: 'static_select', action_id: DRILL_INPUTS.row.action, options: rowOptions },
      },
      {
        type: 'input',
        block_id: DRILL_INPUTS.report.block,
        label: plainText('Break it down by', LIMITS.inputLabel),
        element: {
          type: 'static_select',
          action_id: DRILL_INPUTS.report.action,
          options: reportOptions,
          ...(preferred ? { initial_option: preferred } : {}),
        },
      },
    ],
  };
}

// --- Submissions ------------------------------------------------------------------

type StateValues = Record<
  string,
  Record<string, { value?: string | null; selected_option?: { value?: string } | null }>
>;

const MAX_VALUES = 20;
const MAX_VALUE_LENGTH = 200;

/** The filter form's values → the query with one more filter, or errors by block id. */
export function readFilterForm(
  state: StateValues,
  query: ReportQuery,
): { query: ReportQuery } | { errors: Record<string, string> } {
  const value = (input: { block: string; action: string }) => state[input.block]?.[input.action];
  const target = value(FILTER_INPUTS.target)?.selected_option?.value;
  const operator = value(FILTER_INPUTS.operator)?.selected_option?.value === 'contains' ? 'contains' : 'is_any_of';
  const raw = (value(FILTER_INPUTS.values)?.value ?? '').trim();
  const group = value(FILTER_INPUTS.group)?.selected_option?.value ?? 'all';
  if (!target && !raw) return { query };
  const [object = '', field = 'name'] = (target ?? '').split('.');
  if (!target || !isFilterField(object, field))
    return { errors: { [FILTER_INPUTS.target.block]: 'Pick what to filter on.' } };
  const values =
    operator === 'contains'
      ? [raw]
      : raw
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean);
  if (values.length === 0) return { errors: { [FILTER_INPUTS.values.block]: 'Type at least one value.' } };
  if (values.length > MAX_VALUES || values.some((v) => v.length > MAX_VALUE_LENGTH)) {
    return {
      errors: { [FILTER_INPUTS.values.block]: `At most ${MAX_VALUES} values of ${MAX_VALUE_LENGTH} characters each.` },
    };
  }
  const groupIndex = group === 'all' ? undefined : group === 'new' ? query.filters.length : Number(group);
  if (
    groupIndex !== undefined &&
    !(Number.isInteger(groupIndex) && groupIndex >= 0 && groupIndex <= query.filters.length)
  ) {
    return { errors: { [FILTER_INPUTS.group.block]: 'Pick where to add it.' } };
  }
  const condition: FilterCondition = { object, field, operator, value: operator === 'contains' ? values[0]! : values };
  return { query: withFilter(query, condition, groupIndex) };
}

/** The drill form's values → the row index and the report to break it down by, or errors by block id. */
export function readDrillForm(
  state: StateValues,
): { row: number; report: ReportId } | { errors: Record<string, string> } {
  const row = Number(state[DRILL_INPUTS.row.block]?.[DRILL_INPUTS.row.action]?.selected_option?.value);
  const report = state[DRILL_INPUTS.report.block]?.[DRILL_INPUTS.report.action]?.selected_option?.value;
  if (!Number.isInteger(row) || row < 0 || row >= LIMITS.selectOptions)
    return { errors: { [DRILL_INPUTS.row.block]: 'Pick a row.' } };
  if (!isReportId(report)) return { errors: { [DRILL_INPUTS.report.block]: 'Pick a report.' } };
  return { row, report };
}

/** The value a drilled row is filtered on; undefined when the row is gone. */
export function drillValue(def: ReportDef, row: ReportRow | undefined): string | undefined {
  const value = def.rowFilter ? fieldOf(row, def.rowFilter.rowField) : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}
