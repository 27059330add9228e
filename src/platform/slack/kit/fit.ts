/**
 * Fits what Lookout is about to send to Slack's rules (slack-rules/), the same table the
 * offline Slack enforces. Each change is said in `changes`; what still breaks a rule after
 * fitting is in `reasons`. Pure functions, no I/O.
 */
import { BLOCK_RULES, LIMITS, type Surface } from '../../../slack-rules/rules.js';
import { charLength, validateHomeView, validateMessage, validateView } from '../../../slack-rules/validate.js';
import { formatCount, counted } from '../../../kernel/format.js';

type Json = Record<string, unknown>;

export interface Fitted<T> {
  value: T;
  /** What was changed to fit, in words (logged and counted). */
  changes: string[];
  /** What still breaks a rule after fitting (empty when Slack would take it). */
  reasons: string[];
}

export interface OutgoingMessage {
  text?: unknown;
  blocks?: unknown;
  attachments?: unknown;
  [key: string]: unknown;
}

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value.text === 'string') return value.text;
  return '';
}

const section = (text: string): Json => ({
  type: 'section',
  text: {
    type: 'mrkdwn',
    text: Array.from(text || ' ')
      .slice(0, LIMITS.sectionText)
      .join(''),
  },
});

/** A chart's figures in words: its title, then each series' or segment's values. */
export function chartAsText(block: Json): string {
  const chart = isRecord(block.chart) ? block.chart : {};
  const title = typeof block.title === 'string' ? `*${block.title}*` : '*Chart*';
  const lines: string[] = [];
  if (Array.isArray(chart.segments)) {
    for (const s of chart.segments)
      if (isRecord(s)) lines.push(`${String(s.label)}: ${formatCount(Number(s.value) || 0)}`);
  } else if (Array.isArray(chart.series)) {
    for (const s of chart.series) {
      if (!isRecord(s) || !Array.isArray(s.data)) continue;
      const points = s.data.filter(isRecord).map((d) => `${String(d.label)} ${formatCount(Number(d.value) || 0)}`);
      lines.push(`${String(s.name)}: ${points.join(', ')}`);
    }
  }
  return [title, ...lines].join('\n');
}

/** A block that may not go on `surface`, as the nearest block that may: its text in a section. */
function replacement(block: Json): Json {
  if (block.type === 'data_visualization') return section(chartAsText(block));
  if (block.type === 'alert') return section(textOf(block.text));
  if (block.type === 'table' || block.type === 'data_table') return section(tableAsText(block));
  if (block.type === 'markdown') return section(typeof block.text === 'string' ? block.text : '');
  return section(textOf(block.text) || textOf(block.label) || ' ');
}

function cellText(cell: unknown): string {
  if (!isRecord(cell)) return '';
  if (typeof cell.text === 'string') return cell.text;
  if (typeof cell.value === 'number') return String(cell.value);
  return '';
}

function tableAsText(block: Json): string {
  const rows = Array.isArray(block.rows) ? block.rows.filter(Array.isArray) : [];
  return rows.map((r) => (r as unknown[]).map(cellText).join(' · ')).join('\n');
}

/** The characters of a table's first `keep` rows, counted by `length`. */
function tableChars(rows: unknown[][], keep: number, length: (text: string) => number): number {
  let n = 0;
  for (const row of rows.slice(0, keep)) for (const cell of row) n += length(cellText(cell));
  return n;
}

/** A table cut to its row and character budget (the header row kept); how many rows went. */
function cutTable(block: Json, maxRows: number, maxChars: number): { block: Json; cut: number } {
  const rows = Array.isArray(block.rows) ? (block.rows.filter(Array.isArray) as unknown[][]) : [];
  // Code points are at most UTF-16 units: a table within its budget in units is left as it is.
  const whole = rows.length === (block.rows as unknown[] | undefined)?.length;
  if (whole && rows.length <= maxRows && tableChars(rows, rows.length, (t) => t.length) <= maxChars)
    return { block, cut: 0 };
  let keep = Math.min(rows.length, maxRows);
  while (keep > 2 && tableChars(rows, keep, charLength) > maxChars) keep--;
  return { block: { ...block, rows: rows.slice(0, keep) }, cut: rows.length - keep };
}

function fitBlocks(
  blocks: unknown[],
  surface: Surface,
  where: string,
  changes: string[],
  inAttachment = false,
): unknown[] {
  let charts = 0;
  let tables = 0;
  const out: unknown[] = [];
  for (const [i, b] of blocks.entries()) {
    if (!isRecord(b) || typeof b.type !== 'string') {
      out.push(b);
      continue;
    }
    const rule = (BLOCK_RULES as Record<string, { surfaces: readonly Surface[]; inAttachments: boolean }>)[b.type];
    const allowed = rule !== undefined && rule.surfaces.includes(surface) && (!inAttachment || rule.inAttachments);
    if (rule && !allowed) {
      changes.push(
        `${where}[${i}]: the ${b.type} block may not go ${inAttachment ? 'in an attachment' : `in a ${surface}`}; sent as text`,
      );
      out.push(replacement(b));
      continue;
    }
    if (b.type === 'data_visualization' && ++charts > LIMITS.chartsPerMessage) {
      changes.push(
        `${where}[${i}]: chart ${charts} of a message (Slack takes ${LIMITS.chartsPerMessage}); sent as its figures in text`,
      );
      out.push(section(chartAsText(b)));
      continue;
    }
    if (b.type === 'table' && ++tables > LIMITS.tablesPerMessage) {
      changes.push(`${where}[${i}]: a second table in a message (Slack takes one); sent as text`);
      out.push(section(tableAsText(b)));
      continue;
    }
    if (b.type === 'table' || b.type === 'data_table') {
      const maxRows = b.type === 'table' ? LIMITS.tableRows : LIMITS.dataTableRows + 1;
      const maxChars = b.type === 'table' ? LIMITS.tableChars : LIMITS.dataTableChars;
      const { block, cut } = cutTable(b, maxRows, maxChars);
      if (cut > 0) {
        changes.push(
          `${where}[${i}]: a ${b.type} over Slack's limits (${maxRows} rows, ${formatCount(maxChars)} characters); ${cut} rows left out`,
        );
        out.push(block, {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: `…${counted(cut, 'more row')} not shown here.` }],
        });
        continue;
      }
    }
    out.push(b);
  }
  const max = surface === 'message' ? LIMITS.messageBlocks : LIMITS.viewBlocks;
  if (out.length > max) {
    changes.push(
      `${where}: ${out.length} blocks (Slack takes ${max} in a ${surface}); the last kept, ${out.length - max} before it left out`,
    );
    return [...out.slice(0, max - 1), out[out.length - 1]];
  }
  return out;
}

/** A message for chat.postMessage, chat.update, chat.postEphemeral or a response_url. */
export function fitMessage(message: OutgoingMessage): Fitted<OutgoingMessage> {
  const changes: string[] = [];
  const value: OutgoingMessage = { ...message };
  if (Array.isArray(message.blocks)) value.blocks = fitBlocks(message.blocks, 'message', 'blocks', changes);
  if (Array.isArray(message.attachments)) {
    value.attachments = (message.attachments as unknown[]).map((a, i) =>
      isRecord(a) && Array.isArray(a.blocks)
        ? { ...a, blocks: fitBlocks(a.blocks, 'message', `attachments[${i}].blocks`, changes, true) }
        : a,
    );
  }
  const checked = validateMessage({ blocks: value.blocks, attachments: value.attachments });
  return { value, changes, reasons: checked.ok ? [] : checked.reasons };
}

/** A view for views.open, views.update, views.push (`modal`) or views.publish (`home`). */
export function fitView(view: unknown, surface: 'modal' | 'home'): Fitted<unknown> {
  const changes: string[] = [];
  if (!isRecord(view) || !Array.isArray(view.blocks)) {
    const checked = surface === 'home' ? validateHomeView(view) : validateView(view);
    return { value: view, changes, reasons: checked.ok ? [] : checked.reasons };
  }
  const value = { ...view, blocks: fitBlocks(view.blocks, surface, 'view.blocks', changes) };
  const checked = surface === 'home' ? validateHomeView(value) : validateView(value);
  return { value, changes, reasons: checked.ok ? [] : checked.reasons };
}
