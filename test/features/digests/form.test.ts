import { describe, expect, it } from 'vitest';
import { decodeFormId, encodeFormId, readDigestForm, type DigestInput } from '../../../src/features/digests/modal.js';
import { REPORTS } from '../../../src/kernel/catalog.js';

type Values = Partial<Record<DigestInput, string | string[]>>;

/** Slack's view_submission state for the digest form: each input's block_id and action_id are its name. */
function state(values: Values) {
  const out: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const [id, value] of Object.entries(values)) {
    const element =
      id === 'channel'
        ? { selected_channel: value }
        : id === 'reports'
          ? { selected_options: (value as string[]).map((v) => ({ value: v })) }
          : ['frequency', 'weekday', 'top'].includes(id)
            ? { selected_option: { value } }
            : { value };
    out[id] = { [id]: element };
  }
  return out as Parameters<typeof readDigestForm>[0];
}

const GOOD: Values = {
  channel: 'C_GROWTH',
  reports: ['sources', 'pages'],
  frequency: 'weekly',
  weekday: '1',
  time: '09:00',
  timezone: 'Europe/Berlin',
  top: '5',
  filters: 'country:Germany',
};

describe('readDigestForm', () => {
  it('reads a good form into the digest settings', () => {
    expect(readDigestForm(state(GOOD), REPORTS)).toEqual({
      input: {
        channelId: 'C_GROWTH',
        reports: ['sources', 'pages'],
        filters: [{ filters: [{ object: 'country', field: 'name', operator: 'is_any_of', value: ['Germany'] }] }],
        topN: 5,
        schedule: { kind: 'weekly', time: '09:00', weekday: 1 },
        cron: '0 9 * * 1',
        timeZone: 'Europe/Berlin',
      },
    });
  });

  it.each<[string, Values, DigestInput, RegExp]>([
    ['no channel', { channel: '' }, 'channel', /Pick a channel/],
    ['a channel that is not a channel id', { channel: 'C1> <!channel' }, 'channel', /Pick a channel/],
    ['no report', { reports: [] }, 'reports', /at least one report/],
    ['an unknown report', { reports: ['sources', 'passwords'] }, 'reports', /at least one report/],
    ['a report twice', { reports: ['sources', 'sources'] }, 'reports', /each once/],
    ['an unknown frequency', { frequency: 'hourly' }, 'frequency', /how often/],
    ['a bad time', { time: '25:00' }, 'time', /hours go from 00 to 23/],
    ['a weekday out of range', { weekday: '9' }, 'weekday', /day of the week/],
    ['a weekday that is no number', { weekday: 'x' }, 'weekday', /day of the week/],
    ['sixty copies of one report', { reports: Array.from({ length: 60 }, () => 'sources') }, 'reports', /each once/],
    ['a top of 1e1', { top: '1e1' }, 'top', /1 to 10 rows/],
    ['a monthly date past 28', { frequency: 'monthly', monthday: '31' }, 'monthday', /1 to 28/],
    ['a monthly date that is no number', { frequency: 'monthly', monthday: 'x' }, 'monthday', /1 to 28/],
    ['a cron that does not parse', { frequency: 'cron', cron: '61 * * * *' }, 'cron', /does not parse/],
    ['a cron with four fields', { frequency: 'cron', cron: '0 9 * *' }, 'cron', /five fields/],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, 'timezone', /IANA/],
    ['top 100000', { top: '100000' }, 'top', /1 to 10 rows/],
    ['top -5', { top: '-5' }, 'top', /1 to 10 rows/],
    ['top abc', { top: 'abc' }, 'top', /1 to 10 rows/],
    ['a filter that does not parse', { filters: 'bogus:1' }, 'filters', /Unknown filter bogus/],
  ])('%s: the error is shown beside %s', (_what, change, field, message) => {
    const read = readDigestForm(state({ ...GOOD, ...change }), REPORTS);
    expect(read).toEqual({ errors: { [field]: expect.stringMatching(message) } });
  });

  it('every field wrong at once: each error beside its own field', () => {
    const read = readDigestForm(
      state({
        channel: '',
        reports: [],
        frequency: 'daily',
        time: 'teatime',
        timezone: 'Nowhere',
        top: '0',
        filters: 'country:',
      }),
      REPORTS,
    );
    expect(Object.keys('errors' in read ? read.errors : {}).sort()).toEqual([
      'channel',
      'filters',
      'reports',
      'time',
      'timezone',
      'top',
    ]);
  });
});

describe('the form id in private_metadata', () => {
  it('round-trips a digest id and a new form', () => {
    expect(decodeFormId(encodeFormId({ id: 42 }))).toEqual({ id: 42 });
    expect(decodeFormId(encodeFormId({}))).toEqual({});
    expect(decodeFormId(encodeFormId({ id: 42, from: 'C_GENERAL' }))).toEqual({ id: 42, from: 'C_GENERAL' });
  });

  it.each([
    'not json',
    '{"id":"7"}',
    '{"id":-1}',
    '{"id":1.5}',
    '{"id":null,"from":"#general"}',
    '{"id":null,"from":"<#C1>"}',
  ])('refuses %s', (metadata) => {
    expect(decodeFormId(metadata)).toBeNull();
  });
});
