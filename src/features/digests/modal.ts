import type { KnownBlock, PlainTextOption, View } from '@slack/types';
import { z } from 'zod';
import { REPORT_IDS, type ReportCatalog, type ReportDef, type ReportId } from '../../kernel/catalog.js';
import { isValidTimeZone } from '../../kernel/dates.js';
import type { FilterGroup } from '../../kernel/filters.js';
import { ChannelId } from '../../kernel/text.js';
import { parseTimeOfDay } from '../../kernel/time-of-day.js';
import { LIMITS, plainText } from '../../platform/slack/kit/limits.js';
import { DIGEST_TOP, parseFilterText } from './parse.js';
import { toCron, WEEKDAYS, type DigestSchedule, type ScheduleKind } from './cron.js';

export const DIGEST_MODAL = 'digest.modal';

/** Block and action ids of the digest form; each input's block_id and action_id are the same word. */
export const DIGEST_INPUTS = [
  'channel',
  'reports',
  'frequency',
  'weekday',
  'monthday',
  'cron',
  'time',
  'timezone',
  'top',
  'filters',
] as const;
export type DigestInput = (typeof DIGEST_INPUTS)[number];

export interface DigestFormValues {
  channelId?: string;
  reports: string[];
  schedule: DigestSchedule;
  timeZone: string;
  top: number;
  filters: string;
}

function option(text: string, value: string): PlainTextOption {
  return { text: plainText(text, LIMITS.optionText), value };
}

function input(
  id: DigestInput,
  label: string,
  element: Record<string, unknown>,
  extra: { optional?: boolean; hint?: string; dispatch?: boolean } = {},
): KnownBlock {
  return {
    type: 'input',
    block_id: id,
    label: plainText(label, LIMITS.inputLabel),
    optional: extra.optional ?? false,
    ...(extra.dispatch ? { dispatch_action: true } : {}),
    ...(extra.hint ? { hint: plainText(extra.hint, LIMITS.placeholder) } : {}),
    element: { action_id: id, ...element },
  } as KnownBlock;
}

const FREQUENCIES: [DigestSchedule['kind'], string][] = [
  ['daily', 'Every day'],
  ['weekdays', 'Weekdays (Mon–Fri)'],
  ['weekly', 'Weekly, on one day'],
  ['monthly', 'Monthly, on one date'],
  ['cron', 'A cron expression (experts)'],
];

/**
 * The action of the "How often" menu: the form is drawn again with the chosen schedule's
 * fields (its input block dispatches the choice; see redrawDigestForm).
 */
export const DIGEST_FREQUENCY_ACTION: DigestInput = 'frequency';

/** The add/edit form. `digestId` set: editing that digest. */
/**
 * The digest form; `from` is the channel it was opened in (absent: the Home), where the
 * person hears what became of it.
 */
export function digestModal(
  reports: readonly ReportDef[],
  values: DigestFormValues,
  digestId?: number,
  from?: string,
): View {
  const reportOptions = reports.map((d) => option(d.title, d.id));
  const frequencyOptions = FREQUENCIES.map(([kind, text]) => option(text, kind));
  const weekdayOptions = WEEKDAYS.map((d, i) => option(d, String(i)));
  const topOptions = Array.from({ length: DIGEST_TOP.max }, (_, i) => option(String(i + 1), String(i + 1)));
  const chosen = reportOptions.filter((o) => values.reports.includes(o.value!));
  const s = values.schedule;

  const blocks: KnownBlock[] = [
    input('channel', 'Post in', {
      type: 'channels_select',
      ...(values.channelId ? { initial_channel: values.channelId } : {}),
    }),
    input('reports', 'Reports', {
      type: 'multi_static_select',
      options: reportOptions,
      ...(chosen.length > 0 ? { initial_options: chosen } : {}),
    }),
    input(
      'frequency',
      'How often',
      {
        type: 'static_select',
        options: frequencyOptions,
        initial_option: frequencyOptions.find((o) => o.value === s.kind) ?? frequencyOptions[0],
      },
      { dispatch: true },
    ),
    // Only the chosen schedule's fields: picking another in "How often" draws the form again.
    ...(s.kind === 'weekly'
      ? [
          input('weekday', 'Day of the week', {
            type: 'static_select',
            options: weekdayOptions,
            initial_option: weekdayOptions[s.weekday ?? 1],
          }),
        ]
      : []),
    ...(s.kind === 'monthly'
      ? [
          input('monthday', 'Day of the month, 1–28', {
            type: 'plain_text_input',
            max_length: 2,
            initial_value: String(s.monthday ?? 1),
          }),
        ]
      : []),
    ...(s.kind === 'cron'
      ? [
          input(
            'cron',
            'Cron expression',
            {
              type: 'plain_text_input',
              max_length: 100,
              ...(s.cron ? { initial_value: s.cron } : {}),
              placeholder: plainText('0 9 * * 1', LIMITS.placeholder),
            },
            { hint: 'minute hour day-of-month month day-of-week, in the time zone below' },
          ),
        ]
      : [
          input(
            'time',
            'Time of day',
            { type: 'plain_text_input', max_length: 12, initial_value: s.time ?? '09:00' },
            { hint: '09:00, 21:30, 9am or 9:30pm, in the time zone below' },
          ),
        ]),
    input(
      'timezone',
      'Time zone',
      { type: 'plain_text_input', max_length: 64, ...(values.timeZone ? { initial_value: values.timeZone } : {}) },
      { hint: 'An IANA name, like Europe/Berlin or America/New_York' },
    ),
    input('top', 'Rows per report', {
      type: 'static_select',
      options: topOptions,
      initial_option: topOptions[Math.min(DIGEST_TOP.max - 1, Math.max(0, values.top - 1))],
    }),
    input(
      'filters',
      'Filters (as in /traffic)',
      {
        type: 'plain_text_input',
        max_length: 3000,
        ...(values.filters ? { initial_value: values.filters } : {}),
        placeholder: plainText('country:Germany page~/blog', LIMITS.placeholder),
      },
      { optional: true },
    ),
  ];
  return {
    type: 'modal',
    callback_id: DIGEST_MODAL,
    private_metadata: encodeFormId({ id: digestId, from }),
    title: plainText(digestId ? `Edit digest #${digestId}` : 'New digest', LIMITS.viewTitle),
    submit: plainText(digestId ? 'Save' : 'Create', LIMITS.viewButton),
    close: plainText('Cancel', LIMITS.viewButton),
    blocks,
  };
}

/** A form as Slack sends it back with an action: its blocks as drawn, and what was typed or picked since. */
export interface DrawnForm {
  blocks: readonly unknown[];
  private_metadata?: string;
  state?: { values?: Record<string, Record<string, StateValue>> };
}

/** A field as it stands: as typed or picked, else as the form drew it. */
function fieldOf(form: DrawnForm, id: DigestInput): StateValue {
  const typed = form.state?.values?.[id]?.[id];
  if (typed) return typed;
  const block = form.blocks.find(
    (b): b is { element?: Record<string, unknown> } =>
      typeof b === 'object' && b !== null && (b as { block_id?: unknown }).block_id === id,
  );
  const el = block?.element ?? {};
  return {
    value: typeof el.initial_value === 'string' ? el.initial_value : undefined,
    selected_option: el.initial_option as StateValue['selected_option'],
    selected_options: el.initial_options as StateValue['selected_options'],
    selected_channel: typeof el.initial_channel === 'string' ? el.initial_channel : undefined,
  };
}

const within = (text: string | null | undefined, min: number, max: number): number | undefined => {
  const n = Number(text);
  return text && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
};

/**
 * The form drawn again for the schedule `kind` picked in "How often", keeping what was
 * entered (Slack keeps an input's entry too where its block_id and action_id stay, as here);
 * undefined for a form that is not ours or a kind it does not offer.
 */
export function redrawDigestForm(reports: readonly ReportDef[], form: DrawnForm, kind: unknown): View | undefined {
  const opened = decodeFormId(form.private_metadata);
  const chosen = z.enum(KINDS).safeParse(kind);
  if (opened === null || !chosen.success) return undefined;
  const get = (id: DigestInput) => fieldOf(form, id);
  const schedule: DigestSchedule = { kind: chosen.data };
  const time = get('time').value?.trim();
  if (time) schedule.time = time;
  const weekday = within(get('weekday').selected_option?.value, 0, 6);
  if (weekday !== undefined) schedule.weekday = weekday;
  const monthday = within(get('monthday').value?.trim(), 1, 28);
  if (monthday !== undefined) schedule.monthday = monthday;
  const cron = get('cron').value?.trim();
  if (cron) schedule.cron = cron;
  const values: DigestFormValues = {
    reports: (get('reports').selected_options ?? []).flatMap((o) => (typeof o.value === 'string' ? [o.value] : [])),
    schedule,
    timeZone: get('timezone').value?.trim() ?? '',
    top: within(get('top').selected_option?.value, DIGEST_TOP.min, DIGEST_TOP.max) ?? DIGEST_TOP.default,
    filters: get('filters').value ?? '',
  };
  const channel = ChannelId.safeParse(get('channel').selected_channel);
  if (channel.success) values.channelId = channel.data;
  return digestModal(reports, values, opened.id, opened.from);
}

/** Which digest the form edits (none: a new one) and the channel it was opened in, in its private_metadata. */
export interface FormId {
  id?: number;
  from?: string;
}

export function encodeFormId(form: FormId): string {
  return JSON.stringify({ id: form.id ?? null, ...(form.from ? { from: form.from } : {}) });
}

/** The form's id; null for metadata that is not ours. */
export function decodeFormId(metadata: string | undefined): FormId | null {
  try {
    const parsed = formId.safeParse(JSON.parse(metadata || '{}'));
    if (!parsed.success) return null;
    return {
      ...(parsed.data.id ? { id: parsed.data.id } : {}),
      ...(parsed.data.from ? { from: parsed.data.from } : {}),
    };
  } catch {
    return null;
  }
}

const formId = z.strictObject({
  id: z.number().int().min(1).max(2_147_483_647).nullable().optional(),
  from: ChannelId.optional(),
});

/** What the form asks for, checked: a digest's settings but its owner and workspace. */
export interface DigestFormInput {
  channelId: string;
  reports: ReportId[];
  filters: FilterGroup[];
  topN: number;
  schedule: DigestSchedule;
  cron: string;
  timeZone: string;
}

interface StateValue {
  value?: string | null;
  selected_option?: { value?: string } | null;
  selected_options?: { value?: string }[];
  selected_channel?: string | null;
}

const KINDS = ['daily', 'weekdays', 'weekly', 'monthly', 'cron'] as const satisfies readonly ScheduleKind[];

/** Each field as Slack sends it back, with the command language's limits. A value that fails is an error beside its field. */
const digits = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,3}$/)
    .transform(Number)
    .pipe(z.number().min(min).max(max));
const FIELDS = {
  channel: ChannelId,
  reports: z
    .array(z.enum(REPORT_IDS))
    .min(1)
    .max(REPORT_IDS.length)
    .refine((ids) => new Set(ids).size === ids.length),
  frequency: z.enum(KINDS),
  weekday: digits(0, 6),
  monthday: digits(1, 28),
  top: digits(DIGEST_TOP.min, DIGEST_TOP.max),
};

/** The form's values → the digest's settings, or a message for each field that is wrong (by block id). */
export function readDigestForm(
  values: Record<string, Record<string, StateValue>>,
  catalog: ReportCatalog,
): { input: DigestFormInput } | { errors: Partial<Record<DigestInput, string>> } {
  const get = (id: DigestInput): StateValue => values[id]?.[id] ?? {};
  const errors: Partial<Record<DigestInput, string>> = {};
  const field = <T>(id: DigestInput, schema: z.ZodType<T>, value: unknown, error: string): T | undefined => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) errors[id] = error;
    return parsed.success ? parsed.data : undefined;
  };

  const channelId = field('channel', FIELDS.channel, get('channel').selected_channel, 'Pick a channel.') ?? '';
  const picked =
    field(
      'reports',
      FIELDS.reports,
      (get('reports').selected_options ?? []).map((o) => o.value),
      'Pick at least one report, each once.',
    ) ?? [];
  const reports = picked.filter((id) => Object.hasOwn(catalog, id));
  if (reports.length !== picked.length) errors.reports = 'Pick at least one report, each once.';
  const kind =
    field('frequency', FIELDS.frequency, get('frequency').selected_option?.value ?? 'daily', 'Pick how often.') ??
    'daily';
  const schedule: DigestSchedule = { kind };
  if (schedule.kind !== 'cron') {
    const typed = (get('time').value ?? '').trim();
    const time = parseTimeOfDay(typed);
    schedule.time = time.ok ? time.time.text : typed;
  }
  if (schedule.kind === 'weekly')
    schedule.weekday =
      field('weekday', FIELDS.weekday, get('weekday').selected_option?.value ?? '1', 'Pick a day of the week.') ?? 1;
  if (schedule.kind === 'monthly')
    schedule.monthday =
      field('monthday', FIELDS.monthday, get('monthday').value ?? '', 'Pick a day of the month from 1 to 28.') ?? 1;
  if (schedule.kind === 'cron') schedule.cron = (get('cron').value ?? '').trim();
  const cron = toCron(schedule);
  if (!cron.ok) {
    const where: DigestInput =
      schedule.kind === 'cron'
        ? 'cron'
        : schedule.kind === 'monthly' && /month/i.test(cron.error)
          ? 'monthday'
          : schedule.kind === 'weekly' && /week/i.test(cron.error)
            ? 'weekday'
            : 'time';
    errors[where] = cron.error.replace(/`/g, '');
  }
  const timeZone = (get('timezone').value ?? '').trim();
  if (!isValidTimeZone(timeZone))
    errors.timezone = 'Not an IANA time zone; try Europe/Berlin, America/New_York or UTC.';
  const topN =
    field(
      'top',
      FIELDS.top,
      get('top').selected_option?.value ?? String(DIGEST_TOP.default),
      `Pick ${DIGEST_TOP.min} to ${DIGEST_TOP.max} rows.`,
    ) ?? DIGEST_TOP.default;
  const filters = parseFilterText(get('filters').value ?? '', catalog);
  if (!filters.ok) errors.filters = filters.error.replace(/`/g, '').slice(0, 150);

  if (Object.keys(errors).length > 0 || !cron.ok || !filters.ok) return { errors };
  return { input: { channelId, reports, filters: filters.filters, topN, schedule, cron: cron.cron, timeZone } };
}
