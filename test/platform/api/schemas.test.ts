import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  aggregatePage,
  botStatus,
  firstIssuePath,
  normaliseFlag,
  pagesPage,
  scrapingExtensionsStatus,
  visitRecord,
} from '../../../src/platform/api/schemas.js';
import { parseRetryAfter } from '../../../src/platform/api/client.js';

describe('normaliseFlag', () => {
  it.each([
    ['True', 'yes'],
    ['true', 'yes'],
    ['YES', 'yes'],
    ['1', 'yes'],
    [true, 'yes'],
    [1, 'yes'],
    ['False', 'no'],
    ['no', 'no'],
    ['0', 'no'],
    [false, 'no'],
    ['Unknown', 'unknown'],
    ['', 'unknown'],
    [undefined, 'unknown'],
    [null, 'unknown'],
    ['maybe', 'unknown'],
    [' true ', 'yes'],
  ] as const)('%j → %s', (input, expected) => {
    const flag = normaliseFlag(input);
    expect(flag.value).toBe(expected);
    expect(flag.raw).toBe(input === undefined || input === null ? '' : String(input));
  });
});

describe('row schemas', () => {
  it('accepts numeric strings, keeps unknown fields, allows a missing label and reads null as missing', () => {
    const page = aggregatePage.check([
      { name: 'Germany', total_visits: '12', unique_visitors: 3, average_duration: '4.5', extra: { a: 1 } },
      { name: null, id: 'x', total_visits: null },
    ]);
    expect(page).toEqual({
      ok: true,
      value: [
        { name: 'Germany', total_visits: 12, unique_visitors: 3, average_duration: 4.5, extra: { a: 1 } },
        { name: undefined, id: 'x', total_visits: undefined },
      ],
    });
    expect(page.ok && 'label' in page.value[0]!).toBe(false);
  });

  it('refuses a number of the wrong type, a non-finite one or a non-numeric string, and names the path', () => {
    expect(
      aggregatePage.check([
        { name: 'a', total_visits: 1 },
        { name: 'b', total_visits: { value: 3 } },
      ]),
    ).toEqual({
      ok: false,
      where: '[1].total_visits: expected a number, a numeric string or null',
    });
    expect(aggregatePage.check([{ name: 'a', total_visits: 'lots' }]).ok).toBe(false);
    expect(aggregatePage.check([{ name: 'a', average_duration: Infinity }]).ok).toBe(false);
    expect(aggregatePage.check([{ name: 5 }])).toEqual({ ok: false, where: '[0].name: expected a string or null' });
    expect(aggregatePage.check(['x'])).toEqual({ ok: false, where: '[0]: expected an object' });
    expect(aggregatePage.check({})).toEqual({ ok: false, where: '(root): expected an array' });
  });

  it("names the first bad field of a zod answer's parse", () => {
    const result = z.array(botStatus).safeParse([{ visitor_id: 'a' }, { visitor_id: 5 }]);
    expect(result.success).toBe(false);
    if (!result.success) expect(firstIssuePath(result.error)).toMatch(/^\[1\]\.visitor_id: /);
  });

  it('requires the four page fields', () => {
    expect(pagesPage.check([{ full_url: 'https://x/', total: 1, visitors: 1 }])).toEqual({
      ok: false,
      where: '[0].avg_duration: expected a number or a numeric string',
    });
    const page = pagesPage.check([{ full_url: 'https://x/', total: '2', visitors: 1, avg_duration: 3 }]);
    expect(page.ok && page.value[0]!.total).toBe(2);
  });

  it('keeps open visit models and string params', () => {
    const visit = visitRecord.parse({ id: 'v', params: 'utm_source=x', browser: { name: 'Firefox', engine: 'Gecko' } });
    expect(visit.params).toBe('utm_source=x');
    expect(visit.browser).toEqual({ name: 'Firefox', engine: 'Gecko' });
    expect(visitRecord.safeParse({ browser: 'Firefox' }).success).toBe(false);
  });

  it('normalises the security flags once, keeping the raw string', () => {
    const status = botStatus.parse({ visitor_id: 'v1', is_attacker: 'True', is_abuser: 'Unknown', is_threat: 'false' });
    expect(status.is_attacker).toEqual({ value: 'yes', raw: 'True' });
    expect(status.is_abuser).toEqual({ value: 'unknown', raw: 'Unknown' });
    expect(status.is_threat.value).toBe('no');
    expect(status.is_proxy).toEqual({ value: 'unknown', raw: '' });
  });

  it('turns every shape of scraper extension into a name', () => {
    const status = scrapingExtensionsStatus.parse({
      scraper_extension_list: ['Data Miner', { id: 'x1', name: 'Web Scraper' }, { id: 7 }],
    });
    expect(status.scraper_extension_list).toEqual(['Data Miner', 'Web Scraper', '7']);
    expect(scrapingExtensionsStatus.parse({}).scraper_extension_list).toEqual([]);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, ignores junk', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(['1.5'])).toBe(1500);
    const now = Date.parse('2026-11-21T00:00:00Z');
    expect(parseRetryAfter('Sat, 21 Nov 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
