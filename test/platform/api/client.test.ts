import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import { ApiError } from '../../../src/platform/api/errors.js';
import { REPORT_IDS, type ReportId } from '../../../src/kernel/catalog.js';
import type { AggregateRow, PageRow } from '../../../src/platform/api/schemas.js';
import type { VisitRecord, VisitorRecord } from '../../../src/kernel/records.js';
import type { FilterGroup } from '../../../src/kernel/filters.js';
import type { MarketingRequest } from '../../../src/kernel/query.js';
import { startDemoApi, type DemoApi, DEMO_VISITORS } from '@lookout/sandbox/demo-api';
import { captureLogs } from '../../support/log-capture.js';
import { allRows } from '../../support/paging.js';

const API_KEY = 'k-7f3a9c1e-test-secret-key';
const RANGE = { startDate: '2000-01-01', endDate: '2100-01-01' };

let demo: DemoApi;
let api: AnalyticsApi;
const logs = captureLogs();

function client(overrides: Partial<ConstructorParameters<typeof AnalyticsApi>[0]> = {}): AnalyticsApi {
  return new AnalyticsApi({
    baseUrl: demo.url,
    apiKey: API_KEY,
    timeoutMs: 2_000,
    retry: { retries: 3, minDelayMs: 5, maxDelayMs: 20, maxTotalMs: 5_000 },
    logger: logs.logger,
    ...overrides,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected the call to fail');
}

async function allVisits(filterGroups: FilterGroup[]): Promise<VisitRecord[]> {
  const { rows, complete } = await allRows(api, 'visits', { ...RANGE, filterGroups }, 1000);
  expect(complete).toBe(true);
  return rows;
}

const loc = (v: VisitRecord) => v.location as { country?: string; city?: string } | undefined;
const browserOf = (v: VisitRecord) => (v.browser as { name?: string } | undefined)?.name;

beforeAll(async () => {
  demo = await startDemoApi({ apiKey: API_KEY });
  api = client();
});

afterAll(async () => {
  await api?.close();
  await demo?.close();
});

beforeEach(() => {
  demo.setFaults({});
  demo.resetRequests();
});

describe('only ANALYTICS_API_URL is ever called', () => {
  it('a path that could leave the base path or name another resource is refused before any request', async () => {
    const anything = { parse: (v: unknown) => v } as never;
    for (const path of [
      '/../admin',
      '/visitors/..',
      '/a/./b',
      '//evil.example/x',
      '/a?b=1',
      '/a#b',
      'relative',
      '/a%2F..',
      '/a b',
      '',
    ]) {
      const error = await failureOf(api.http.get(path, {}, anything));
      expect(error.kind, path).toBe('bad_request');
    }
    expect(demo.requests).toHaveLength(0);
    await api.http.get('/api/v1/security/visitors/v_demo_attacker', {}, anything).catch(() => undefined);
    expect(demo.requests.length).toBeGreaterThan(0);
  });
});

describe('every operation', () => {
  it.each(REPORT_IDS)('%s parses', async (id: ReportId) => {
    const rows = await api.report(id, { ...RANGE, limit: 5 });
    expect(rows.length).toBe(5);
  });

  it('sends the dates as query parameters and the rest as the JSON body', async () => {
    await api.report('countries', {
      startDate: '2026-01-01',
      endDate: '2026-02-01',
      page: 2,
      limit: 3,
      sort: { key: 'name', value: 1 },
    });
    const request = demo.requests.at(-1)!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/countries');
    expect(request.query).toMatchObject({ start_date: '2026-01-01', end_date: '2026-02-01' });
    expect(request.body).toEqual({
      filter_groups: [],
      pagination: { current_page: 2, limit: 3 },
      sort_params: { key: 'name', value: 1 },
    });
  });

  it('answers each security lookup, with normalised flags', async () => {
    const id = DEMO_VISITORS.attacker;
    const [adblock, bot, scraping, vpn, extensions] = await Promise.all([
      api.security.check('adblock', id),
      api.security.check('bot', id),
      api.security.check('scraping', id),
      api.security.check('vpn', id),
      api.security.check('extensions', id),
    ]);
    expect(bot.is_attacker.value).toBe('yes');
    expect(['yes', 'no', 'unknown']).toContain(adblock.adblock.value);
    expect(typeof scraping.score).toBe('number');
    expect(['yes', 'no', 'unknown']).toContain(vpn.vpn.value);
    expect(Array.isArray(extensions.scraper_extension_list)).toBe(true);
    expect(demo.requests.map((r) => r.path).sort()).toEqual(
      [
        `/security/adblock-status/${id}`,
        `/security/bot-status/${id}`,
        `/security/scraping-extensions-status/${id}`,
        `/security/scraping-status/${id}`,
        `/security/vpn-status/${id}`,
      ].sort(),
    );
  });

  it('passes visit_id where the spec accepts it, and not to scraping status', async () => {
    const [visit] = await api.visits({
      ...RANGE,
      filterGroups: [
        { filters: [{ object: 'visitor', field: 'id', operator: 'is_any_of', value: [DEMO_VISITORS.scraper] }] },
      ],
      limit: 1,
    });
    expect(visit?.id).toBeTruthy();
    await api.security.check('bot', DEMO_VISITORS.scraper, visit!.id);
    await api.security.check('scraping', DEMO_VISITORS.scraper);
    const [bot, scraping] = demo.requests.slice(-2);
    expect(bot!.query).toMatchObject({ visit_id: visit!.id });
    expect(scraping!.query?.visit_id).toBeUndefined();
  });

  it('refuses an id that is not one path segment, without a request', async () => {
    for (const bad of ['../admin', 'a/b', '..', 'x?y=1', '', 'a b']) {
      expect((await failureOf(api.security.check('bot', bad))).kind).toBe('bad_request');
    }
    expect(demo.requests).toHaveLength(0);
  });
});

describe('filters', () => {
  const country = (value: string[]) => ({ object: 'country', field: 'name', operator: 'is_any_of' as const, value });
  const browser = (value: string[]) => ({ object: 'browser', field: 'name', operator: 'is_any_of' as const, value });

  it('no filter_groups means no filtering', async () => {
    const countries = (await api.report('countries', { ...RANGE, limit: 1000 })) as AggregateRow[];
    const total = countries.reduce((sum, r) => sum + (r.total_visits ?? 0), 0);
    expect(total).toBeGreaterThan(10_000);
    expect(total).toBe((await allVisits([])).length);
    expect(
      demo.requests.every((r) => JSON.stringify((r.body as { filter_groups: unknown }).filter_groups) === '[]'),
    ).toBe(true);
  });

  it('is_any_of matches any of the values; contains is a case-insensitive substring', async () => {
    const some = await allVisits([{ filters: [country(['Germany', 'France'])] }]);
    expect(some.length).toBeGreaterThan(0);
    expect(new Set(some.map((v) => loc(v)?.country))).toEqual(new Set(['Germany', 'France']));

    const blog = await allVisits([
      { filters: [{ object: 'page', field: 'url', operator: 'contains', value: '/BLOG/' }] },
    ]);
    expect(blog.length).toBeGreaterThan(0);
    expect(blog.every((v) => v.url!.toLowerCase().includes('/blog/'))).toBe(true);
  });

  it('ANDs filters inside a group and ORs the groups', async () => {
    const germany = await allVisits([{ filters: [country(['Germany'])] }]);
    const firefox = await allVisits([{ filters: [browser(['Firefox'])] }]);
    const both = await allVisits([{ filters: [country(['Germany']), browser(['Firefox'])] }]);
    const either = await allVisits([{ filters: [country(['Germany'])] }, { filters: [browser(['Firefox'])] }]);

    expect(both.length).toBeGreaterThan(0);
    expect(both.every((v) => loc(v)?.country === 'Germany' && browserOf(v) === 'Firefox')).toBe(true);
    expect(either.every((v) => loc(v)?.country === 'Germany' || browserOf(v) === 'Firefox')).toBe(true);
    expect(either.length).toBe(germany.length + firefox.length - both.length);
  });

  it('aggregates agree with the visits they are made of', async () => {
    const visits = await allVisits([{ filters: [country(['Germany'])] }]);
    const cities = (await api.report('cities', {
      ...RANGE,
      limit: 1000,
      filterGroups: [{ filters: [country(['Germany'])] }],
    })) as AggregateRow[];
    expect(cities.reduce((sum, r) => sum + (r.total_visits ?? 0), 0)).toBe(visits.length);
  });
});

describe('sorting and paging', () => {
  function isSorted(values: (string | number)[], dir: 1 | -1): boolean {
    return values.every((v, i) => {
      if (i === 0) return true;
      const prev = values[i - 1]!;
      const cmp =
        typeof v === 'number'
          ? v - (prev as number)
          : String(v).localeCompare(String(prev), 'en', { sensitivity: 'base' });
      return dir === 1 ? cmp >= 0 : cmp <= 0;
    });
  }

  it.each([
    ['countries', 'total_visits', -1],
    ['countries', 'total_visits', 1],
    ['browsers', 'unique_visitors', 1],
    ['cities', 'average_duration', -1],
    ['sources', 'name', 1],
    ['pages', 'avg_duration', -1],
    ['pages', 'full_url', 1],
    ['visitors', 'last_seen', -1],
    ['visits', 'date', 1],
  ] as const)('%s by %s (%i)', async (id, key, value) => {
    const rows = (await api.report(id, { ...RANGE, limit: 200, sort: { key, value } })) as unknown as Record<
      string,
      string | number
    >[];
    expect(rows.length).toBeGreaterThan(3);
    expect(
      isSorted(
        rows.map((r) => r[key]!),
        value,
      ),
    ).toBe(true);
  });

  it('sorts visits by created (newest first by default)', async () => {
    const rows = (await api.visits({ ...RANGE, limit: 100 })) as VisitRecord[];
    expect(
      isSorted(
        rows.map((r) => Date.parse(r.date!)),
        -1,
      ),
    ).toBe(true);
  });

  it('paging through a whole report gives every row exactly once', async () => {
    const whole = (await api.report('cities', { ...RANGE, limit: 1000 })) as AggregateRow[];
    const paged: AggregateRow[] = [];
    for (let page = 1; page < 1000; page++) {
      const batch = (await api.report('cities', { ...RANGE, page, limit: 7 })) as AggregateRow[];
      if (batch.length === 0) break;
      paged.push(...batch);
    }
    const key = (r: AggregateRow) => `${r.name}|${r.label}`;
    expect(paged.length).toBe(whole.length);
    expect(new Set(paged.map(key)).size).toBe(paged.length);
    expect(paged.map(key)).toEqual(whole.map(key));
  });

  it('pages visitors to the end', async () => {
    const { rows, complete } = await allRows(api, 'visitors', RANGE, 500);
    expect(complete).toBe(true);
    const ids = (rows as VisitorRecord[]).map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(1000);
  });

  it('returns [] past the last page', async () => {
    expect(await api.report('devices', { ...RANGE, page: 999, limit: 100 })).toEqual([]);
  });
});

describe('failures end in the right ApiError kind', () => {
  it('401 → unauthorized, and no retry', async () => {
    const wrong = client({ apiKey: 'wrong-key' });
    const error = await failureOf(wrong.report('countries', RANGE));
    await wrong.close();
    expect(error.kind).toBe('unauthorized');
    expect(error.info.status).toBe(401);
    expect(demo.requests).toHaveLength(1);
  });

  it('404 → not_found for an unknown visitor, and no retry', async () => {
    const error = await failureOf(api.security.check('bot', 'v_nobody_here'));
    expect(error.kind).toBe('not_found');
    expect(demo.requests).toHaveLength(1);
  });

  it('400 → bad_request with the API’s reason, and no retry', async () => {
    const error = await failureOf(
      api.report('countries', {
        ...RANGE,
        filterGroups: [{ filters: [{ object: 'planet', field: 'name', operator: 'contains', value: 'x' }] }],
      }),
    );
    expect(error.kind).toBe('bad_request');
    expect(error.message).toMatch(/planet/);
    expect(demo.requests).toHaveLength(1);
  });

  it('429 then success → the rows, after waiting Retry-After', async () => {
    demo.setFaults({ rateLimit: { count: 1, retryAfterSeconds: 1 } });
    const started = performance.now();
    const rows = await api.report('countries', { ...RANGE, limit: 3 });
    expect(rows).toHaveLength(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(demo.requests).toHaveLength(2);
  });

  it('429 with a Retry-After past the time budget → rate_limited at once', async () => {
    demo.setFaults({ rateLimit: { count: 5, retryAfterSeconds: 60 } });
    // Waiting the 60 s would outlast the test's timeout; asking again would show as a second request.
    const error = await failureOf(api.report('countries', RANGE));
    expect(error.kind).toBe('rate_limited');
    expect(demo.requests).toHaveLength(1);
  });

  it('500 until giving up → unavailable after the retries', async () => {
    demo.setFaults({ status500Until: 100 });
    const error = await failureOf(api.report('countries', RANGE));
    expect(error.kind).toBe('unavailable');
    expect(error.info.attempts).toBe(4);
    expect(demo.requests).toHaveLength(4);
  });

  it('a connection refused → unavailable', async () => {
    const nowhere = client({
      baseUrl: 'http://127.0.0.1:9',
      retry: { retries: 1, minDelayMs: 1, maxDelayMs: 1, maxTotalMs: 100 },
    });
    const error = await failureOf(nowhere.report('countries', RANGE));
    await nowhere.close();
    expect(error.kind).toBe('unavailable');
  });

  it('no answer within the timeout → timeout', async () => {
    demo.setFaults({ hang: true });
    const impatient = client({ timeoutMs: 200 });
    // The demo API never answers: without the client's timeout, the test's own would fail it.
    const error = await failureOf(impatient.report('countries', RANGE));
    await impatient.close();
    expect(error.kind).toBe('timeout');
  });

  it('malformed JSON → bad_response', async () => {
    demo.setFaults({ malformedJson: true });
    const error = await failureOf(api.report('countries', RANGE));
    expect(error.kind).toBe('bad_response');
    expect(error.message).toMatch(/not JSON/);
  });

  it('schema drift → bad_response naming the first bad field', async () => {
    demo.setFaults({ drift: true });
    const error = await failureOf(api.report('countries', { ...RANGE, limit: 5 }));
    expect(error.kind).toBe('bad_response');
    expect(error.message).toMatch(/\[0\]\.\w+/);
  });

  it('schema drift in a page of visitors (checked in one loop, not by zod) → bad_response naming the row and the field', async () => {
    demo.setFaults({ drift: true });
    const error = await failureOf(api.report('visitors', { ...RANGE, limit: 5 }));
    expect(error.kind).toBe('bad_response');
    expect(error.message).toMatch(/bad field \[0\]\.first_seen: expected a string/);
  });

  it('the API key appears in no error message and no log line', async () => {
    const errors: ApiError[] = [];
    const attempts: [Partial<Parameters<DemoApi['setFaults']>[0]>, () => Promise<unknown>][] = [
      [{ status500Until: 10 }, () => api.report('countries', RANGE)],
      [{ malformedJson: true }, () => api.report('pages', RANGE)],
      [{ drift: true }, () => api.report('sources', RANGE)],
      [{}, () => api.security.check('vpn', 'v_nobody_here')],
      [{}, () => api.report('countries', { ...RANGE, limit: 5000 })],
    ];
    for (const [faults, call] of attempts) {
      demo.setFaults(faults);
      errors.push(await failureOf(call()));
    }
    expect(errors).toHaveLength(5);
    expect(logs.lines.length).toBeGreaterThan(0);
    for (const e of errors) {
      expect(`${e.message} ${JSON.stringify(e.info)} ${e.stack}`).not.toContain(API_KEY);
    }
    for (const line of logs.lines) expect(line).not.toContain(API_KEY);
  });
});

describe('single-flight and concurrency', () => {
  it('makes one request for ten identical concurrent calls', async () => {
    const request: MarketingRequest = { ...RANGE, limit: 50, sort: { key: 'name', value: 1 } };
    const results = await Promise.all(Array.from({ length: 10 }, () => api.report('browsers', request)));
    expect(demo.requests).toHaveLength(1);
    for (const rows of results) expect(rows).toEqual(results[0]);
  });

  it('gives ten identical concurrent calls that fail the one error of one request', async () => {
    demo.setFaults({ malformedJson: true });
    const request: MarketingRequest = { ...RANGE, limit: 50 };
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => api.report('visitors', request)));
    expect(demo.requests).toHaveLength(1);
    const reasons = outcomes.map((o) => (o.status === 'rejected' ? o.reason : undefined));
    expect(reasons.every((r) => r instanceof ApiError && r.kind === 'bad_response')).toBe(true);
    expect(new Set(reasons).size).toBe(1);
    demo.setFaults({});
    expect(await api.report('visitors', request)).toHaveLength(50);
  });

  it('makes a fresh request once the first has finished', async () => {
    await api.report('browsers', { ...RANGE, limit: 2 });
    await api.report('browsers', { ...RANGE, limit: 2 });
    expect(demo.requests).toHaveLength(2);
  });

  it('never has more requests in flight than the concurrency limit', async () => {
    demo.setFaults({ latencyMs: 50 });
    const narrow = client({ maxConcurrency: 2 });
    const pages = Array.from({ length: 8 }, (_, i) => i + 1);
    const started = performance.now();
    await Promise.all(pages.map((page) => narrow.report('cities', { ...RANGE, page, limit: 5 })));
    await narrow.close();
    // 8 distinct calls of ≥50 ms each, two at a time, take at least 4 rounds (unlimited: one).
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(demo.requests).toHaveLength(8);
  });
});

describe('page rows', () => {
  it('has the four required fields', async () => {
    const [row] = (await api.report('pages', { ...RANGE, limit: 1 })) as PageRow[];
    expect(row).toMatchObject({
      full_url: expect.any(String),
      total: expect.any(Number),
      visitors: expect.any(Number),
      avg_duration: expect.any(Number),
    });
  });
});
