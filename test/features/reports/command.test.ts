import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REPORTS } from '../../../src/kernel/catalog.js';
import type { FilterCondition } from '../../../src/kernel/filters.js';
import { helpText } from '../../../src/features/reports/help.js';
import { TRAFFIC_USAGE, parseTrafficCommand, type TrafficCommand } from '../../../src/features/reports/parse.js';
import { VISITOR_USAGE, parseVisitorCommand } from '../../../src/features/visitor/parse.js';
import { editDistance } from '../../../src/kernel/text.js';
import { decodeQuery, encodeQuery, type ReportQuery } from '../../../src/kernel/query.js';

/** The words the dispatcher hands to sub-commands (compose.ts). */
const SUBCOMMANDS = ['digest', 'digests', 'alerts', 'alert'];
const parse = (text: string): TrafficCommand => parseTrafficCommand(text, REPORTS, { subcommands: SUBCOMMANDS });

/** The query expected from the parser: defaults plus what a row names. */
function q(over: Partial<ReportQuery> & Pick<ReportQuery, 'report'>): ReportQuery {
  return { v: 1, range: 'last7d', filters: [], page: 1, top: 10, ...over };
}

const any = (object: string, value: string[], field = 'name'): FilterCondition => ({
  object,
  field,
  operator: 'is_any_of',
  value,
});
const has = (object: string, value: string, field = 'name'): FilterCondition => ({
  object,
  field,
  operator: 'contains',
  value,
});
const group = (...filters: FilterCondition[]) => ({ filters });

const OK: Array<[string, ReportQuery]> = [
  ['sources', q({ report: 'sources' })],
  ['SOURCES', q({ report: 'sources' })],
  ['referrers', q({ report: 'sources' })],
  ['sou', q({ report: 'sources' })],
  ['pag last30d', q({ report: 'pages', range: 'last30d' })],
  ['os', q({ report: 'os' })],
  ['operating', q({ report: 'os' })],
  ['visit', q({ report: 'visits' })],
  ['geo', q({ report: 'countries' })],
  ['sources 7d', q({ report: 'sources', range: 'last7d' })],
  ['sources Yesterday', q({ report: 'sources', range: 'yesterday' })],
  ['sources month', q({ report: 'sources', range: 'last30d' })],
  ['sources 2024-11-01..2024-11-28', q({ report: 'sources', range: '2024-11-01..2024-11-28' })],
  ['sources 2024-02-29', q({ report: 'sources', range: '2024-02-29' })],
  ['countries country:US,DE', q({ report: 'countries', filters: [group(any('country', ['US', 'DE']))] })],
  ['cities city:"New York"', q({ report: 'cities', filters: [group(any('city', ['New York']))] })],
  [
    'cities city:“New York”,“Los Angeles”',
    q({ report: 'cities', filters: [group(any('city', ['New York', 'Los Angeles']))] }),
  ],
  ['cities city:„Köln”', q({ report: 'cities', filters: [group(any('city', ['Köln']))] })],
  ['cities city:”New York”', q({ report: 'cities', filters: [group(any('city', ['New York']))] })],
  ['pages page~"/blog/"', q({ report: 'pages', filters: [group(has('page', '/blog/'))] })],
  ['pages page.url~/pricing', q({ report: 'pages', filters: [group(has('page', '/pricing', 'url'))] })],
  ['pages page~a,b', q({ report: 'pages', filters: [group(has('page', 'a,b'))] })],
  [
    'sources country.code:DE,AT or country.code:CH channel:Organic',
    q({
      report: 'sources',
      filters: [
        group(any('country', ['DE', 'AT'], 'code')),
        group(any('country', ['CH'], 'code'), any('channel', ['Organic'])),
      ],
    }),
  ],
  ['sources campaign:"a, b",c', q({ report: 'sources', filters: [group(any('campaign', ['a, b', 'c']))] })],
  ['sources city:" New York "', q({ report: 'sources', filters: [group(any('city', ['New York']))] })],
  [
    '  sources \t  country:US \n   by   visits  ',
    q({ report: 'sources', filters: [group(any('country', ['US']))], sort: { key: 'total_visits', dir: 'desc' } }),
  ],
  ['sources country: US', q({ report: 'sources', filters: [group(any('country', ['US']))] })],
  ['sources country:US, DE', q({ report: 'sources', filters: [group(any('country', ['US', 'DE']))] })],
  ['sources countries:US', q({ report: 'sources', filters: [group(any('country', ['US']))] })],
  ['sources Country.Code:us', q({ report: 'sources', filters: [group(any('country', ['us'], 'code'))] })],
  ['sources device.type:mobile', q({ report: 'sources', filters: [group(any('device', ['mobile'], 'type'))] })],
  ['visits visitor:abc', q({ report: 'visits', filters: [group(any('visitor', ['abc'], 'name'))] })],
  ['sources by visits', q({ report: 'sources', sort: { key: 'total_visits', dir: 'desc' } })],
  ['sources by name', q({ report: 'sources', sort: { key: 'name', dir: 'asc' } })],
  ['pages by duration asc', q({ report: 'pages', sort: { key: 'avg_duration', dir: 'asc' } })],
  ['pages by url', q({ report: 'pages', sort: { key: 'full_url', dir: 'asc' } })],
  ['sources by total_visits ASC', q({ report: 'sources', sort: { key: 'total_visits', dir: 'asc' } })],
  ['visitors by created', q({ report: 'visitors', sort: { key: 'created', dir: 'desc' } })],
  ['sources top 25', q({ report: 'sources', top: 25 })],
  ['sources top25', q({ report: 'sources', top: 25 })],
  ['sources top 100', q({ report: 'sources', top: 100 })],
  ['sources public', q({ report: 'sources', public: true })],
  ['pages page~"a &amp; b"', q({ report: 'pages', filters: [group(has('page', 'a & b'))] })],
  ['pages page~<https://x.com/blog|x.com/blog>', q({ report: 'pages', filters: [group(has('page', 'x.com/blog'))] })],
  [
    'Pages public top 50 by duration desc page~"/blog/" country:US 2024-11-01..2024-11-28',
    q({
      report: 'pages',
      range: '2024-11-01..2024-11-28',
      filters: [group(has('page', '/blog/'), any('country', ['US']))],
      sort: { key: 'avg_duration', dir: 'desc' },
      top: 50,
      public: true,
    }),
  ],
];

const ERRORS: Array<[string, RegExp]> = [
  ['vis', /^`vis` could be visitors, visits; type more of the name\.$/],
  ['c', /could be channels, campaigns, countries, cities/],
  ['sorces', /^Unknown report `sorces`\. Did you mean `sources`\?$/],
  ['cuntries', /Did you mean `countries`\?/],
  ['sourcse last7d', /Did you mean `sources`\?/],
  ['xyz', /^Unknown report `xyz`\. Reports: sources, channels, .*visits\.$/],
  ['hepl', /Did you mean `help`\?/],
  ['last7d', /^Start with a report/],
  ['country:US', /^Start with a report/],
  ['sources 2024-02-30', /^`2024-02-30` is not a real date\. Ranges: today, yesterday, last7d/],
  ['sources 2024-11-28..2024-11-01', /starts after it ends/],
  ['sources 2024-1-5', /`2024-1-5` is not a date in the form YYYY-MM-DD/],
  ['sources 8x', /Unknown range `8x`/],
  ['sources today yesterday', /^Two ranges: `today` and `yesterday`/],
  ['sources lst7d', /Don't understand `lst7d`\. Did you mean `last7d`\?/],
  ['sources county:US', /^Unknown filter `county`\. Did you mean `country`\?$/],
  ['sources planet:Mars', /^Unknown filter `planet`\. Filters: country, state, city, page/],
  ['sources country.cod:US', /^`country` has no field `cod`\. Did you mean `code`\? Fields of country: name, code\.$/],
  ['sources city.code:X', /`city` has no field `code`\. Fields of city: name\.$/],
  ['sources :US', /A filter needs an object before `:`/],
  ['sources country:', /The filter `country:` has an empty value/],
  ['sources country: by visits', /empty value/],
  ['sources city:""', /empty value/],
  ['sources page~""', /empty value/],
  ['sources country:US,,DE', /empty value/],
  ['sources country:US,', /empty value/],
  ['sources or country:US', /^`or` goes between two filters/],
  ['sources country:US or', /^`or` goes between two filters/],
  ['sources country:US or or city:X', /^`or` goes between two filters/],
  ['sources city:"New York', /^A quote is not closed: `"New York`/],
  ['sources city:“New York', /^A quote is not closed/],
  [
    'pages by unique_visitors',
    /^Can't sort pages by `unique_visitors`\..* Sort keys: visits, unique, visitors, duration, name, url/,
  ],
  ['sources by', /^`by` needs a sort key: visits, unique, visitors, duration, name/],
  ['sources by top 5', /^`by` needs a sort key/],
  ['sources by durration', /Did you mean `duration`\?/],
  ['visitors by visits', /Can't sort visitors by `visits`.*Sort keys: created, first, last, id, name/],
  ['sources by visits by name', /`by` is given twice/],
  ['sources top', /`top` needs a whole number from 1 to 100/],
  ['sources top 0', /`top` needs a whole number/],
  ['sources top 101', /`top` needs a whole number/],
  ['sources top ten', /`top` needs a whole number/],
  ['sources top 2.5', /`top` needs a whole number/],
  ['sources top -5', /`top` needs a whole number/],
  ['sources top 5 top 6', /`top` is given twice/],
  ['sources desc', /Put `desc` after a sort key, e\.g\. `by visits desc`/],
  ['sources country', /`country` needs a value/],
  ['sources pages', /One report at a time/],
  ['sources "public"', /Don't understand `public`/],
  ['sources https://example.com', /Unknown filter `https`/],
];

describe('parseTrafficCommand: queries', () => {
  it.each(OK)('%j', (text, expected) => {
    expect(parse(text)).toEqual({ kind: 'report', query: expected });
  });
});

describe('ranges and reports as people say them', () => {
  it('`last 7 days` (and 30, 90) is last7d; `src` is sources; a near miss suggests the canonical word', () => {
    expect(parse('sources last 7 days')).toMatchObject({
      kind: 'report',
      query: { report: 'sources', range: 'last7d' },
    });
    expect(parse('pages last 30 days top 5')).toMatchObject({
      kind: 'report',
      query: { report: 'pages', range: 'last30d', top: 5 },
    });
    expect(parse('src last 90 day')).toMatchObject({ kind: 'report', query: { report: 'sources', range: 'last90d' } });
    expect(parse('sources last7x')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('Did you mean `last7d`?'),
    });
    expect(parse('sources last 400 days')).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('from 2 to 365 days'),
    });
  });
});

describe('parseTrafficCommand: errors', () => {
  it.each(ERRORS)('%j', (text, message) => {
    const r = parse(text);
    expect(r).toMatchObject({ kind: 'error', usage: TRAFFIC_USAGE });
    if (r.kind !== 'error') return;
    expect(r.message).toMatch(message);
    expect(r.message).not.toMatch(/\n/);
  });

  it('does not suggest anything for a word that is not close', () => {
    const r = parse('zzzzzz');
    expect(r.kind === 'error' && r.message).not.toMatch(/Did you mean/);
  });

  it('quotes long or hostile input safely', () => {
    const long = parse(`sources ${'x'.repeat(300)}`);
    expect(long.kind).toBe('error');
    if (long.kind !== 'error') return;
    const quoted = /`([^`]*)`/.exec(long.message)?.[1] ?? '';
    expect(Array.from(quoted).length).toBeLessThanOrEqual(40);
    expect(long.message.length).toBeLessThan(200);

    const hostile = parse('sources city:"a\nb" `rm -rf` x');
    expect(hostile.kind === 'error' && hostile.message).toMatch(/Don't understand `'rm`/);
  });
});

describe('parseTrafficCommand: sub-commands and options', () => {
  it.each([
    ['', { kind: 'help' }],
    ['   ', { kind: 'help' }],
    ['help', { kind: 'help' }],
    ['HELP filters', { kind: 'help', topic: 'filters' }],
    ['? ranges', { kind: 'help', topic: 'ranges' }],
    [
      'digest add sources "Monday 09:00" #growth',
      { kind: 'sub', name: 'digest', args: ['add', 'sources', 'Monday 09:00', '#growth'] },
    ],
    ['digests', { kind: 'sub', name: 'digests', args: [] }],
    ['alerts on', { kind: 'sub', name: 'alerts', args: ['on'] }],
    ['alert mute  “abc”', { kind: 'sub', name: 'alert', args: ['mute', 'abc'] }],
  ])('%j', (text, expected) => {
    const parsed = parse(text);
    expect(parsed.kind === 'sub' ? { ...parsed, args: parsed.args.map((t) => t.text) } : parsed).toEqual(expected);
  });

  it('uses the channel defaults when given, and ignores bad ones', () => {
    const opts = { defaultRange: 'mtd', defaultTop: 20 };
    expect(parseTrafficCommand('sources', REPORTS, opts)).toEqual({
      kind: 'report',
      query: q({ report: 'sources', range: 'mtd', top: 20 }),
    });
    expect(parseTrafficCommand('sources today top 5', REPORTS, opts)).toEqual({
      kind: 'report',
      query: q({ report: 'sources', range: 'today', top: 5 }),
    });
    expect(parseTrafficCommand('sources', REPORTS, { defaultRange: 'soon', defaultTop: 1000 })).toEqual({
      kind: 'report',
      query: q({ report: 'sources' }),
    });
  });

  it('caps the number of filters', () => {
    const many = `sources ${Array.from({ length: 51 }, (_, i) => `city:c${i}`).join(' ')}`;
    expect(parse(many)).toMatchObject({ kind: 'error', message: expect.stringMatching(/Too many filters/) });
  });
});

describe('editDistance', () => {
  it.each([
    ['sources', 'sources', 0],
    ['sorces', 'sources', 1],
    ['sourcse', 'sources', 1],
    ['ab', 'ba', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ])('%s ↔ %s = %d', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('parseTrafficCommand: properties', () => {
  function check(text: string): boolean {
    const r = parse(text);
    expect(['report', 'error', 'help', 'sub']).toContain(r.kind);
    if (r.kind === 'error') {
      expect(typeof r.message).toBe('string');
      expect(r.message).not.toMatch(/[\r\n]/);
      return false;
    }
    if (r.kind !== 'report') return false;
    expect(decodeQuery(encodeQuery(r.query), REPORTS)).toEqual(r.query);
    return true;
  }

  it('never throws on arbitrary text up to 500 characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500, unit: 'grapheme' }), (text) => {
        check(text);
        check(`sources ${text}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on grammar-ish text, and every query round-trips through the codec', () => {
    const chars = fc.constantFrom(...'sourcepagcityd:~,."“”„ or by top 12-.ab\tDE'.split(''));
    const words = fc.constantFrom(
      'sources',
      'pag',
      'c',
      'geo',
      'visits',
      'today',
      '7d',
      '2024-11-01..2024-11-28',
      '2024-02-30',
      'country:US,DE',
      'city:"New York"',
      'city:“São Paulo”,Berlin',
      'page~/blog/',
      'page.url~"a b"',
      'country.code:',
      'campaign:"a, b",c',
      'os:',
      'x:y',
      'or',
      'by',
      'visits',
      'duration',
      'name',
      'asc',
      'desc',
      'top',
      '5',
      '101',
      'public',
      '"',
      '“',
      ',',
    );
    let queries = 0;
    fc.assert(
      fc.property(
        fc.constantFrom('sources', 'pag', 'geo', 'visits', 'c'),
        fc.array(words, { maxLength: 12 }),
        fc.string({ maxLength: 60, unit: chars }),
        (report, list, noise) => {
          if (check(list.join(' '))) queries++;
          if (check(`${report} ${list.join('  ')}`)) queries++;
          if (check(`${report} ${list.join(' ')} ${noise}`)) queries++;
          check(noise);
        },
      ),
      { numRuns: 1500 },
    );
    // The round-trip assertion above must have run on real queries, not only errors.
    expect(queries).toBeGreaterThan(100);
  });
});

describe('parseVisitorCommand', () => {
  it.each([
    ['abc123', { kind: 'visitor', visitorId: 'abc123' }],
    ['  0f1e-2d3c_4b.5a:69  ', { kind: 'visitor', visitorId: '0f1e-2d3c_4b.5a:69' }],
    ['abc visit v-1', { kind: 'visitor', visitorId: 'abc', visitId: 'v-1' }],
    ['abc VISIT v-1', { kind: 'visitor', visitorId: 'abc', visitId: 'v-1' }],
    ['`abc`', { kind: 'visitor', visitorId: 'abc' }],
    ['“abc” visit "v1"', { kind: 'visitor', visitorId: 'abc', visitId: 'v1' }],
    ['a'.repeat(128), { kind: 'visitor', visitorId: 'a'.repeat(128) }],
  ])('%j', (text, expected) => {
    expect(parseVisitorCommand(text)).toEqual(expected);
  });

  it.each([
    ['', /Give a visitor id/],
    ['../etc/passwd', /^`\.\.\/etc\/passwd` is not a valid visitor id/],
    ['.hidden', /not a valid visitor id/],
    ['a..b', /not a valid visitor id/],
    ['a/b', /not a valid visitor id/],
    ['a%2e%2e', /not a valid visitor id/],
    ['a'.repeat(129), /not a valid visitor id/],
    ['abc visit', /`visit` needs a visit id/],
    ['abc visit ..', /not a valid visit id/],
    ['abc foo', /Don't understand `foo` after the visitor id/],
    ['abc visit v1 extra', /Don't understand `extra` at the end/],
    ['<!channel>', /not a valid visitor id/],
  ])('%j → error', (text, message) => {
    const r = parseVisitorCommand(text);
    expect(r).toMatchObject({ kind: 'error', usage: VISITOR_USAGE });
    if (r.kind === 'error') expect(r.message).toMatch(message);
  });

  it('quotes a long bad id cut to 40 characters', () => {
    const r = parseVisitorCommand(`${'x'.repeat(100)}/`);
    expect(r.kind).toBe('error');
    if (r.kind !== 'error') return;
    const quoted = /`([^`]*)`/.exec(r.message)?.[1] ?? '';
    expect(Array.from(quoted)).toHaveLength(40);
    expect(quoted.endsWith('…')).toBe(true);
  });
});

describe('helpText', () => {
  it('gives usage and pointers by default, in plain text', () => {
    const lines = helpText(undefined, REPORTS);
    expect(lines[0]).toBe(`Usage: ${TRAFFIC_USAGE}`);
    expect(lines.join('\n')).toMatch(/Reports: sources, channels/);
    for (const topic of [undefined, 'reports', 'ranges', 'filters', 'sort', 'examples', 'pages', 'nope']) {
      for (const line of helpText(topic, REPORTS)) expect(line).not.toMatch(/[`*]/);
    }
  });

  it('answers topics, their aliases and reports', () => {
    expect(helpText('filters', REPORTS).join('\n')).toMatch(/country \(name, code\).*device \(name, type\)/s);
    expect(helpText('filter', REPORTS)).toEqual(helpText('filters', REPORTS));
    expect(helpText('ranges', REPORTS).join('\n')).toMatch(/lastmonth: Last month/);
    expect(helpText('sort', REPORTS).join('\n')).toMatch(/pages: .*avg_duration/);
    expect(helpText('reports', REPORTS)).toHaveLength(Object.keys(REPORTS).length + 1);
    expect(helpText('pag', REPORTS)[0]).toMatch(/^pages: Pages/);
  });

  it('every example in the help parses', () => {
    for (const line of helpText('examples', REPORTS)) {
      expect(parse(line.replace(/^\/traffic\s*/, ''))).toMatchObject({ kind: 'report' });
    }
  });

  it('says when a topic is unknown', () => {
    expect(helpText('wat', REPORTS)[0]).toMatch(/^No help on "wat"\. Topics:/);
  });
});
