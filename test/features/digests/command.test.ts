import { describe, expect, it } from 'vitest';
import { REPORTS } from '../../../src/kernel/catalog.js';
import type { FilterGroup } from '../../../src/kernel/filters.js';
import { parseTrafficCommand } from '../../../src/features/reports/parse.js';
import {
  DIGEST_USAGE,
  parseDigestCommand,
  parseFilterText,
  type DigestCommand,
} from '../../../src/features/digests/parse.js';
import { filtersToText } from '../../../src/kernel/filters.js';

/** `/traffic digest <text>` as the listener gets it: through the /traffic tokenizer first. */
function digest(text: string): DigestCommand {
  const parsed = parseTrafficCommand(`digest ${text}`, REPORTS, { subcommands: ['digest'] });
  if (parsed.kind !== 'sub') throw new Error(`not a digest command: ${JSON.stringify(parsed)}`);
  return parseDigestCommand(parsed.args, REPORTS);
}

const is = (object: string, ...value: string[]) => ({ object, field: 'name', operator: 'is_any_of' as const, value });
const contains = (object: string, field: string, value: string) => ({
  object,
  field,
  operator: 'contains' as const,
  value,
});

describe('digest add, one line', () => {
  it.each<[string, Partial<Extract<DigestCommand, { kind: 'add' }>>]>([
    [
      'add #growth daily 09:00 sources',
      {
        channel: { name: 'growth' },
        schedule: { kind: 'daily', time: '09:00' },
        cron: '0 9 * * *',
        reports: ['sources'],
        filters: [],
        top: 5,
        timeZone: undefined,
      },
    ],
    [
      'add <#C123|growth> weekdays 9:30 Europe/Berlin sources pages geo',
      {
        channel: { id: 'C123', name: 'growth' },
        schedule: { kind: 'weekdays', time: '09:30' },
        cron: '30 9 * * 1-5',
        timeZone: 'Europe/Berlin',
        reports: ['sources', 'pages', 'countries'],
      },
    ],
    [
      'add <#C0ABC> mondays 08:00 sources',
      {
        channel: { id: 'C0ABC', name: undefined },
        schedule: { kind: 'weekly', weekday: 1, time: '08:00' },
        cron: '0 8 * * 1',
      },
    ],
    ['add monday 09:00 sources', { schedule: { kind: 'weekly', weekday: 1, time: '09:00' }, cron: '0 9 * * 1' }],
    ['add Friday 17:00 sources', { schedule: { kind: 'weekly', weekday: 5, time: '17:00' }, cron: '0 17 * * 5' }],
    ['add sun 10:00 sources', { schedule: { kind: 'weekly', weekday: 0, time: '10:00' }, cron: '0 10 * * 0' }],
    [
      'add tue 07:00 UTC os',
      { schedule: { kind: 'weekly', weekday: 2, time: '07:00' }, timeZone: 'UTC', reports: ['os'] },
    ],
    ['add weekly monday 09:00 sources', { schedule: { kind: 'weekly', weekday: 1, time: '09:00' }, cron: '0 9 * * 1' }],
    ['add weekly sat 09:00 sources', { schedule: { kind: 'weekly', weekday: 6, time: '09:00' }, cron: '0 9 * * 6' }],
    [
      'add monthly 1 09:00 countries',
      { schedule: { kind: 'monthly', monthday: 1, time: '09:00' }, cron: '0 9 1 * *', reports: ['countries'] },
    ],
    [
      'add monthly 28 23:59 countries',
      { schedule: { kind: 'monthly', monthday: 28, time: '23:59' }, cron: '59 23 28 * *' },
    ],
    [
      'add cron "0 9 * * 1" America/New_York sources',
      { schedule: { kind: 'cron', cron: '0 9 * * 1' }, cron: '0 9 * * 1', timeZone: 'America/New_York' },
    ],
    [
      'add cron “*/15 9-17 * * 1-5” utm',
      { schedule: { kind: 'cron', cron: '*/15 9-17 * * 1-5' }, cron: '*/15 9-17 * * 1-5', reports: ['campaigns'] },
    ],
    // Order does not matter, and reports may be aliases or prefixes; repeats count once.
    [
      'add sources pages #growth 09:00 daily',
      { channel: { name: 'growth' }, cron: '0 9 * * *', reports: ['sources', 'pages'] },
    ],
    ['add daily 09:00 referrers urls geo sou source', { reports: ['sources', 'pages', 'countries'] }],
    ['add daily 09:00 sources top 3', { top: 3 }],
    ['add daily 09:00 sources top 10', { top: 10 }],
    ['add daily 09:00 sources top 1', { top: 1 }],
    ['ADD DAILY 09:00 SOURCES', { schedule: { kind: 'daily', time: '09:00' }, reports: ['sources'] }],
  ])('%s', (text, expected) => {
    const result = digest(text);
    expect(result.kind).toBe('add');
    expect(result).toMatchObject(expected);
  });

  it('gives the whole command back, nothing more', () => {
    expect(digest('add <#C123|growth> weekly monday 09:00 Europe/Berlin sources pages country:Germany top 7')).toEqual({
      kind: 'add',
      channel: { id: 'C123', name: 'growth' },
      schedule: { kind: 'weekly', weekday: 1, time: '09:00' },
      cron: '0 9 * * 1',
      timeZone: 'Europe/Berlin',
      reports: ['sources', 'pages'],
      filters: [{ filters: [is('country', 'Germany')] }],
      top: 7,
    });
  });

  it.each<[string, FilterGroup[]]>([
    ['country:Germany', [{ filters: [is('country', 'Germany')] }]],
    ['country:"United States"', [{ filters: [is('country', 'United States')] }]],
    ['city:"Washington, D.C."', [{ filters: [is('city', 'Washington, D.C.')] }]],
    ['country:"United States",Germany', [{ filters: [is('country', 'United States', 'Germany')] }]],
    ['country:US,"New Zealand"', [{ filters: [is('country', 'US', 'New Zealand')] }]],
    ['page~"/blog post"', [{ filters: [contains('page', 'name', '/blog post')] }]],
    ['page.url~/pricing', [{ filters: [contains('page', 'url', '/pricing')] }]],
    [
      'country:"United States" page~/blog or device:Mobile',
      [
        { filters: [is('country', 'United States'), contains('page', 'name', '/blog')] },
        { filters: [is('device', 'Mobile')] },
      ],
    ],
    [
      'country.code:DE,AT or country.code:CH',
      [
        { filters: [{ object: 'country', field: 'code', operator: 'is_any_of', value: ['DE', 'AT'] }] },
        { filters: [{ object: 'country', field: 'code', operator: 'is_any_of', value: ['CH'] }] },
      ],
    ],
  ])('filters: %s', (filters, expected) => {
    const result = digest(`add daily 09:00 sources ${filters} top 3`);
    expect(result).toMatchObject({ kind: 'add', reports: ['sources'], top: 3, filters: expected });
  });

  it('a bare `add` opens the form', () => {
    expect(digest('add')).toEqual({ kind: 'open-form' });
  });
});

describe('digest add, what is missing or wrong', () => {
  it.each<[string, string, RegExp]>([
    ['no schedule', 'add sources 09:00', /How often\?.*daily.*weekdays.*monthly 1.*cron/],
    ['no time', 'add daily sources', /At what time\?.*HH:MM.*09:00/],
    ['no time for a weekday', 'add monday sources', /At what time\?/],
    ['no report', 'add daily 09:00', /Which reports\?.*sources pages countries/],
    ['no report, only a channel', 'add #growth weekly monday 09:00', /Which reports\?/],
    ['a bad time zone', 'add daily 09:00 Mars/Olympus sources', /Unknown time zone `Mars\/Olympus`.*Europe\/Berlin/],
    ['a bad hour', 'add daily 25:00 sources', /`25:00` is not a time of day: hours go from 00 to 23/],
    ['top above 10', 'add daily 09:00 sources top 11', /`top` takes a number from 1 to 10/],
    ['top 0', 'add daily 09:00 sources top 0', /`top` takes a number from 1 to 10/],
    ['top a word', 'add daily 09:00 sources top x', /`top` takes a number from 1 to 10/],
    ['top with nothing', 'add daily 09:00 sources top', /`top` takes a number from 1 to 10/],
    [
      'an unknown word',
      'add daily 09:00 sources fortnightly',
      /`fortnightly` is not a report, a schedule, a time or a time zone/,
    ],
    ['an ambiguous prefix', 'add daily 09:00 s', /`s` is not a report/],
    ['weekly without a day', 'add weekly 09:00 sources', /Weekly on which day\?.*weekly monday/],
    ['monthly 29', 'add monthly 29 09:00 sources', /1 to 28.*monthly 1/],
    ['monthly without a day', 'add monthly 09:00 sources', /Monthly on which day\?/],
    ['cron with 4 fields', 'add cron "0 9 * *" sources', /five fields/],
    ['cron with 6 fields', 'add cron "0 0 9 * * 1" sources', /five fields/],
    ['garbage cron', 'add cron "x y z a b" sources', /does not parse/],
    ['an unknown filter', 'add daily 09:00 sources bogus:1', /Unknown filter `bogus`/],
    ['a dangling or', 'add daily 09:00 sources country:US or', /`or` goes between two filters/],
    ['an empty filter', 'add daily 09:00 sources country:', /empty value/],
  ])('%s: %s', (_name, text, message) => {
    const result = digest(text);
    expect(result.kind).toBe('error');
    if (result.kind !== 'error') return;
    expect(result.message).toMatch(message);
    expect(result.usage).toBe(DIGEST_USAGE);
  });

  it('an unclosed quote is answered by the tokenizer before the digest parser', () => {
    expect(parseTrafficCommand('digest add daily 09:00 sources country:"United', REPORTS)).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/quote is not closed/),
    });
  });
});

describe('digest list, preview, pause, resume, edit, remove', () => {
  it.each<[string, DigestCommand]>([
    ['list', { kind: 'list', all: false }],
    ['LIST', { kind: 'list', all: false }],
    ['list all', { kind: 'list', all: true }],
    ['list ALL', { kind: 'list', all: true }],
    ['list mine', { kind: 'list', all: false }],
    ['preview 3', { kind: 'preview', id: 3 }],
    ['pause #4', { kind: 'pause', id: 4 }],
    ['resume 5', { kind: 'resume', id: 5 }],
    ['edit 6', { kind: 'edit', id: 6 }],
    ['remove 7', { kind: 'remove', id: 7 }],
    ['delete 8', { kind: 'remove', id: 8 }],
    ['Remove 12', { kind: 'remove', id: 12 }],
    ['DELETE 9', { kind: 'remove', id: 9 }],
    ['Pause 10', { kind: 'pause', id: 10 }],
  ])('%s', (text, expected) => {
    expect(digest(text)).toEqual(expected);
  });

  it.each(['preview', 'pause', 'resume', 'edit', 'remove', 'delete'])(
    '%s without an id asks which digest, with an example',
    (verb) => {
      for (const text of [verb, `${verb} x`, `${verb} 0`, `${verb} -2`, `${verb} 1.5`]) {
        const result = digest(text);
        expect(result).toMatchObject({ kind: 'error', usage: DIGEST_USAGE });
        if (result.kind === 'error') expect(result.message).toContain(`\`/traffic digest ${verb} 3\``);
      }
    },
  );

  it('nothing after digest, or an unknown verb, says so', () => {
    expect(digest('')).toMatchObject({ kind: 'error', message: expect.stringMatching(/what to do/) });
    expect(digest('frobnicate 3')).toMatchObject({ kind: 'error', message: 'Unknown digest command `frobnicate`.' });
  });
});

describe('filtersToText and parseFilterText', () => {
  const cases: Array<[string, FilterGroup[]]> = [
    ['none', []],
    ['one value', [{ filters: [is('country', 'Germany')] }]],
    ['a value with a space', [{ filters: [is('city', 'New York')] }]],
    ['a value with a comma', [{ filters: [is('city', 'Washington, D.C.')] }]],
    ['several values', [{ filters: [is('country', 'United States', 'Germany', 'New Zealand')] }]],
    [
      'a field other than name',
      [{ filters: [{ object: 'country', field: 'code', operator: 'is_any_of', value: ['DE', 'AT'] }] }],
    ],
    ['contains', [{ filters: [contains('page', 'url', '/blog post'), is('device', 'Mobile')] }]],
    [
      'groups joined by or',
      [
        { filters: [is('country', 'United States'), contains('page', 'name', '/pricing')] },
        { filters: [is('source', 'Google')] },
        { filters: [is('browser', 'Chrome', 'Firefox')] },
      ],
    ],
  ];

  it.each(cases)('round trip: %s', (_name, groups) => {
    const text = filtersToText(groups);
    expect(parseFilterText(text, REPORTS)).toEqual({ ok: true, filters: groups });
  });

  it('writes the /traffic filter language', () => {
    expect(
      filtersToText([
        { filters: [is('country', 'United States', 'Germany'), contains('page', 'url', '/blog')] },
        { filters: [is('city', 'Washington, D.C.')] },
      ]),
    ).toBe('country:"United States",Germany page.url~/blog or city:"Washington, D.C."');
  });

  it('leaves out empty groups', () => {
    expect(filtersToText([{ filters: [] }, { filters: [is('country', 'Germany')] }, { filters: [] }])).toBe(
      'country:Germany',
    );
  });

  it('empty text is no filters; a bad filter is an error with the /traffic message', () => {
    expect(parseFilterText('   ', REPORTS)).toEqual({ ok: true, filters: [] });
    expect(parseFilterText('bogus:1', REPORTS)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Unknown filter `bogus`/),
    });
    expect(parseFilterText('country:', REPORTS)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/empty value/),
    });
  });

  it('what a digest was added with comes back the same through the edit form', () => {
    const added = digest(
      'add daily 09:00 sources country:"United States",Germany page~"/blog post" or city:"Washington, D.C."',
    );
    if (added.kind !== 'add') throw new Error(JSON.stringify(added));
    expect(parseFilterText(filtersToText(added.filters), REPORTS)).toEqual({ ok: true, filters: added.filters });
  });
});
