import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  aggregateRow,
  botStatus,
  firstIssuePath,
  normaliseFlag,
  pageRow,
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
  it('accepts numeric strings, keeps unknown fields, allows a missing label', () => {
    const row = aggregateRow.parse({
      name: 'Germany',
      total_visits: '12',
      unique_visitors: 3,
      average_duration: '4.5',
      extra: { a: 1 },
    });
    expect(row.total_visits).toBe(12);
    expect(row.average_duration).toBe(4.5);
    expect(row.label).toBeUndefined();
    expect((row as Record<string, unknown>).extra).toEqual({ a: 1 });
  });

  it('refuses a number of the wrong type and names the path', () => {
    const result = z.array(aggregateRow).safeParse([
      { name: 'a', total_visits: 1 },
      { name: 'b', total_visits: { value: 3 } },
    ]);
    expect(result.success).toBe(false);
    if (!result.success) expect(firstIssuePath(result.error)).toMatch(/^\[1\]\.total_visits/);
  });

  it('refuses a non-numeric string where a number is due', () => {
    expect(aggregateRow.safeParse({ name: 'a', total_visits: 'lots' }).success).toBe(false);
  });

  it('requires the four page fields', () => {
    expect(pageRow.safeParse({ full_url: 'https://x/', total: 1, visitors: 1 }).success).toBe(false);
    expect(pageRow.parse({ full_url: 'https://x/', total: '2', visitors: 1, avg_duration: 3 }).total).toBe(2);
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
