import { ATTACHMENT_COLOR, BLOCK_RULES, LIMITS, type Surface } from './rules.js';

/**
 * Block Kit validation as Slack's servers do it: a payload over a limit is refused
 * (`invalid_blocks`), never silently shown. Pure functions, no I/O.
 *
 * Every reason names the offending field with a path such as
 * `blocks[3].elements[0].text.text: must be at most 75 characters`; `toJsonPointerMessage`
 * turns one into the `[ERROR] … [json-pointer:/blocks/3/elements/0/text/text]` form Slack
 * puts into `response_metadata.messages`.
 *
 * Lengths are counted in Unicode code points.
 */

export type { Surface };

export type BlocksValidation = { ok: true } | { ok: false; error: 'invalid_blocks'; reasons: string[] };

export type ViewValidation = { ok: true } | { ok: false; error: 'invalid_arguments'; reasons: string[] };

export type TextValidation = { ok: true; text: string; truncated: boolean } | { ok: false; error: 'no_text' };

export { LIMITS };

const SELECTS = ['static_select', 'external_select', 'users_select', 'conversations_select', 'channels_select'];
const MULTI_SELECTS = SELECTS.map((s) => `multi_${s}`);
const ACTIONS_ELEMENTS = new Set([
  'button',
  'checkboxes',
  'datepicker',
  'datetimepicker',
  'overflow',
  'radio_buttons',
  'timepicker',
  'workflow_button',
  ...SELECTS,
  ...MULTI_SELECTS,
]);
const ACCESSORY_ELEMENTS = new Set([
  'button',
  'checkboxes',
  'datepicker',
  'image',
  'overflow',
  'radio_buttons',
  'timepicker',
  'workflow_button',
  ...SELECTS,
  ...MULTI_SELECTS,
]);
const INPUT_ELEMENTS = new Set([
  'checkboxes',
  'datepicker',
  'datetimepicker',
  'email_text_input',
  'file_input',
  'number_input',
  'plain_text_input',
  'radio_buttons',
  'rich_text_input',
  'timepicker',
  'url_text_input',
  ...SELECTS,
  ...MULTI_SELECTS,
]);
const RICH_TEXT_CONTAINERS = new Set([
  'rich_text_section',
  'rich_text_list',
  'rich_text_quote',
  'rich_text_preformatted',
]);
const RICH_TEXT_LEAVES = new Set([
  'text',
  'link',
  'emoji',
  'user',
  'channel',
  'usergroup',
  'broadcast',
  'date',
  'color',
  'team',
]);

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Length in Unicode code points (an emoji counts once). */
export function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** What a table cell counts toward its table's budget: its text, or its rich text as written. */
function cellText(cell: unknown): string {
  if (!isRecord(cell)) return '';
  if (typeof cell.text === 'string') return cell.text;
  return JSON.stringify(cell.elements ?? cell.value ?? '');
}

/**
 * The characters a table's cells hold when they are over `budget`; undefined within it. Code
 * points are at most UTF-16 units: they are counted only when the units are over.
 */
function charsOver(rows: readonly unknown[], budget: number): number | undefined {
  const count = (length: (text: string) => number) => {
    let n = 0;
    for (const row of rows) if (Array.isArray(row)) for (const cell of row as unknown[]) n += length(cellText(cell));
    return n;
  };
  if (count((t) => t.length) <= budget) return undefined;
  const chars = count(charLength);
  return chars > budget ? chars : undefined;
}

/** `blocks[3].elements[0].text.text: msg` → `[ERROR] msg [json-pointer:/blocks/3/elements/0/text/text]`. */
export function toJsonPointerMessage(reason: string): string {
  const at = reason.indexOf(': ');
  if (at < 0) return `[ERROR] ${reason}`;
  const path = reason.slice(0, at);
  const pointer =
    '/' +
    path
      .replace(/\[(\d+)\]/g, '.$1')
      .split('.')
      .filter(Boolean)
      .join('/');
  return `[ERROR] ${reason.slice(at + 2)} [json-pointer:${pointer}]`;
}

class Checker {
  readonly reasons: string[] = [];
  tables = 0;
  charts = 0;
  markdownChars = 0;
  inAttachment = false;

  constructor(readonly surface: Surface) {}

  fail(path: string, message: string): void {
    this.reasons.push(`${path}: ${message}`);
  }

  /** A string field; `required` makes absence an error. Returns the string when valid. */
  string(
    path: string,
    value: unknown,
    opts: { max?: number; min?: number; required?: boolean } = {},
  ): string | undefined {
    if (value === undefined || value === null) {
      if (opts.required) this.fail(path, 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.fail(path, 'must be a string');
      return undefined;
    }
    const min = opts.min ?? 0;
    // Code points are at most UTF-16 units: counted only when the count could break a bound.
    const len = value.length <= (opts.max ?? Infinity) && min <= 1 ? value.length : charLength(value);
    if (len < min) {
      this.fail(path, min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
      return undefined;
    }
    if (opts.max !== undefined && len > opts.max) {
      this.fail(path, `must be at most ${opts.max} characters`);
      return undefined;
    }
    return value;
  }

  boolean(path: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'boolean') this.fail(path, 'must be a boolean');
  }

  /** An array field with item-count limits. Returns the array when it is one. */
  array(
    path: string,
    value: unknown,
    opts: { max?: number; min?: number; required?: boolean } = {},
  ): unknown[] | undefined {
    if (value === undefined || value === null) {
      if (opts.required) this.fail(path, 'is required');
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.fail(path, 'must be an array');
      return undefined;
    }
    if (opts.min !== undefined && value.length < opts.min) {
      this.fail(path, opts.min === 1 ? 'must not be empty' : `must have at least ${opts.min} items`);
    }
    if (opts.max !== undefined && value.length > opts.max) {
      this.fail(path, `must have at most ${opts.max} items (got ${value.length})`);
    }
    return value as unknown[];
  }

  object(path: string, value: unknown, required = false): Json | undefined {
    if (value === undefined || value === null) {
      if (required) this.fail(path, 'is required');
      return undefined;
    }
    if (!isRecord(value)) {
      this.fail(path, 'must be an object');
      return undefined;
    }
    return value;
  }

  /** A text object: `{ type: 'plain_text' | 'mrkdwn', text }` with a non-empty `text`. */
  text(path: string, value: unknown, opts: { max: number; plainOnly?: boolean; required?: boolean }): void {
    const obj = this.object(path, value, opts.required ?? true);
    if (!obj) return;
    if (obj.type !== 'plain_text' && obj.type !== 'mrkdwn') {
      this.fail(`${path}.type`, 'must be plain_text or mrkdwn');
    } else if (opts.plainOnly && obj.type !== 'plain_text') {
      this.fail(`${path}.type`, 'must be plain_text');
    }
    this.string(`${path}.text`, obj.text, { required: true, min: 1, max: opts.max });
    if (obj.type === 'plain_text') this.boolean(`${path}.emoji`, obj.emoji);
    if (obj.type === 'mrkdwn') {
      this.boolean(`${path}.verbatim`, obj.verbatim);
      if (obj.emoji !== undefined) this.fail(`${path}.emoji`, 'is only allowed on plain_text');
    }
  }

  url(path: string, value: unknown, required = false): void {
    this.string(path, value, { max: LIMITS.url, min: 1, required });
  }

  blockId(path: string, value: unknown, seen: Set<string>): void {
    const id = this.string(path, value, { max: LIMITS.blockId, min: 1 });
    if (id === undefined) return;
    if (seen.has(id)) this.fail(path, `duplicate block_id "${id}"`);
    seen.add(id);
  }

  actionId(path: string, value: unknown, seen: Set<string> | undefined): void {
    const id = this.string(path, value, { max: LIMITS.actionId, min: 1 });
    if (id === undefined || !seen) return;
    if (seen.has(id)) this.fail(path, `duplicate action_id "${id}" in this block`);
    seen.add(id);
  }

  confirm(path: string, value: unknown): void {
    const c = this.object(path, value);
    if (!c) return;
    this.text(`${path}.title`, c.title, { max: LIMITS.confirmTitle, plainOnly: true, required: false });
    this.text(`${path}.text`, c.text, { max: LIMITS.confirmText });
    this.text(`${path}.confirm`, c.confirm, { max: LIMITS.confirmButton, plainOnly: true, required: false });
    this.text(`${path}.deny`, c.deny, { max: LIMITS.confirmButton, plainOnly: true, required: false });
    this.style(`${path}.style`, c.style);
  }

  style(path: string, value: unknown): void {
    if (value !== undefined && value !== 'primary' && value !== 'danger') this.fail(path, 'must be primary or danger');
  }

  placeholder(path: string, value: unknown): void {
    this.text(path, value, { max: LIMITS.placeholder, plainOnly: true, required: false });
  }

  /** One option object. Returns its value (for initial_option checks). */
  option(path: string, value: unknown, opts: { mrkdwn?: boolean; allowUrl?: boolean }): string | undefined {
    const o = this.object(path, value, true);
    if (!o) return undefined;
    this.text(`${path}.text`, o.text, { max: LIMITS.optionText, plainOnly: !opts.mrkdwn });
    const v = this.string(`${path}.value`, o.value, { max: LIMITS.optionValue, min: 1, required: !opts.allowUrl });
    this.text(`${path}.description`, o.description, {
      max: LIMITS.optionDescription,
      plainOnly: !opts.mrkdwn,
      required: false,
    });
    if (o.url !== undefined) {
      if (opts.allowUrl) this.url(`${path}.url`, o.url);
      else this.fail(`${path}.url`, 'is only allowed in overflow menus');
    }
    return v;
  }

  options(
    path: string,
    value: unknown,
    max: number,
    opts: { mrkdwn?: boolean; allowUrl?: boolean; required?: boolean },
  ): string[] {
    const list = this.array(path, value, { min: 1, max, required: opts.required ?? true });
    const values: string[] = [];
    list?.forEach((o, i) => {
      const v = this.option(`${path}[${i}]`, o, opts);
      if (v !== undefined) values.push(v);
    });
    return values;
  }

  initialOptions(path: string, value: unknown, known: string[], multi: boolean): void {
    if (value === undefined) return;
    const items = multi ? (this.array(path, value) ?? []) : [value];
    items.forEach((item, i) => {
      const p = multi ? `${path}[${i}]` : path;
      const v = this.option(p, item, { mrkdwn: true });
      if (v !== undefined && known.length > 0 && !known.includes(v)) this.fail(p, 'must match one of the options');
    });
  }

  /** Any element from the allowed set, at `path`. */
  element(path: string, value: unknown, allowed: ReadonlySet<string>, where: string, actionIds?: Set<string>): void {
    const el = this.object(path, value, true);
    if (!el) return;
    const type = el.type;
    if (typeof type !== 'string') {
      this.fail(`${path}.type`, 'is required');
      return;
    }
    if (!allowed.has(type)) {
      this.fail(`${path}.type`, `"${type}" is not allowed in ${where}`);
      return;
    }
    if (type !== 'image') this.actionId(`${path}.action_id`, el.action_id, actionIds);
    this.confirm(`${path}.confirm`, el.confirm);
    this.boolean(`${path}.focus_on_load`, el.focus_on_load);
    switch (type) {
      case 'button':
        this.text(`${path}.text`, el.text, { max: LIMITS.buttonText, plainOnly: true });
        this.string(`${path}.value`, el.value, { max: LIMITS.buttonValue });
        this.url(`${path}.url`, el.url);
        this.style(`${path}.style`, el.style);
        this.string(`${path}.accessibility_label`, el.accessibility_label, { max: LIMITS.accessibilityLabel, min: 1 });
        break;
      case 'workflow_button':
        this.text(`${path}.text`, el.text, { max: LIMITS.buttonText, plainOnly: true });
        this.object(`${path}.workflow`, el.workflow, true);
        this.style(`${path}.style`, el.style);
        break;
      case 'static_select':
      case 'multi_static_select': {
        const multi = type.startsWith('multi_');
        this.placeholder(`${path}.placeholder`, el.placeholder);
        let known: string[] = [];
        if (el.options !== undefined && el.option_groups !== undefined) {
          this.fail(path, 'must have either options or option_groups, not both');
        } else if (el.option_groups !== undefined) {
          const groups = this.array(`${path}.option_groups`, el.option_groups, { min: 1, max: LIMITS.optionGroups });
          groups?.forEach((g, i) => {
            const gp = `${path}.option_groups[${i}]`;
            const group = this.object(gp, g, true);
            if (!group) return;
            this.text(`${gp}.label`, group.label, { max: LIMITS.optionGroupLabel, plainOnly: true });
            known = known.concat(this.options(`${gp}.options`, group.options, LIMITS.selectOptions, {}));
          });
        } else {
          known = this.options(`${path}.options`, el.options, LIMITS.selectOptions, {});
        }
        this.initialOptions(
          `${path}.${multi ? 'initial_options' : 'initial_option'}`,
          multi ? el.initial_options : el.initial_option,
          known,
          multi,
        );
        if (multi) this.maxSelected(`${path}.max_selected_items`, el.max_selected_items);
        break;
      }
      case 'overflow':
        this.options(`${path}.options`, el.options, LIMITS.overflowOptions, { allowUrl: true });
        break;
      case 'checkboxes':
      case 'radio_buttons': {
        const known = this.options(`${path}.options`, el.options, LIMITS.checkboxOptions, { mrkdwn: true });
        const multi = type === 'checkboxes';
        this.initialOptions(
          `${path}.${multi ? 'initial_options' : 'initial_option'}`,
          multi ? el.initial_options : el.initial_option,
          known,
          multi,
        );
        break;
      }
      case 'external_select':
      case 'multi_external_select':
      case 'users_select':
      case 'multi_users_select':
      case 'conversations_select':
      case 'multi_conversations_select':
      case 'channels_select':
      case 'multi_channels_select':
        this.placeholder(`${path}.placeholder`, el.placeholder);
        if (type.startsWith('multi_')) this.maxSelected(`${path}.max_selected_items`, el.max_selected_items);
        if (
          el.min_query_length !== undefined &&
          !(Number.isInteger(el.min_query_length) && Number(el.min_query_length) >= 0)
        ) {
          this.fail(`${path}.min_query_length`, 'must be a non-negative integer');
        }
        break;
      case 'datepicker':
        this.placeholder(`${path}.placeholder`, el.placeholder);
        if (
          el.initial_date !== undefined &&
          !(typeof el.initial_date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(el.initial_date))
        ) {
          this.fail(`${path}.initial_date`, 'must be YYYY-MM-DD');
        }
        break;
      case 'timepicker':
        this.placeholder(`${path}.placeholder`, el.placeholder);
        if (
          el.initial_time !== undefined &&
          !(typeof el.initial_time === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(el.initial_time))
        ) {
          this.fail(`${path}.initial_time`, 'must be HH:mm');
        }
        break;
      case 'datetimepicker':
        if (el.initial_date_time !== undefined && !Number.isInteger(el.initial_date_time)) {
          this.fail(`${path}.initial_date_time`, 'must be a Unix timestamp in seconds');
        }
        break;
      case 'plain_text_input': {
        this.placeholder(`${path}.placeholder`, el.placeholder);
        this.string(`${path}.initial_value`, el.initial_value);
        this.boolean(`${path}.multiline`, el.multiline);
        const min = this.intRange(`${path}.min_length`, el.min_length, 0, LIMITS.plainTextInputLength);
        const max = this.intRange(`${path}.max_length`, el.max_length, 1, LIMITS.plainTextInputLength);
        if (min !== undefined && max !== undefined && min > max)
          this.fail(`${path}.min_length`, 'must not exceed max_length');
        break;
      }
      case 'number_input':
        this.placeholder(`${path}.placeholder`, el.placeholder);
        if (typeof el.is_decimal_allowed !== 'boolean') this.fail(`${path}.is_decimal_allowed`, 'is required');
        break;
      case 'email_text_input':
      case 'url_text_input':
      case 'rich_text_input':
        this.placeholder(`${path}.placeholder`, el.placeholder);
        break;
      case 'file_input':
        this.intRange(`${path}.max_files`, el.max_files, 1, 10);
        break;
      case 'image':
        this.image(path, el, LIMITS.imageAltText);
        break;
      default:
        break;
    }
  }

  maxSelected(path: string, value: unknown): void {
    this.intRange(path, value, 1, Number.MAX_SAFE_INTEGER);
  }

  intRange(path: string, value: unknown, min: number, max: number): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(
        path,
        max === Number.MAX_SAFE_INTEGER
          ? `must be an integer of at least ${min}`
          : `must be an integer from ${min} to ${max}`,
      );
      return undefined;
    }
    return value;
  }

  /** An image (block or element): `image_url` or `slack_file`, plus `alt_text`. */
  image(path: string, el: Json, altMax: number): void {
    if (el.image_url === undefined && el.slack_file === undefined) {
      this.fail(path, 'must have image_url or slack_file');
    } else if (el.image_url !== undefined && el.slack_file !== undefined) {
      this.fail(path, 'must have only one of image_url and slack_file');
    }
    if (el.image_url !== undefined) this.url(`${path}.image_url`, el.image_url);
    if (el.slack_file !== undefined) {
      const f = this.object(`${path}.slack_file`, el.slack_file);
      if (f && typeof f.url !== 'string' && typeof f.id !== 'string')
        this.fail(`${path}.slack_file`, 'must have url or id');
    }
    this.string(`${path}.alt_text`, el.alt_text, { required: true, min: 1, max: altMax });
  }

  richText(path: string, block: Json): void {
    const elements = this.array(`${path}.elements`, block.elements, { required: true });
    elements?.forEach((e, i) => this.richTextContainer(`${path}.elements[${i}]`, e));
  }

  richTextContainer(path: string, value: unknown): void {
    const c = this.object(path, value, true);
    if (!c) return;
    if (typeof c.type !== 'string' || !RICH_TEXT_CONTAINERS.has(c.type)) {
      this.fail(`${path}.type`, 'must be rich_text_section, rich_text_list, rich_text_quote or rich_text_preformatted');
      return;
    }
    const elements = this.array(`${path}.elements`, c.elements, { required: true });
    elements?.forEach((e, i) => {
      const p = `${path}.elements[${i}]`;
      if (c.type === 'rich_text_list') {
        this.richTextContainer(p, e);
        return;
      }
      const leaf = this.object(p, e, true);
      if (!leaf) return;
      if (typeof leaf.type !== 'string' || !RICH_TEXT_LEAVES.has(leaf.type)) {
        this.fail(`${p}.type`, `unsupported rich text element "${String(leaf.type)}"`);
        return;
      }
      if (leaf.type === 'text') this.string(`${p}.text`, leaf.text, { required: true });
      if (leaf.type === 'link') this.url(`${p}.url`, leaf.url, true);
      if (leaf.type === 'emoji') this.string(`${p}.name`, leaf.name, { required: true, min: 1 });
      if (leaf.type === 'user') this.string(`${p}.user_id`, leaf.user_id, { required: true, min: 1 });
      if (leaf.type === 'channel') this.string(`${p}.channel_id`, leaf.channel_id, { required: true, min: 1 });
      if (leaf.type === 'usergroup') this.string(`${p}.usergroup_id`, leaf.usergroup_id, { required: true, min: 1 });
      if (leaf.type === 'broadcast' && !['here', 'channel', 'everyone'].includes(String(leaf.range))) {
        this.fail(`${p}.range`, 'must be here, channel or everyone');
      }
    });
  }

  tableCell(path: string, value: unknown): void {
    const cell = this.object(path, value, true);
    if (!cell) return;
    switch (cell.type) {
      case 'raw_text':
        this.string(`${path}.text`, cell.text, { required: true, min: 1 });
        break;
      case 'raw_number':
        if (typeof cell.value !== 'number' || !Number.isFinite(cell.value))
          this.fail(`${path}.value`, 'must be a finite number');
        this.string(`${path}.text`, cell.text, { min: 1 });
        break;
      case 'rich_text':
        this.richText(path, cell);
        break;
      default:
        this.fail(`${path}.type`, 'must be raw_text, raw_number or rich_text');
    }
  }

  block(path: string, value: unknown, blockIds: Set<string>): void {
    const b = this.object(path, value, true);
    if (!b) return;
    const type = b.type;
    if (typeof type !== 'string') {
      this.fail(`${path}.type`, 'is required');
      return;
    }
    const rule = Object.hasOwn(BLOCK_RULES, type) ? BLOCK_RULES[type as keyof typeof BLOCK_RULES] : undefined;
    if (!rule) {
      this.fail(`${path}.type`, `unsupported block type "${type}"`);
      return;
    }
    if (!(rule.surfaces as readonly Surface[]).includes(this.surface)) {
      this.fail(
        `${path}.type`,
        `"${type}" blocks are not allowed in a ${this.surface} (only in: ${rule.surfaces.join(', ')})`,
      );
      return;
    }
    if (this.inAttachment && !rule.inAttachments) {
      this.fail(`${path}.type`, `"${type}" blocks are not allowed in a message attachment`);
      return;
    }
    this.blockId(`${path}.block_id`, b.block_id, blockIds);
    switch (type) {
      case 'section': {
        if (b.text === undefined && b.fields === undefined) this.fail(path, 'must have text or fields');
        if (b.text !== undefined) this.text(`${path}.text`, b.text, { max: LIMITS.sectionText });
        const fields = this.array(`${path}.fields`, b.fields, { min: 1, max: LIMITS.sectionFields });
        fields?.forEach((f, i) => this.text(`${path}.fields[${i}]`, f, { max: LIMITS.sectionFieldText }));
        if (b.accessory !== undefined)
          this.element(`${path}.accessory`, b.accessory, ACCESSORY_ELEMENTS, 'a section accessory');
        this.boolean(`${path}.expand`, b.expand);
        break;
      }
      case 'header':
        this.text(`${path}.text`, b.text, { max: LIMITS.headerText, plainOnly: true });
        break;
      case 'divider':
        break;
      case 'context': {
        const elements = this.array(`${path}.elements`, b.elements, {
          required: true,
          min: 1,
          max: LIMITS.contextElements,
        });
        elements?.forEach((e, i) => {
          const p = `${path}.elements[${i}]`;
          if (isRecord(e) && e.type === 'image') this.image(p, e, LIMITS.imageAltText);
          else this.text(p, e, { max: LIMITS.contextText });
        });
        break;
      }
      case 'actions': {
        const elements = this.array(`${path}.elements`, b.elements, {
          required: true,
          min: 1,
          max: LIMITS.actionsElements,
        });
        const ids = new Set<string>();
        elements?.forEach((e, i) =>
          this.element(`${path}.elements[${i}]`, e, ACTIONS_ELEMENTS, 'an actions block', ids),
        );
        break;
      }
      case 'context_actions': {
        const elements = this.array(`${path}.elements`, b.elements, {
          required: true,
          min: 1,
          max: LIMITS.contextActionsElements,
        });
        const ids = new Set<string>();
        elements?.forEach((e, i) => {
          const p = `${path}.elements[${i}]`;
          const el = this.object(p, e, true);
          if (!el) return;
          if (el.type !== 'feedback_buttons' && el.type !== 'icon_button') {
            this.fail(`${p}.type`, 'must be feedback_buttons or icon_button');
            return;
          }
          this.actionId(`${p}.action_id`, el.action_id, ids);
        });
        break;
      }
      case 'image':
        this.image(path, b, LIMITS.imageAltText);
        this.text(`${path}.title`, b.title, { max: LIMITS.imageTitle, plainOnly: true, required: false });
        break;
      case 'input':
        this.text(`${path}.label`, b.label, { max: LIMITS.inputLabel, plainOnly: true });
        this.text(`${path}.hint`, b.hint, { max: LIMITS.inputHint, plainOnly: true, required: false });
        this.boolean(`${path}.optional`, b.optional);
        this.boolean(`${path}.dispatch_action`, b.dispatch_action);
        this.element(`${path}.element`, b.element, INPUT_ELEMENTS, 'an input block');
        break;
      case 'rich_text':
        this.richText(path, b);
        break;
      case 'markdown': {
        const text = this.string(`${path}.text`, b.text, { required: true, min: 1, max: LIMITS.markdownText });
        if (text !== undefined) {
          this.markdownChars += charLength(text);
          if (this.markdownChars > LIMITS.markdownText) {
            this.fail(`${path}.text`, `markdown blocks may hold at most ${LIMITS.markdownText} characters in total`);
          }
        }
        break;
      }
      case 'table': {
        this.tables += 1;
        if (this.tables > LIMITS.tablesPerMessage)
          this.fail(path, 'only one table block is allowed in a message (only_one_table_allowed)');
        const rows = this.array(`${path}.rows`, b.rows, { required: true, min: 1, max: LIMITS.tableRows });
        rows?.forEach((row, r) => {
          const cells = this.array(`${path}.rows[${r}]`, row, { required: true, min: 1, max: LIMITS.tableCells });
          cells?.forEach((cell, c) => this.tableCell(`${path}.rows[${r}][${c}]`, cell));
        });
        const chars = rows && charsOver(rows, LIMITS.tableChars);
        if (chars !== undefined)
          this.fail(`${path}.rows`, `its cells hold ${chars} characters; at most ${LIMITS.tableChars}`);
        const settings = this.array(`${path}.column_settings`, b.column_settings, { max: LIMITS.tableColumnSettings });
        settings?.forEach((s, i) => {
          if (s === null) return; // a null entry keeps a column's defaults
          const p = `${path}.column_settings[${i}]`;
          const cs = this.object(p, s, true);
          if (!cs) return;
          if (cs.align !== undefined && cs.align !== 'left' && cs.align !== 'center' && cs.align !== 'right') {
            this.fail(`${p}.align`, 'must be left, center or right');
          }
          this.boolean(`${p}.is_wrapped`, cs.is_wrapped);
        });
        break;
      }
      case 'data_table': {
        this.string(`${path}.caption`, b.caption, { required: true, min: 1 });
        const rows = this.array(`${path}.rows`, b.rows, { required: true, min: 2, max: LIMITS.dataTableRows + 1 });
        let width: number | undefined;
        rows?.forEach((row, r) => {
          const cells = this.array(`${path}.rows[${r}]`, row, { required: true, min: 1, max: LIMITS.tableCells });
          if (!cells) return;
          if (width === undefined) width = cells.length;
          else if (cells.length !== width)
            this.fail(`${path}.rows[${r}]`, `must have ${width} cells like the header row`);
          cells.forEach((cell, c) => {
            if (r === 0 && isRecord(cell) && cell.type === 'rich_text')
              this.fail(`${path}.rows[0][${c}]`, 'the header row takes raw_text or raw_number cells, not rich_text');
            this.tableCell(`${path}.rows[${r}][${c}]`, cell);
          });
        });
        const chars = rows && charsOver(rows, LIMITS.dataTableChars);
        if (chars !== undefined)
          this.fail(
            `${path}.rows`,
            `its cells hold ${chars} characters; at most ${LIMITS.dataTableChars} (data_table_too_large)`,
          );
        this.intRange(`${path}.page_size`, b.page_size, 1, LIMITS.dataTablePageSize);
        this.intRange(`${path}.row_header_column_index`, b.row_header_column_index, 0, LIMITS.tableCells - 1);
        break;
      }
      case 'data_visualization': {
        this.charts += 1;
        if (this.charts > LIMITS.chartsPerMessage)
          this.fail(path, `at most ${LIMITS.chartsPerMessage} data_visualization blocks in a message`);
        this.string(`${path}.title`, b.title, { required: true, min: 1, max: LIMITS.chartTitle });
        this.chart(`${path}.chart`, b.chart);
        break;
      }
      case 'alert':
        this.text(`${path}.text`, b.text, { max: LIMITS.alertText });
        if (
          typeof b.level !== 'string'
            ? b.level !== undefined
            : !['default', 'info', 'warning', 'error', 'success'].includes(b.level)
        ) {
          this.fail(`${path}.level`, 'must be default, info, warning, error or success');
        }
        break;
      case 'video':
        this.string(`${path}.alt_text`, b.alt_text, { required: true, min: 1 });
        this.text(`${path}.title`, b.title, { max: LIMITS.videoTitle, plainOnly: true });
        this.url(`${path}.video_url`, b.video_url, true);
        this.url(`${path}.thumbnail_url`, b.thumbnail_url, true);
        break;
      default:
        break;
    }
  }

  /** A chart: a pie's 1–6 segments, or 1–6 uniquely named series whose points match the x-axis categories. */
  chart(path: string, value: unknown): void {
    const chart = this.object(path, value, true);
    if (!chart) return;
    const label = (p: string, v: unknown) => this.string(p, v, { required: true, min: 1, max: LIMITS.chartLabel });
    const positive = (p: string, v: unknown) => {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) this.fail(p, 'must be a number above 0');
    };
    if (chart.type === 'pie') {
      const segments = this.array(`${path}.segments`, chart.segments, {
        required: true,
        min: 1,
        max: LIMITS.chartSeries,
      });
      segments?.forEach((s, i) => {
        const seg = this.object(`${path}.segments[${i}]`, s, true);
        if (!seg) return;
        label(`${path}.segments[${i}].label`, seg.label);
        positive(`${path}.segments[${i}].value`, seg.value);
      });
      return;
    }
    if (chart.type !== 'bar' && chart.type !== 'area' && chart.type !== 'line') {
      this.fail(`${path}.type`, 'must be pie, bar, area or line');
      return;
    }
    const axis = this.object(`${path}.axis_config`, chart.axis_config, true);
    const categories = axis
      ? this.array(`${path}.axis_config.categories`, axis.categories, { required: true, min: 1 })
      : undefined;
    categories?.forEach((c, i) => label(`${path}.axis_config.categories[${i}]`, c));
    if (axis) {
      this.string(`${path}.axis_config.x_label`, axis.x_label, { min: 1 });
      this.string(`${path}.axis_config.y_label`, axis.y_label, { min: 1 });
    }
    const series = this.array(`${path}.series`, chart.series, { required: true, min: 1, max: LIMITS.chartSeries });
    const names = new Set<string>();
    series?.forEach((s, i) => {
      const p = `${path}.series[${i}]`;
      const one = this.object(p, s, true);
      if (!one) return;
      const name = this.string(`${p}.name`, one.name, { required: true, min: 1 });
      if (name !== undefined && names.has(name)) this.fail(`${p}.name`, `"${name}" is the name of another series`);
      if (name !== undefined) names.add(name);
      const data = this.array(`${p}.data`, one.data, { required: true, min: 1 });
      const labels = data?.map((d, j) => {
        const point = this.object(`${p}.data[${j}]`, d, true);
        if (!point) return undefined;
        if (typeof point.value !== 'number' || !Number.isFinite(point.value))
          this.fail(`${p}.data[${j}].value`, 'must be a finite number');
        return label(`${p}.data[${j}].label`, point.label);
      });
      if (
        categories &&
        labels?.every((l) => l !== undefined) &&
        JSON.stringify(labels) !== JSON.stringify(categories)
      ) {
        this.fail(`${p}.data`, 'its labels must be the x-axis categories, in order');
      }
    });
  }

  /** Secondary attachments (messages only): each a colour bar and its blocks. */
  attachments(path: string, value: unknown): void {
    const list = this.array(path, value, { max: LIMITS.messageAttachments });
    list?.forEach((a, i) => {
      const p = `${path}[${i}]`;
      const attachment = this.object(p, a, true);
      if (!attachment) return;
      const color = this.string(`${p}.color`, attachment.color, { min: 1 });
      if (color !== undefined && !ATTACHMENT_COLOR.pattern.test(color))
        this.fail(`${p}.color`, 'must be a hex colour (#RRGGBB) or good, warning or danger');
      this.string(`${p}.fallback`, attachment.fallback);
      this.string(`${p}.text`, attachment.text);
      if (attachment.blocks !== undefined) {
        this.inAttachment = true;
        this.blocks(`${p}.blocks`, attachment.blocks);
        this.inAttachment = false;
      }
    });
  }

  blocks(path: string, blocks: unknown): void {
    const list = this.array(path, blocks, { required: true });
    if (!list) return;
    const max = this.surface === 'message' ? LIMITS.messageBlocks : LIMITS.viewBlocks;
    if (list.length > max) this.fail(path, `must have at most ${max} blocks in a ${this.surface} (got ${list.length})`);
    const ids = new Set<string>();
    list.forEach((b, i) => this.block(`${path}[${i}]`, b, ids));
  }
}

/** Validates a `blocks` array for a message or a modal, as Slack does before accepting it. */
export function validateBlocks(blocks: unknown, surface: Surface = 'message', path = 'blocks'): BlocksValidation {
  const checker = new Checker(surface);
  checker.blocks(path, blocks);
  return checker.reasons.length === 0 ? { ok: true } : { ok: false, error: 'invalid_blocks', reasons: checker.reasons };
}

/** Validates a message's `blocks` and secondary `attachments` (either may be absent), as chat.postMessage does. */
export function validateMessage(message: { blocks?: unknown; attachments?: unknown }): BlocksValidation {
  const checker = new Checker('message');
  if (message.blocks !== undefined) checker.blocks('blocks', message.blocks);
  if (message.attachments !== undefined) checker.attachments('attachments', message.attachments);
  return checker.reasons.length === 0 ? { ok: true } : { ok: false, error: 'invalid_blocks', reasons: checker.reasons };
}

/**
 * Validates a view for views.open/update/push. Slack answers a bad view with
 * `invalid_arguments` and the reasons in `response_metadata.messages`.
 */
export function validateView(view: unknown): ViewValidation {
  const c = new Checker('modal');
  const v = c.object('view', view, true);
  if (v) {
    if (v.type !== 'modal') c.fail('view.type', 'must be modal');
    c.text('view.title', v.title, { max: LIMITS.viewTitle, plainOnly: true });
    c.text('view.submit', v.submit, { max: LIMITS.viewButton, plainOnly: true, required: false });
    c.text('view.close', v.close, { max: LIMITS.viewButton, plainOnly: true, required: false });
    c.string('view.private_metadata', v.private_metadata, { max: LIMITS.privateMetadata });
    c.string('view.callback_id', v.callback_id, { max: LIMITS.callbackId });
    c.string('view.external_id', v.external_id, { max: LIMITS.externalId, min: 1 });
    c.boolean('view.clear_on_close', v.clear_on_close);
    c.boolean('view.notify_on_close', v.notify_on_close);
    c.blocks('view.blocks', v.blocks);
    if (Array.isArray(v.blocks) && v.submit === undefined && v.blocks.some((b) => isRecord(b) && b.type === 'input')) {
      c.fail('view.submit', 'is required when the view has input blocks');
    }
  }
  return c.reasons.length === 0 ? { ok: true } : { ok: false, error: 'invalid_arguments', reasons: c.reasons };
}

/** Validates a Home tab view for views.publish: type `home`, at most 100 blocks of the kinds a Home tab takes. */
export function validateHomeView(view: unknown): ViewValidation {
  const c = new Checker('home');
  const v = c.object('view', view, true);
  if (v) {
    if (v.type !== 'home') c.fail('view.type', 'must be home');
    c.string('view.private_metadata', v.private_metadata, { max: LIMITS.privateMetadata });
    c.string('view.callback_id', v.callback_id, { max: LIMITS.callbackId });
    c.string('view.external_id', v.external_id, { max: LIMITS.externalId, min: 1 });
    c.blocks('view.blocks', v.blocks);
  }
  return c.reasons.length === 0 ? { ok: true } : { ok: false, error: 'invalid_arguments', reasons: c.reasons };
}

/**
 * The message text rule: text, blocks or attachments must be given (`no_text` otherwise);
 * text past 40,000 characters is truncated, as Slack does.
 */
export function validateMessageText(text: unknown, blocks?: unknown, attachments?: unknown): TextValidation {
  const hasText = typeof text === 'string' && text.length > 0;
  const hasBlocks = Array.isArray(blocks) && blocks.length > 0;
  const hasAttachments = Array.isArray(attachments) && attachments.length > 0;
  if (!hasText && !hasBlocks && !hasAttachments) return { ok: false, error: 'no_text' };
  const raw = typeof text === 'string' ? text : '';
  if (charLength(raw) <= LIMITS.messageText) return { ok: true, text: raw, truncated: false };
  const cut = Array.from(raw).slice(0, LIMITS.messageText).join('');
  return { ok: true, text: cut, truncated: true };
}
