import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REPORTS } from '../../src/kernel/catalog.js';
import { MAX_FILTERS, type FilterCondition } from '../../src/kernel/filters.js';
import { parseTrafficCommand } from '../../src/features/reports/parse.js';
import {
  decodeQuery,
  encodeQuery,
  newQuery,
  toMarketingRequest,
  withFilter,
  withPage,
  withRange,
  withReport,
  withSort,
  withoutFilter,
  type ReportQuery,
} from '../../src/kernel/query.js';

const RANGE = { startDate: '2024-11-01', endDate: '2024-11-28' };

function parsed(text: string): ReportQuery {
  const r = parseTrafficCommand(text, REPORTS);
  if (r.kind !== 'report') throw new Error(`expected a query from ${text}: ${JSON.stringify(r)}`);
  return r.query;
}

const US: FilterCondition = { object: 'country', field: 'code', operator: 'is_any_of', value: ['US'] };
const BLOG: FilterCondition = { object: 'page', field: 'name', operator: 'contains', value: '/blog' };

describe('toMarketingRequest', () => {
  it('uses each report’s default sort, descending, when none is given', () => {
    expect(toMarketingRequest(parsed('sources'), REPORTS, RANGE)).toEqual({
      startDate: '2024-11-01',
      endDate: '2024-11-28',
      filterGroups: [],
      page: 1,
      limit: 10,
      sort: { key: 'total_visits', value: -1 },
    });
    expect(toMarketingRequest(parsed('pages'), REPORTS, RANGE).sort).toEqual({ key: 'total', value: -1 });
    expect(toMarketingRequest(parsed('visitors'), REPORTS, RANGE).sort).toEqual({ key: 'created', value: -1 });
    expect(toMarketingRequest(parsed('visits'), REPORTS, RANGE).sort).toEqual({ key: 'created', value: -1 });
  });

  it('maps sort direction, page, top and filter groups', () => {
    const q = withPage(parsed('pages country.code:US,CA page~/blog or city:"New York" by duration asc top 25'), 3);
    expect(toMarketingRequest(q, REPORTS, RANGE)).toEqual({
      startDate: '2024-11-01',
      endDate: '2024-11-28',
      filterGroups: [
        {
          filters: [
            { object: 'country', field: 'code', operator: 'is_any_of', value: ['US', 'CA'] },
            { object: 'page', field: 'name', operator: 'contains', value: '/blog' },
          ],
        },
        { filters: [{ object: 'city', field: 'name', operator: 'is_any_of', value: ['New York'] }] },
      ],
      page: 3,
      limit: 25,
      sort: { key: 'avg_duration', value: 1 },
    });
    expect(toMarketingRequest(parsed('sources by name desc'), REPORTS, RANGE).sort).toEqual({ key: 'name', value: -1 });
  });

  it('does not share filter arrays with the query', () => {
    const q = parsed('sources country:US');
    const req = toMarketingRequest(q, REPORTS, RANGE);
    (req.filterGroups?.[0]?.filters[0]?.value as string[]).push('DE');
    expect(q.filters[0]?.filters[0]?.value).toEqual(['US']);
  });
});

describe('encodeQuery / decodeQuery', () => {
  const samples = [
    'sources',
    'pages 2024-11-01..2024-11-28 page~"/blog/" country:US by duration desc top 50 public',
    'cities city:“São Paulo”,"New York" or country.code:DE yesterday',
    'visitors visitor.id:abc-123 by last asc',
    'campaigns campaign:"a, b",c page~"50% off & <free>"',
    'os os:"🙂 emoji, too" top 100',
  ];

  it.each(samples)('round-trips %s', (text) => {
    const q = parsed(text);
    const encoded = encodeQuery(q);
    expect(encoded).toMatch(/^q1\.[A-Za-z0-9_-]+$/);
    expect(decodeQuery(encoded, REPORTS)).toEqual(q);
  });

  it('round-trips a later page and the query helpers’ output', () => {
    const q = withFilter(withPage(parsed('countries'), 7), BLOG, 1);
    expect(decodeQuery(encodeQuery(q), REPORTS)).toEqual(q);
  });

  it('stays small: a typical query and one with 10 filters fit in a button value', () => {
    const typical = encodeQuery(parsed('sources last30d country:US by visits top 25'));
    expect(typical.length).toBeLessThan(120);

    const ten = parsed(
      [
        'pages 2024-11-01..2024-11-28',
        'country.code:US,CA,MX city:"New York","Los Angeles" page~/blog/2024/ source:google.com,bing.com',
        'channel:"Organic Search" campaign:"black-friday-2024" browser:Chrome,Firefox',
        'or os:iOS,Android extension:"uBlock Origin" visitor.id:0f1e2d3c4b5a69788796a5b4c3d2e1f0',
        'by duration desc top 100 public',
      ].join(' '),
    );
    expect(ten.filters.flatMap((g) => g.filters)).toHaveLength(10);
    const encoded = encodeQuery(ten);
    expect(encoded.length).toBeLessThan(700);
    expect(encoded.length).toBeLessThanOrEqual(2000);
    expect(decodeQuery(encoded, REPORTS)).toEqual(ten);
  });

  const wire = (value: unknown): string => `q1.${Buffer.from(JSON.stringify(value)).toString('base64url')}`;
  const good = ['sources', 'last7d', [], 0, 1, 10, 0];

  it('accepts a hand-made valid value (so the refusals below are about the change made)', () => {
    expect(decodeQuery(wire(good), REPORTS)).toEqual(newQuery('sources'));
  });

  it.each([
    ['empty', ''],
    ['prefix only', 'q1.'],
    ['another version', `q2.${wire(good).slice(3)}`],
    ['no prefix', wire(good).slice(3)],
    ['not base64url', `${wire(good)}!`],
    ['not JSON', `q1.${Buffer.from('[not json').toString('base64url')}`],
    ['an object', wire({ r: 'sources' })],
    ['unknown report', wire(['hackers', 'last7d', [], 0, 1, 10, 0])],
    ['prototype key as report', wire(['constructor', 'last7d', [], 0, 1, 10, 0])],
    ['bad range', wire(['sources', 'last400d', [], 0, 1, 10, 0])],
    ['impossible date', wire(['sources', '2024-02-30', [], 0, 1, 10, 0])],
    ['top too big', wire(['sources', 'last7d', [], 0, 1, 1000, 0])],
    ['top zero', wire(['sources', 'last7d', [], 0, 1, 0, 0])],
    ['page zero', wire(['sources', 'last7d', [], 0, 0, 10, 0])],
    ['fractional page', wire(['sources', 'last7d', [], 0, 1.5, 10, 0])],
    ['page as string', wire(['sources', 'last7d', [], 0, '1', 10, 0])],
    ['sort key of another report', wire(['sources', 'last7d', [], ['avg_duration', -1], 1, 10, 0])],
    ['sort direction 2', wire(['sources', 'last7d', [], ['name', 2], 1, 10, 0])],
    ['unknown filter object', wire(['sources', 'last7d', [[['planet', ':', ['Mars']]]], 0, 1, 10, 0])],
    ['unknown filter field', wire(['sources', 'last7d', [[['city.code', ':', ['X']]]], 0, 1, 10, 0])],
    ['unknown operator', wire(['sources', 'last7d', [[['city', '=', ['X']]]], 0, 1, 10, 0])],
    ['contains with an array', wire(['sources', 'last7d', [[['city', '~', ['X']]]], 0, 1, 10, 0])],
    ['empty value', wire(['sources', 'last7d', [[['city', ':', ['']]]], 0, 1, 10, 0])],
    ['empty group', wire(['sources', 'last7d', [[]], 0, 1, 10, 0])],
    ['extra element', wire([...good, 'x'])],
    ['missing element', wire(good.slice(0, 6))],
    ['public 2', wire(['sources', 'last7d', [], 0, 1, 10, 2])],
    [
      'too many filters',
      wire(['sources', 'last7d', [Array.from({ length: MAX_FILTERS + 1 }, () => ['city', ':', ['X']])], 0, 1, 10, 0]),
    ],
    ['huge', `q1.${'A'.repeat(70_000)}`],
  ])('refuses %s', (_name, value) => {
    expect(decodeQuery(value, REPORTS)).toBeNull();
  });

  it('never throws on a value with any character changed, and what it accepts is valid', () => {
    const encoded = encodeQuery(parsed('pages country.code:US,CA page~/blog by duration asc top 25'));
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!';
    fc.assert(
      fc.property(fc.nat(encoded.length - 1), fc.constantFrom(...alphabet), (at, ch) => {
        const tampered = encoded.slice(0, at) + ch + encoded.slice(at + 1);
        const decoded = decodeQuery(tampered, REPORTS);
        if (decoded !== null) {
          expect(Object.keys(REPORTS)).toContain(decoded.report);
          expect(decoded.top).toBeGreaterThanOrEqual(1);
          expect(decoded.top).toBeLessThanOrEqual(100);
          expect(decodeQuery(encodeQuery(decoded), REPORTS)).toEqual(decoded);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('query helpers', () => {
  const base = withPage(parsed('sources last30d country:US or country:DE by duration asc top 20'), 4);
  const snapshot = JSON.stringify(base);

  it('withPage clamps to whole pages from 1', () => {
    expect(withPage(base, 5).page).toBe(5);
    expect(withPage(base, 0).page).toBe(1);
    expect(withPage(base, 2.7).page).toBe(2);
    expect(withPage(base, Number.NaN).page).toBe(1);
  });

  it('withRange and withSort reset the page', () => {
    expect(withRange(base, 'yesterday')).toMatchObject({ range: 'yesterday', page: 1, top: 20 });
    expect(withRange(base, '30d').range).toBe('last30d');
    expect(withRange(base, 'someday')).toEqual(base);
    expect(withSort(base, { key: 'name', dir: 'asc' })).toMatchObject({ sort: { key: 'name', dir: 'asc' }, page: 1 });
    expect(withSort(base, undefined)).not.toHaveProperty('sort');
  });

  it('withFilter narrows every group, or one group, or adds an OR group', () => {
    const everywhere = withFilter(base, BLOG);
    expect(everywhere.page).toBe(1);
    expect(everywhere.filters.map((g) => g.filters.length)).toEqual([2, 2]);
    expect(everywhere.filters[1]?.filters[1]).toEqual(BLOG);

    expect(withFilter(base, BLOG, 1).filters.map((g) => g.filters.length)).toEqual([1, 2]);
    expect(withFilter(base, BLOG, 2).filters.map((g) => g.filters.length)).toEqual([1, 1, 1]);
    expect(withFilter(base, BLOG, 9)).toEqual(base);
    expect(withFilter(newQuery('pages'), US).filters).toEqual([{ filters: [US] }]);
  });

  it('withFilter does not add the same condition twice', () => {
    const once = withFilter(newQuery('pages'), US);
    expect(withFilter(once, { ...US, value: ['US'] }).filters).toEqual([{ filters: [US] }]);
  });

  it('withoutFilter removes a condition and an emptied group', () => {
    const removed = withoutFilter(base, 0, 0);
    expect(removed.filters).toEqual([
      { filters: [{ object: 'country', field: 'name', operator: 'is_any_of', value: ['DE'] }] },
    ]);
    expect(removed.page).toBe(1);
    expect(withoutFilter(base, 5, 0).filters).toEqual(base.filters);
    expect(withoutFilter(base, 0, 3).filters).toEqual(base.filters);
  });

  it('withReport carries the sort over by its friendly name', () => {
    expect(withReport(base, 'pages', REPORTS)).toMatchObject({
      report: 'pages',
      sort: { key: 'avg_duration', dir: 'asc' },
      page: 1,
      range: 'last30d',
      top: 20,
    });
    const byUnique = withSort(base, { key: 'unique_visitors', dir: 'desc' });
    expect(withReport(byUnique, 'pages', REPORTS).sort).toEqual({ key: 'visitors', dir: 'desc' });
    expect(withReport(base, 'visitors', REPORTS)).not.toHaveProperty('sort');
    expect(withReport(base, 'countries', REPORTS).filters).toEqual(base.filters);
  });

  it('never changes the query it is given', () => {
    withPage(base, 9);
    withRange(base, 'all');
    withSort(base, undefined);
    withFilter(base, BLOG);
    withoutFilter(base, 0, 0);
    withReport(base, 'pages', REPORTS);
    expect(JSON.stringify(base)).toBe(snapshot);
  });
});
