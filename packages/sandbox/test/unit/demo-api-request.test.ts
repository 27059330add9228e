import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORTS } from '../../src/demo-api/aggregate.js';
import { ApiFailure } from '../../src/demo-api/errors.js';
import { isDay, parseReportQuery } from '../../src/demo-api/request.js';

const countries = REPORTS.get('/countries')!;
const visits = REPORTS.get('/visits')!;
const parse = (query: string, body: unknown = '', report = countries) =>
  parseReportQuery(report, new URLSearchParams(query), typeof body === 'string' ? body : JSON.stringify(body));

function refusal(query: string, body: unknown = '', report = countries): string {
  try {
    parse(query, body, report);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiFailure);
    expect((error as ApiFailure).status).toBe(400);
    return (error as ApiFailure).message;
  }
  throw new Error('expected a 400');
}

describe('parseReportQuery', () => {
  it('follows the spec’s defaults literally', () => {
    const q = parse('');
    expect([q.startDay, q.endDay]).toEqual(['1970-01-01', '2024-11-28']);
    expect([q.page, q.limit]).toEqual([1, 100]);
    expect(q.sort).toEqual({ key: 'total_visits', value: -1 });
    expect(q.groups).toEqual([]);
    expect(parse('', '', visits).sort).toEqual({ key: 'created', value: -1 });
    expect(parse('', '  \n').limit).toBe(100);
  });

  it('reads dates, paging and sorting', () => {
    const q = parse('start_date=2026-01-01&end_date=2026-01-01&unrelated=1', {
      pagination: { current_page: 3, limit: 1000 },
      sort_params: { key: 'name', value: 1 },
    });
    expect([q.startDay, q.endDay, q.page, q.limit]).toEqual(['2026-01-01', '2026-01-01', 3, 1000]);
    expect(q.sort).toEqual({ key: 'name', value: 1 });
  });

  it('fills a partial sort_params from the default, and treats null members of the body as absent', () => {
    expect(parse('', { sort_params: { value: 1 } }).sort).toEqual({ key: 'total_visits', value: 1 });
    expect(parse('', { sort_params: { key: 'label' } }).sort).toEqual({ key: 'label', value: -1 });
    expect(parse('', { filter_groups: null, pagination: null, sort_params: null }).limit).toBe(100);
  });

  it.each([
    ['a bad date', 'start_date=2026-02-30', {}, /start_date must be a date in the form YYYY-MM-DD/],
    ['a date with a time', 'end_date=2026-02-01T00:00:00Z', {}, /end_date must be a date/],
    ['an empty date', 'start_date=', {}, /start_date must be a date/],
    [
      'start after end',
      'start_date=2026-02-02&end_date=2026-02-01',
      {},
      /start_date 2026-02-02 is after end_date 2026-02-01/,
    ],
    ['a repeated date', 'start_date=2026-01-01&start_date=2026-01-02', {}, /given more than once/],
    ['malformed JSON', '', '{"pagination": {', /not valid JSON/],
    ['a JSON array body', '', [], /must be a JSON object/],
    ['an unknown body member', '', { page: 2 }, /unknown member 'page'/],
    ['limit 0', '', { pagination: { limit: 0 } }, /pagination.limit must be an integer 1..1000/],
    ['limit 1001', '', { pagination: { limit: 1001 } }, /pagination.limit must be an integer 1..1000/],
    ['a fractional limit', '', { pagination: { limit: 2.5 } }, /pagination.limit/],
    ['a string page', '', { pagination: { current_page: '2' } }, /pagination.current_page must be an integer/],
    ['page 0', '', { pagination: { current_page: 0 } }, /pagination.current_page/],
    [
      'an unknown sort key',
      '',
      { sort_params: { key: 'total', value: -1 } },
      /unknown sort key "total" for \/countries \(known: name, label/,
    ],
    ['created on an aggregate', '', { sort_params: { key: 'created' } }, /unknown sort key "created"/],
    [
      'sort value 0',
      '',
      { sort_params: { key: 'name', value: 0 } },
      /sort_params.value must be -1 \(descending\) or 1 \(ascending\)/,
    ],
    ['sort value "asc"', '', { sort_params: { key: 'name', value: 'asc' } }, /sort_params.value/],
    [
      'a bad filter',
      '',
      { filter_groups: [{ filters: [{ object: 'planet', field: 'name', operator: 'contains', value: 'x' }] }] },
      /unknown filter object 'planet'/,
    ],
  ])('refuses %s', (_name, query, body, message) => {
    expect(refusal(query, body)).toMatch(message);
  });

  it('accepts created and the record fields as sort keys for visits', () => {
    for (const key of ['created', 'date', 'url', 'duration'])
      expect(parse('', { sort_params: { key, value: 1 } }, visits).sort.key).toBe(key);
    expect(refusal('', { sort_params: { key: 'browser' } }, visits)).toMatch(/unknown sort key/);
  });
});

describe('isDay', () => {
  it('accepts exactly the real calendar dates', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }), (date) =>
        isDay(date.toISOString().slice(0, 10)),
      ),
    );
    for (const bad of ['2026-02-29', '2026-13-01', '2026-00-10', '2026-1-01', '26-01-01', '2026-01-01 ', ''])
      expect(isDay(bad)).toBe(false);
    expect(isDay('2024-02-29')).toBe(true);
  });
});
