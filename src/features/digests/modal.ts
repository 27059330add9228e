import type { KnownBlock, PlainTextOption, View } from '@slack/types';
import type { ReportDef } from '../../kernel/catalog.js';
import { WEEKDAYS, type DigestSchedule } from './schedule.js';
import { LIMITS, plainText } from '../../platform/slack/kit/limits.js';

export const DIGEST_MODAL = 'digest.modal';

/** Block and action ids of the digest form; each input's block_id and action_id are the same word. */
export const DIGEST_INPUTS = ['channel', 'reports', 'frequency', 'weekday', 'monthday', 'cron', 'time', 'timezone', 'top', 'filters'] as const;
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

function input(id: DigestInput, label: string, element: Record<string, unknown>, extra: { optional?: boolean; hint?: string } = {}): KnownBlock {
  return {
    type: 'input',
    block_id: id,
    label: plainText(label, LIMITS.inputLabel),
    optional: extra.optional ?? false,
    ...(extra.hint ? { hint: plainText(extra.hint, LIMITS.placeholder) } : {}),
    element: { action_id: id, ...element },
  } as KnownBlock;
}

const FREQUENCIES: [DigestSchedule['kind'], string][] = [
  ['daily', 'Every day'],
  ['weekdays', 'Weekdays (Mon–Fri)'],
  ['weekly', 'Weekly, on the day below'],
  ['monthly', 'Monthly, on the date below'],
  ['cron', 'A cron expression (experts)'],
];

/** The add/edit form. `digestId` set: editing that digest. */
export function digestModal(reports: readonly ReportDef[], values: DigestFormValues, digestId?: number): View {
  const reportOptions = reports.map((d) => option(d.title, d.id));
  const frequencyOptions = FREQUENCIES.map(([kind, text]) => option(text, kind));
  const weekdayOptions = WEEKDAYS.map((d, i) => option(d, String(i)));
  const topOptions = Array.from({ length: 10 }, (_, i) => option(String(i + 1), String(i + 1)));
  const chosen = reportOptions.filter((o) => values.reports.includes(o.value!));
  const s = values.schedule;

  const blocks: KnownBlock[] = [
    input('channel', 'Post in', { type: 'channels_select', ...(values.channelId ? { initial_channel: values.channelId } : {}) }),
    input('reports', 'Reports', {
      type: 'multi_static_select',
      options: reportOptions,
      ...(chosen.length > 0 ? { initial_options: chosen } : {}),
    }),
    input('frequency', 'How often', {
      type: 'static_select',
      options: frequencyOptions,
      initial_option: frequencyOptions.find((o) => o.value === s.kind) ?? frequencyOptions[0],
    }),
    input('weekday', 'Day of the week (weekly)', {
      type: 'static_select',
      options: weekdayOptions,
      initial_option: weekdayOptions[s.weekday ?? 1],
    }, { optional: true }),
    input('monthday', 'Day of the month, 1–28 (monthly)', { type: 'plain_text_input', max_length: 2, initial_value: String(s.monthday ?? 1) }, { optional: true }),
    input('cron', 'Cron expression (cron)', { type: 'plain_text_input', max_length: 100, ...(s.cron ? { initial_value: s.cron } : {}), placeholder: plainText('0 9 * * 1', LIMITS.placeholder) }, { optional: true, hint: 'minute hour day-of-month month day-of-week, in the time zone below' }),
    input('time', 'Time of day (HH:MM, 24-hour)', { type: 'plain_text_input', max_length: 5, initial_value: s.time ?? '09:00' }),
    input('timezone', 'Time zone', { type: 'plain_text_input', max_length: 64, initial_value: values.timeZone }, { hint: 'An IANA name, like Europe/Berlin or America/New_York' }),
    input('top', 'Rows per report', { type: 'static_select', options: topOptions, initial_option: topOptions[Math.min(9, Math.max(0, values.top - 1))] }),
    input('filters', 'Filters (as in /traffic)', { type: 'plain_text_input', max_length: 3000, ...(values.filters ? { initial_value: values.filters } : {}), placeholder: plainText('country:Germany page~/blog', LIMITS.placeholder) }, { optional: true }),
  ];
  return {
    type: 'modal',
    callback_id: DIGEST_MODAL,
    private_metadata: JSON.stringify({ id: digestId ?? null }),
    title: plainText(digestId ? `Edit digest #${digestId}` : 'New digest', LIMITS.modalTitle),
    submit: plainText(digestId ? 'Save' : 'Create', LIMITS.modalButton),
    close: plainText('Cancel', LIMITS.modalButton),
    blocks,
  };
}
