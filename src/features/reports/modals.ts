import type { KnownBlock, PlainTextOption, View } from '@slack/types';
import type { ReportDef, ReportId, ReportRow } from '../../kernel/catalog.js';
import { FILTER_FIELDS, type ReportCatalog, type ReportQuery } from '../../kernel/query.js';
import { describeFilters, fieldOf } from './blocks.js';
import { escapeMrkdwn } from '../../platform/slack/kit/escape.js';
import { clip, LIMITS, mrkdwn, plainText } from '../../platform/slack/kit/limits.js';

/** What a modal carries between opening and submission (JSON in private_metadata). */
export interface ModalContext {
  /** Query ref (see query-refs.ts). */
  q: string;
  /** The response_url of the click that opened the modal: where the answer goes. */
  u: string;
  /** Whether that message was ephemeral (then it is replaced in place). */
  e: boolean;
  c?: string;
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

export function encodeContext(context: ModalContext): string {
  return JSON.stringify(context).slice(0, LIMITS.privateMetadata);
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
        options: targets.slice(0, LIMITS.options),
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
        options: groups.slice(0, LIMITS.options),
      },
    },
  );

  return {
    type: 'modal',
    callback_id: FILTER_MODAL,
    private_metadata: encodeContext(context),
    title: plainText(clip(`Filter ${def.title}`, LIMITS.modalTitle), LIMITS.modalTitle),
    submit: plainText('Apply', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks: blocks.slice(0, LIMITS.blocksPerModal),
  };
}

/** Which report a row of each report breaks down into by default. */
export const DRILL_DEFAULT: Partial<Record<ReportId, ReportId>> = {
  countries: 'states',
  states: 'cities',
  cities: 'pages',
  sources: 'pages',
  channels: 'sources',
  campaigns: 'pages',
  pages: 'sources',
  browsers: 'os',
  devices: 'browsers',
  os: 'browsers',
  extensions: 'browsers',
};

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
    title: plainText('Drill down', LIMITS.modalTitle),
    close: plainText('Cancel', LIMITS.modalButton),
  };
  if (problem) return { ...base, blocks: [{ type: 'section', text: mrkdwn(`:warning: ${escapeMrkdwn(problem)}`) }] };
  if (!rows) return { ...base, blocks: [{ type: 'section', text: mrkdwn('Loading the rows…') }] };

  const rowField = def.rowFilter?.rowField ?? 'name';
  const rowOptions = rows.slice(0, LIMITS.options).map((row, i) => option(String(fieldOf(row, rowField) ?? '—'), String(i)));
  const reports = (Object.values(catalog) as ReportDef[]).filter((d) => d.id !== def.id && d.kind !== 'visitors');
  const reportOptions = reports.map((d) => option(d.title, d.id));
  const preferred = reportOptions.find((o) => o.value === DRILL_DEFAULT[def.id]);

  return {
    ...base,
    submit: plainText('Show', LIMITS.modalButton),
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
