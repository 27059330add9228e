import type {
  ActionsBlock,
  Button,
  DataTableBlock,
  KnownBlock,
  PlainTextOption,
  StaticSelect,
  TableBlock,
} from '@slack/types';
import { sortFields, type Column, type ReportDef, type ReportRow } from '../../kernel/catalog.js';
import { likelyFilterFix } from '../../kernel/filters.js';
import { z } from 'zod';
import { apiDaysWords, type DateRange } from '../../kernel/dates.js';
import { RANGE_MENU, rangeLabel } from '../../kernel/ranges.js';
import { normalizeRange } from '../../kernel/range-words.js';
import { code, USER_ID } from '../../kernel/text.js';
import { bar, formatCount, formatField } from '../../kernel/format.js';
import { RANK_MIN_SHARE, RANK_MIN_VISITS, type RankingRule } from '../../kernel/ranking.js';
import type { ReportQuery, SortDir } from '../../kernel/query.js';
import { BACK_TO_CARD_ACTION, TREND_ACTION } from '../../kernel/trend.js';
import { fieldOf } from '../../kernel/records.js';
import { escapeMrkdwn, fallbackText } from '../../platform/slack/kit/escape.js';
import { describeFilters } from '../../platform/slack/kit/filter-words.js';
import {
  capBlocks,
  cell,
  fitTableText,
  LIMITS,
  mrkdwn,
  numberCell,
  plainText,
  withinChars,
} from '../../platform/slack/kit/limits.js';

/** Where a message's interactive elements find their query again (see refs.ts). */
export interface ReportRefs {
  /** The current query, fit for a button value (≤ 2000). */
  current: string;
  /** The current query, fit for a block_id (≤ 255 with its prefix). */
  block: string;
  prev?: string;
  next?: string;
  /** The Trend button's value (see kernel/trend.ts). */
  trend?: string;
}

export interface ReportView {
  def: ReportDef;
  query: ReportQuery;
  range: DateRange;
  rows: readonly ReportRow[];
  refs: ReportRefs;
  /** The reader's zone: the range was resolved in it, and times are shown in it. */
  timeZone: string;
  /** The zone the API counts its days in: the rows are of its days. */
  apiZone: string;
  now: Date;
  demo: boolean;
  /** Ephemeral answers get "Post to channel". */
  ephemeral: boolean;
  /** Who posted it for everyone. */
  sharedBy?: string;
  /** The visitor card it was opened from: a way back to it. */
  back?: string;
  /** The largest count across every page (the row with the most), so a bar is the same length on any page and under any sort; else this page's. */
  barMax?: number;
  /** Sorted by an average: the rule that chose the rows ranked, said under the table. */
  ranking?: RankingRule;
}

export const ACTIONS = {
  prev: 'report.prev',
  next: 'report.next',
  range: 'report.range',
  sort: 'report.sort',
  filter: 'report.filter',
  drill: 'report.drill',
  share: 'report.share',
  inspect: 'report.inspect',
} as const;

/** Prefix of the block_id of the menus' actions block; the rest is the query ref. */
export const MENU_BLOCK_PREFIX = 'rq|';
const CELL_MAX = 120;

export function reportMessage(view: ReportView): { text: string; blocks: KnownBlock[] } {
  const { def, query, range, rows } = view;
  const table = rows.length > 0 ? reportTable(def, rows, view.timeZone, view.now, view.barMax) : undefined;
  const headless = table?.type === 'table' && rows.length >= LIMITS.tableRows;
  const blocks: KnownBlock[] = [
    { type: 'header', text: plainText(`${def.title} · ${range.label}`, LIMITS.headerText) },
    { type: 'context', elements: [mrkdwn(contextLine(view, headless))] },
  ];
  if (rows.length === 0) {
    blocks.push({
      type: 'section',
      text: mrkdwn(
        query.page > 1
          ? 'No more rows: this is past the last page.'
          : view.ranking
            ? `No ${def.title.toLowerCase()} had ${formatCount(view.ranking.minVisits)} visits or more, so none is ranked by time. Sort by visits, or try a longer range.`
            : `No data for this range and these filters. ${escapeMrkdwn(likelyFilterFix(query.filters) ?? 'Try a longer range, or fewer filters.')}`,
      ),
    });
  } else if (table) {
    blocks.push(table);
  }
  if (view.ranking && rows.length > 0) {
    blocks.push({ type: 'context', elements: [mrkdwn(rankingNote(def, view.ranking))] });
  }
  blocks.push(...actionBlocks(view));
  return { text: notificationText(view), blocks: capBlocks(blocks) };
}

/** "Pages with fewer than 26 visits (1% of the 2,504 in this report, rounded up) are not ranked by time: …" */
function rankingNote(def: ReportDef, rule: RankingRule): string {
  const share =
    rule.total !== undefined && rule.minVisits > RANK_MIN_VISITS
      ? ` (${Math.round(RANK_MIN_SHARE * 100)}% of the ${formatCount(rule.total)} in this report, rounded up)`
      : '';
  return `${def.title} with fewer than ${formatCount(rule.minVisits)} visits${share} are not ranked by time: an average of a few visits is mostly chance.`;
}

/** `headless`: the table had no room for its header row, so the columns are named here. */
function contextLine(view: ReportView, headless: boolean): string {
  const { query, rows, def } = view;
  const first = (query.page - 1) * query.top + 1;
  const parts = [
    rows.length > 0 ? `Rows ${formatCount(first)}–${formatCount(first + rows.length - 1)}` : 'No rows',
    `sorted by ${sortLabel(def, query)}`,
  ];
  const filters = describeFilters(query.filters);
  if (filters) parts.push(`filters: ${filters}`);
  parts.push(escapeMrkdwn(apiDaysWords(view.apiZone)));
  if (def.columns.some((c) => c.format === 'datetime')) parts.push(`times in ${escapeMrkdwn(view.timeZone)}`);
  if (view.demo) parts.push('_demo data_');
  if (view.sharedBy && USER_ID.test(view.sharedBy)) parts.push(`shared by <@${view.sharedBy}>`);
  if (headless) {
    const columns = [
      ...def.columns.map((c) => c.label),
      ...(barScale(def, rows, view.barMax) > 0 ? [barHeading(def)] : []),
    ];
    parts.push(`columns: ${columns.join(', ')}`);
  }
  return parts.join(' · ');
}

function sortLabel(def: ReportDef, query: ReportQuery): string {
  const key = query.sort?.key ?? def.defaultSort;
  const dir = query.sort?.dir ?? 'desc';
  const column = def.columns.find((c) => c.field === key);
  const name = column?.label ?? (key === 'created' ? 'newest' : key);
  return `${escapeMrkdwn(name)} ${dir === 'asc' ? '↑' : '↓'}`;
}

function cellText(row: ReportRow, column: Column, timeZone: string, now: Date): string {
  return formatField(fieldOf(row, column.field), column.format, timeZone, now, CELL_MAX);
}

/**
 * The bar column's heading, for a report with counts: each row's count against the most any
 * row of the report has, whatever the sort ("vs most visits"), so it is never "the top row"
 * when the top row is another sort's.
 */
function barHeading(def: ReportDef): string {
  const count = def.columns.find((c) => c.field === def.countField);
  return `vs most ${(count?.label ?? 'visits').toLowerCase()}`;
}

/** The count a full bar stands for (0: the report has no bars): the report's most, or this page's. */
function barScale(def: ReportDef, rows: readonly ReportRow[], barMax: number | undefined): number {
  if (!def.countField) return 0;
  return Math.max(0, barMax ?? 0, ...rows.map((r) => Number(fieldOf(r, def.countField!)) || 0));
}

/** Numbers sort by value in the client; the text keeps Lookout's formatting. */
function numericValue(row: ReportRow, column: Column): number | undefined {
  if (column.format !== 'count' && column.format !== 'duration') return undefined;
  const value = fieldOf(row, column.field);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * The page as a data_table (Slack sorts and pages it in the client; numbers are raw_number),
 * or, past its character budget, as the plain table.
 */
function reportTable(
  def: ReportDef,
  rows: readonly ReportRow[],
  timeZone: string,
  now: Date,
  barMax?: number,
): DataTableBlock | TableBlock {
  const counts = def.countField ? rows.map((r) => Number(fieldOf(r, def.countField!)) || 0) : [];
  const max = barScale(def, rows, barMax);
  const withBar = max > 0;
  const header = [...def.columns.map((c) => cell(c.label)), ...(withBar ? [cell(barHeading(def))] : [])];
  const page = rows.slice(0, LIMITS.dataTableRows);
  const texts = page.map((row) => def.columns.map((c) => cellText(row, c, timeZone, now)));
  const bars = page.map((_, i) => bar(counts[i], max, 10).trimEnd() || '▏');

  const tableRows = page.map((row, i) => [
    ...def.columns.map((c, j) => {
      const value = numericValue(row, c);
      return value === undefined ? cell(texts[i]![j]!) : numberCell(value, texts[i]![j]!);
    }),
    ...(withBar ? [cell(bars[i]!)] : []),
  ]);
  if (
    withinChars(
      [header, ...tableRows].flatMap((r) => r.map((c) => c.text)),
      LIMITS.dataTableChars,
    )
  ) {
    return {
      type: 'data_table',
      caption: `${def.title}: ${def.columns.map((c) => c.label).join(', ')}`,
      page_size: Math.min(page.length, LIMITS.dataTablePageSize),
      rows: [header, ...tableRows],
    };
  }
  return plainTable(def, header, texts, withBar ? bars : undefined);
}

function plainTable(
  def: ReportDef,
  header: ReturnType<typeof cell>[],
  texts: string[][],
  bars: string[] | undefined,
): TableBlock {
  const numeric = (c: Column) => c.format === 'count' || c.format === 'duration';
  const body = texts.slice(0, LIMITS.tableRows).map((row, i) => [...row, ...(bars ? [bars[i]!] : [])]);
  // A full page of 100 rows leaves no room for the header row: the columns are then named in the context line.
  const rows = body.length < LIMITS.tableRows ? [header.map((c) => c.text), ...body] : body;
  // Past the table's character budget the longest cells are cut: every row of the page stays, so paging holds.
  return {
    type: 'table',
    column_settings: def.columns.map((c) => (numeric(c) ? { align: 'right' } : { is_wrapped: true })),
    rows: fitTableText(rows).map((r) => r.map((t) => cell(t))),
  };
}

function button(text: string, actionId: string, value: string, style?: 'primary'): Button {
  return {
    type: 'button',
    text: plainText(text, LIMITS.buttonText),
    action_id: actionId,
    value: value.slice(0, LIMITS.buttonValue),
    ...(style ? { style } : {}),
  };
}

function option(text: string, value: string): PlainTextOption {
  return { text: plainText(text, LIMITS.optionText), value: value.slice(0, LIMITS.optionValue) };
}

function actionBlocks(view: ReportView): ActionsBlock[] {
  const { query, def, refs, rows } = view;
  const nav: Button[] = [];
  if (refs.prev) nav.push(button('◀ Prev', ACTIONS.prev, refs.prev));
  if (refs.next) nav.push(button('Next ▶', ACTIONS.next, refs.next));

  const rangeOptions = RANGE_MENU.map((w) => option(rangeLabel(w), encodeMenuChoice({ range: w })));
  const currentRange = rangeOptions.find((o) => o.value === encodeMenuChoice({ range: query.range }));
  const sortOptions = sortChoices(def);
  const current = encodeMenuChoice({
    sort: { key: query.sort?.key ?? def.defaultSort, dir: query.sort?.dir ?? 'desc' },
  });
  const currentSort = sortOptions.find((o) => o.value === current);

  const menus: ActionsBlock = {
    type: 'actions',
    block_id: `${MENU_BLOCK_PREFIX}${refs.block}`.slice(0, LIMITS.blockId),
    elements: [
      ...nav,
      {
        type: 'static_select',
        action_id: ACTIONS.range,
        placeholder: plainText('Date range', LIMITS.placeholder),
        options: rangeOptions,
        ...(currentRange ? { initial_option: currentRange } : {}),
      },
      {
        type: 'static_select',
        action_id: ACTIONS.sort,
        placeholder: plainText('Sort', LIMITS.placeholder),
        options: sortOptions.slice(0, LIMITS.selectOptions),
        ...(currentSort ? { initial_option: currentSort } : {}),
      },
    ],
  };

  const more: (Button | StaticSelect)[] = [button('Filter…', ACTIONS.filter, refs.current)];
  if (view.back && view.ephemeral) more.unshift(button('◀ Back to card', BACK_TO_CARD_ACTION, view.back));
  if (refs.trend) more.push(button('Trend', TREND_ACTION, refs.trend));
  const visitorIds = inspectableVisitors(def, rows);
  if (visitorIds.length > 0) {
    more.push({
      type: 'static_select',
      action_id: ACTIONS.inspect,
      placeholder: plainText('Inspect visitor…', LIMITS.placeholder),
      options: visitorIds.map((id) => option(id, id)),
    });
  }
  if (def.drillTo && def.rowFilter && rows.length > 0) {
    more.push(button('Drill down', ACTIONS.drill, refs.current));
  }
  if (view.ephemeral) more.push(button('Post to channel', ACTIONS.share, refs.current, 'primary'));
  return [menus, { type: 'actions', elements: more }];
}

/** The visitor ids on the page that fit in a menu option, each once. */
function inspectableVisitors(def: ReportDef, rows: readonly ReportRow[]): string[] {
  const field = def.visitorField;
  if (!field) return [];
  const ids = rows
    .map((r) => fieldOf(r, field))
    .filter((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= LIMITS.optionValue);
  return [...new Set(ids)].slice(0, LIMITS.selectOptions);
}

/** Each sortable field once, both ways: "Visits ↓", "Visits ↑". */
function sortChoices(def: ReportDef): PlainTextOption[] {
  const fields = sortFields(def);
  // A visit's date is when it was created: "Newest first" already says it.
  return fields
    .filter((key) => !(key === 'date' && fields.includes('created')))
    .flatMap((key) => {
      const choice = (dir: SortDir) => encodeMenuChoice({ sort: { key, dir } });
      if (key === 'created') return [option('Newest first', choice('desc')), option('Oldest first', choice('asc'))];
      const label = def.columns.find((c) => c.field === key)?.label ?? key;
      return [option(`${label} ↓`, choice('desc')), option(`${label} ↑`, choice('asc'))];
    });
}

/** What a range or sort menu option changes. */
export type MenuChoice = { range: string } | { sort: { key: string; dir: SortDir } };

/** `r:<range>` or `s:<field>:<asc|desc>`. */
export function encodeMenuChoice(choice: MenuChoice): string {
  return 'range' in choice ? `r:${choice.range}` : `s:${choice.sort.key}:${choice.sort.dir}`;
}

/**
 * The change a menu option asks for, checked against the report as a typed command is:
 * a range the command language knows, a sort key from the report's catalog.
 */
export function decodeMenuChoice(
  value: unknown,
  def: ReportDef,
): { ok: true; choice: MenuChoice } | { ok: false; error: string } {
  const parsed = menuChoice(def).safeParse(value);
  return parsed.success
    ? { ok: true, choice: parsed.data }
    : { ok: false, error: parsed.error.issues[0]?.message ?? 'That menu option is not one of ours.' };
}

const menuChoice = (def: ReportDef) =>
  z
    .string()
    .max(LIMITS.optionValue)
    .transform((value, ctx): MenuChoice => {
      if (value.startsWith('r:')) {
        const range = normalizeRange(value.slice(2));
        if (range.ok) return { range: range.range };
        ctx.addIssue({ code: 'custom', message: range.error });
        return z.NEVER;
      }
      const sort = /^s:([^:]{1,64}):(asc|desc)$/.exec(value);
      if (sort && sortFields(def).includes(sort[1]!)) return { sort: { key: sort[1]!, dir: sort[2] as SortDir } };
      ctx.addIssue({
        code: 'custom',
        message: `${code(sort?.[1] ?? value)} is not a way to sort ${def.title}; pick one from the menu.`,
      });
      return z.NEVER;
    });

/** The notification text: the report and its first rows, plain. */
function notificationText(view: ReportView): string {
  const { def, rows, range } = view;
  const nameColumn = def.columns[0]!;
  const countColumn = def.columns.find((c) => c.format === 'count');
  const lines = rows.slice(0, 5).map((row) => {
    const name = cellText(row, nameColumn, view.timeZone, view.now);
    return countColumn ? `${name} ${cellText(row, countColumn, view.timeZone, view.now)}` : name;
  });
  const summary = lines.length > 0 ? `: ${lines.join(', ')}${rows.length > 5 ? ', …' : ''}` : ': no data';
  return fallbackText(`${def.title}, ${range.label}${summary}`);
}
