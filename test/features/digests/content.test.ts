import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnalyticsApi } from '../../../src/platform/api/analytics.js';
import type { ReportId, ReportRow } from '../../../src/kernel/catalog.js';
import type { FilterGroup } from '../../../src/kernel/filters.js';
import type { MarketingRequest } from '../../../src/kernel/query.js';
import { previousPeriod, rangeDays, type DateRange } from '../../../src/kernel/dates.js';
import { gatherDigest, type DigestSpec } from '../../../src/features/digests/content.js';
import { SharedFetcher } from '../../../src/platform/api/shared-fetcher.js';
import { digestRange } from '../../../src/features/digests/period.js';
import { startDemoApi, type DemoApi } from '@lookout/sandbox/demo-api';
import { validateMessage } from '../../../src/slack-rules/validate.js';
import { digestMessage } from '../../../src/features/digests/blocks.js';
import { mrkdwnOf } from '../../support/sandbox.js';
import { shortUrl } from '../../../src/kernel/format.js';
import { textOf } from '../../../src/kernel/records.js';
import { allRows } from '../../support/paging.js';

const API_KEY = 'digest-content-test-key';
/** The demo data set is generated around this instant (120 days back). */
const DATA_NOW = new Date('2026-11-20T12:00:00Z');
/** 09:00 in Berlin on the day the digests run. */
const AT = new Date('2026-11-20T08:00:00Z');
const OPTIONS = { title: 'Digest', demo: true, preview: false, apiZone: 'UTC' };

let demo: DemoApi;
let api: AnalyticsApi;

beforeAll(async () => {
  demo = await startDemoApi({ apiKey: API_KEY, now: () => DATA_NOW });
  api = new AnalyticsApi({
    baseUrl: demo.url,
    apiKey: API_KEY,
    timeoutMs: 5_000,
    retry: { retries: 2, minDelayMs: 5, maxDelayMs: 20, maxTotalMs: 2_000 },
  });
});

afterAll(async () => {
  await api?.close();
  await demo?.close();
});

beforeEach(() => {
  demo.setFaults({});
  demo.resetRequests();
});

function spec(overrides: Partial<DigestSpec> = {}): DigestSpec {
  return {
    id: 1,
    reports: ['sources', 'pages', 'countries'],
    filters: [],
    topN: 5,
    period: 'week',
    timeZone: 'Europe/Berlin',
    ...overrides,
  };
}

const at = (range: DateRange, filterGroups: FilterGroup[] = []): MarketingRequest => ({
  startDate: range.startDate,
  endDate: range.endDate,
  filterGroups,
});

async function visitCount(range: DateRange, filterGroups: FilterGroup[] = []): Promise<number> {
  const { rows, complete } = await allRows(api, 'visits', at(range, filterGroups), 1000);
  expect(complete).toBe(true);
  return rows.length;
}

function field(row: ReportRow, name: string): unknown {
  return (row as Record<string, unknown>)[name];
}

/**
 * The API with every report call it makes kept track of. gatherDigest returns as soon as one
 * of a section's requests fails while the other may still be retrying; a test that injects
 * faults waits for those too, so no call is left in flight for the next one to join.
 */
function tracked(): { api: AnalyticsApi; settled: () => Promise<unknown> } {
  const pending = new Set<Promise<unknown>>();
  const wrapped = Object.create(api) as AnalyticsApi;
  wrapped.report = (id, request) => {
    const rows = api.report(id, request);
    pending.add(rows);
    return rows;
  };
  return { api: wrapped, settled: () => Promise.allSettled([...pending]) };
}

/** Each request the demo API received, as one comparable key. */
const requestKeys = () => demo.requests.map((r) => JSON.stringify([r.method, r.path, r.query, r.body]));

describe('digestRange', () => {
  it.each<[string, string, DigestSpec['period'], Omit<DateRange, 'label'> & { label: string }]>([
    [
      '2026-11-20T08:00:00Z',
      'Europe/Berlin',
      'day',
      { startDate: '2026-11-19', endDate: '2026-11-19', label: 'Yesterday (Nov 19, 2026)' },
    ],
    [
      '2026-11-20T08:00:00Z',
      'Europe/Berlin',
      'week',
      { startDate: '2026-11-13', endDate: '2026-11-19', label: 'The 7 days before today (Nov 13 – Nov 19, 2026)' },
    ],
    [
      '2026-11-20T08:00:00Z',
      'Europe/Berlin',
      'month',
      { startDate: '2026-10-01', endDate: '2026-10-31', label: 'Last month (Oct 1 – Oct 31, 2026)' },
    ],
    // The zone decides what "yesterday" is: 23:30 UTC is already tomorrow in Berlin, still today in New York.
    [
      '2026-11-20T23:30:00Z',
      'Europe/Berlin',
      'day',
      { startDate: '2026-11-20', endDate: '2026-11-20', label: 'Yesterday (Nov 20, 2026)' },
    ],
    [
      '2026-11-20T23:30:00Z',
      'America/New_York',
      'day',
      { startDate: '2026-11-19', endDate: '2026-11-19', label: 'Yesterday (Nov 19, 2026)' },
    ],
    [
      '2026-11-20T12:00:00Z',
      'Pacific/Kiritimati',
      'day',
      { startDate: '2026-11-20', endDate: '2026-11-20', label: 'Yesterday (Nov 20, 2026)' },
    ],
    // Across a year, and at the end of February, per zone.
    [
      '2026-01-01T08:00:00Z',
      'Europe/Berlin',
      'month',
      { startDate: '2025-12-01', endDate: '2025-12-31', label: 'Last month (Dec 1 – Dec 31, 2025)' },
    ],
    [
      '2026-01-02T08:00:00Z',
      'Europe/Berlin',
      'week',
      { startDate: '2025-12-26', endDate: '2026-01-01', label: 'The 7 days before today (Dec 26, 2025 – Jan 1, 2026)' },
    ],
    [
      '2026-03-01T00:30:00Z',
      'Europe/Berlin',
      'month',
      { startDate: '2026-02-01', endDate: '2026-02-28', label: 'Last month (Feb 1 – Feb 28, 2026)' },
    ],
    [
      '2026-03-01T00:30:00Z',
      'America/New_York',
      'month',
      { startDate: '2026-01-01', endDate: '2026-01-31', label: 'Last month (Jan 1 – Jan 31, 2026)' },
    ],
    [
      '2024-03-01T12:00:00Z',
      'UTC',
      'month',
      { startDate: '2024-02-01', endDate: '2024-02-29', label: 'Last month (Feb 1 – Feb 29, 2024)' },
    ],
    // The morning after the clocks change is an ordinary day.
    [
      '2026-03-29T07:00:00Z',
      'Europe/Berlin',
      'day',
      { startDate: '2026-03-28', endDate: '2026-03-28', label: 'Yesterday (Mar 28, 2026)' },
    ],
    [
      '2026-11-02T14:00:00Z',
      'America/New_York',
      'week',
      { startDate: '2026-10-26', endDate: '2026-11-01', label: 'The 7 days before today (Oct 26 – Nov 1, 2026)' },
    ],
  ])('at %s in %s, period %s', (now, zone, period, expected) => {
    const range = digestRange(period, zone, new Date(now));
    expect(range).toEqual(expected);
    const previous = previousPeriod(range);
    expect(rangeDays(previous)).toBe(rangeDays(range));
    expect(Date.parse(`${previous.endDate}T00:00:00Z`) + 86_400_000).toBe(Date.parse(`${range.startDate}T00:00:00Z`));
  });
});

describe('gatherDigest against the demo API', () => {
  it('totals are every visit in the period, and in the previous period of the same length', async () => {
    for (const period of ['day', 'week', 'month'] as const) {
      const view = await gatherDigest(new SharedFetcher(api), spec({ period }), AT, OPTIONS);
      expect(view.totalsError).toBeUndefined();
      expect(view.period).toEqual(digestRange(period, 'Europe/Berlin', AT));
      expect(view.previous).toEqual(previousPeriod(view.period));
      expect(rangeDays(view.previous)).toBe(rangeDays(view.period));
      const visits = await visitCount(view.period);
      const previousVisits = await visitCount(view.previous);
      expect(visits).toBeGreaterThan(0);
      expect(previousVisits).toBeGreaterThan(0);
      expect(view.totals).toMatchObject({ visits, previousVisits });
      // Unique visitors are summed per country: at least the distinct visitors, at most the visits.
      const { rows } = await allRows(api, 'visitors', at(view.period));
      expect(view.totals!.unique).toBeGreaterThanOrEqual(rows.length);
      expect(view.totals!.unique).toBeLessThanOrEqual(visits);
    }
  });

  it('totals follow the digest’s filters', async () => {
    const [top] = await api.report('countries', { ...at(digestRange('week', 'Europe/Berlin', AT)), limit: 1 });
    const country = String(field(top!, 'name'));
    const filters: FilterGroup[] = [
      { filters: [{ object: 'country', field: 'name', operator: 'is_any_of', value: [country] }] },
    ];
    const view = await gatherDigest(new SharedFetcher(api), spec({ filters }), AT, OPTIONS);
    const all = await visitCount(view.period);
    const filtered = await visitCount(view.period, filters);
    expect(filtered).toBeLessThan(all);
    expect(view.totals).toMatchObject({ visits: filtered, previousVisits: await visitCount(view.previous, filters) });
    // Only that country in the countries section.
    expect(view.sections.find((s) => s.def.id === 'countries')?.lines?.map((l) => l.name)).toEqual([country]);
  });

  it('each report’s top N rows are the report’s first page, with their value in the previous period', async () => {
    const reports: ReportId[] = ['sources', 'pages', 'countries', 'browsers', 'cities'];
    const view = await gatherDigest(new SharedFetcher(api), spec({ reports, topN: 7 }), AT, OPTIONS);
    expect(view.sections.map((s) => s.def.id)).toEqual(reports);
    for (const section of view.sections) {
      const def = section.def;
      const nameField = def.rowFilter!.rowField;
      const countField = def.countField!;
      const rows = await api.report(def.id, { ...at(view.period), limit: 7, page: 1 });
      expect(section.error).toBeUndefined();
      expect(section.lines).toHaveLength(7);
      // Names as the report shows them: a page by its path.
      const shown = (r: ReportRow) =>
        def.kind === 'pages' ? shortUrl(String(field(r, nameField))) : field(r, nameField);
      expect(section.lines!.map((l) => [l.name, l.value])).toEqual(rows.map((r) => [shown(r), field(r, countField)]));
      // Their values before, from the whole previous period. A row found among the previous top 1,000 has
      // its value; one absent from a complete list was not there ("new"); past the top 1,000 it is unknown.
      const key = (r: ReportRow) => `${String(field(r, nameField))}|${textOf(field(r, 'label'))}`;
      const { rows: before, complete } = await allRows(api, def.id, at(view.previous));
      expect(complete).toBe(true);
      const full = new Map(before.map((r) => [key(r), field(r, countField) as number]));
      const top = new Set((await api.report(def.id, { ...at(view.previous), limit: 1000, page: 1 })).map(key));
      rows.forEach((row, i) => {
        const line = section.lines![i]!;
        const k = key(row);
        if (top.has(k)) expect(line.previous, `${def.id} ${k}`).toBe(full.get(k));
        else if (top.size < 1000) {
          expect(full.has(k), `${def.id} ${k}`).toBe(false);
          expect(line.previous, `${def.id} ${k}`).toBe(0);
        } else expect(line.previous, `${def.id} ${k}`).toBeUndefined();
      });
      expect(section.lines!.every((l) => typeof l.duration === 'number')).toBe(true);
    }
    const message = digestMessage(view);
    const verdict = validateMessage(message);
    expect(verdict.ok ? [] : verdict.reasons).toEqual([]);
    expect(mrkdwnOf(message).join('\n')).toMatch(/[▲▼]/);
  });

  it('two cities with one name are told apart: each compared with itself in the previous period', async () => {
    const filters: FilterGroup[] = [
      { filters: [{ object: 'city', field: 'name', operator: 'is_any_of', value: ['Paris', 'Springfield'] }] },
    ];
    const view = await gatherDigest(
      new SharedFetcher(api),
      spec({ reports: ['cities'], filters, topN: 10, period: 'month' }),
      AT,
      OPTIONS,
    );
    const now = await api.report('cities', { ...at(view.period, filters), limit: 10, page: 1 });
    const before = await api.report('cities', { ...at(view.previous, filters), limit: 1000, page: 1 });
    const labels = now.map((r) => String(field(r, 'label')));
    expect(new Set(now.map((r) => field(r, 'name'))).size).toBeLessThan(labels.length);
    const previousOf = new Map(before.map((r) => [String(field(r, 'label')), field(r, 'total_visits')]));
    const lines = view.sections[0]!.lines!;
    expect(lines.map((l) => l.name)).toEqual(now.map((r) => field(r, 'name')));
    expect(lines.map((l) => l.previous)).toEqual(labels.map((label) => previousOf.get(label) ?? 0));
  });

  it('a report without counts (visitors) lists its rows without claiming they are new', async () => {
    const view = await gatherDigest(
      new SharedFetcher(api),
      spec({ reports: ['visitors'], topN: 3, period: 'day' }),
      AT,
      OPTIONS,
    );
    const rows = await api.report('visitors', { ...at(view.period), limit: 3, page: 1 });
    const [section] = view.sections;
    expect(section?.lines?.map((l) => l.name)).toEqual(rows.map((r) => field(r, 'id')));
    expect(section?.lines?.every((l) => l.previous === undefined)).toBe(true);
    const text = mrkdwnOf(digestMessage(view)).find((t) => t.startsWith('*Visitors*'));
    expect(text).toBeDefined();
    expect(text).not.toMatch(/new|[▲▼]/);
    // And no request for the previous period of a report that has nothing to compare.
    const visitorRequests = demo.requests.filter((r) => r.path === '/visitors');
    expect(visitorRequests.map((r) => r.query.start_date)).toEqual([view.period.startDate, view.period.startDate]);
  });

  it('sections read as the reports do: pages by path, visits as times in the digest zone, "1 visit", no count for visits', async () => {
    const view = await gatherDigest(
      new SharedFetcher(api),
      spec({ reports: ['pages', 'visits'], topN: 5, period: 'week' }),
      AT,
      OPTIONS,
    );
    const text = mrkdwnOf(digestMessage(view)).join('\n');
    const pages = text.split('*Pages*')[1]!.split('*Visits*')[0]!;
    const visits = text.split('*Visits*').at(-1)!; // the section, not the totals field of the same name
    expect(pages).not.toMatch(/https?:\/\//);
    expect(pages).toMatch(/^1\. \/\S* · \*\d[\d,]*\* visits?/m);
    expect(visits).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(visits).toMatch(/^1\. [A-Z][a-z]{2} \d{1,2}, \d{2}:\d{2}$/m);
    expect(text).not.toMatch(/\b1\* visits\b/);
    // The rows are the API's days (UTC here); the visits' times are the digest's zone's.
    expect(text).toContain('days in UTC, as the analytics API counts them · times in Europe/Berlin');
    expect(text).not.toContain('days in Europe/Berlin');
  });

  it('a report whose data fails to load says so in its section; the rest still comes', async () => {
    demo.setFaults({ status500Until: 1000, paths: ['/pages'] });
    const faulty = tracked();
    const view = await gatherDigest(new SharedFetcher(faulty.api), spec(), AT, OPTIONS);
    await faulty.settled();
    const byId = new Map(view.sections.map((s) => [s.def.id, s]));
    expect(byId.get('pages')?.lines).toBeUndefined();
    expect(byId.get('pages')?.error).toMatch(/analytics API/);
    for (const id of ['sources', 'countries'] as const) {
      expect(byId.get(id)?.error).toBeUndefined();
      expect(byId.get(id)?.lines?.length).toBe(5);
    }
    expect(view.totals?.visits).toBeGreaterThan(0);
    // The API was really asked, and really failed.
    const pages = demo.requests.filter((r) => r.path === '/pages');
    expect(pages).toHaveLength(6); // now and before, 1 + 2 retries each
    expect(pages.every((r) => r.status === 500)).toBe(true);

    const message = digestMessage(view);
    const verdict = validateMessage(message);
    expect(verdict.ok ? [] : verdict.reasons).toEqual([]);
    const texts = mrkdwnOf(message);
    expect(texts.find((t) => t.startsWith('*Pages*'))).toMatch(/:warning: Could not load: The analytics API/);
    expect(texts.find((t) => t.startsWith('*Sources*'))).toMatch(/\n5\. /);
  });

  it('totals that fail to load say so; the sections still come', async () => {
    demo.setFaults({ status500Until: 1000, paths: ['/countries'] });
    const faulty = tracked();
    const view = await gatherDigest(new SharedFetcher(faulty.api), spec({ reports: ['sources'] }), AT, OPTIONS);
    await faulty.settled();
    expect(view.totals).toBeUndefined();
    expect(view.totalsError).toMatch(/analytics API/);
    expect(view.sections[0]?.lines).toHaveLength(5);
  });

  it('a failed request is not remembered: the next gathering asks again', async () => {
    const faulty = tracked();
    const fetcher = new SharedFetcher(faulty.api);
    demo.setFaults({ status500Until: 1000, paths: ['/pages'] });
    const failed = await gatherDigest(fetcher, spec(), AT, OPTIONS);
    expect(failed.sections.find((s) => s.def.id === 'pages')?.error).toBeDefined();
    await faulty.settled();
    const callsBefore = fetcher.calls;
    demo.setFaults({});
    const again = await gatherDigest(fetcher, spec(), AT, OPTIONS);
    expect(again.sections.find((s) => s.def.id === 'pages')?.lines).toHaveLength(5);
    // Only the two pages requests were made again; the rest came from the cache.
    expect(fetcher.calls - callsBefore).toBe(2);
  });
});

describe('identical queries across digests due in the same minute are fetched once', () => {
  it('two overlapping digests, one after the other: each distinct request made once', async () => {
    const fetcher = new SharedFetcher(api);
    const a = spec({ id: 1, reports: ['sources', 'pages'] });
    const b = spec({ id: 2, reports: ['sources', 'countries'] });
    await gatherDigest(fetcher, a, AT, OPTIONS);
    const afterFirst = demo.requests.length;
    // totals (countries now and before) + sources and pages (now and before: the first 1,000 rows each)
    expect(afterFirst).toBe(6);
    await gatherDigest(fetcher, b, AT, OPTIONS);
    const keys = requestKeys();
    // b adds nothing: its countries section asks what the totals asked (the first 1,000 rows, now and before),
    // and sources were shared.
    expect(keys).toHaveLength(6);
    expect(new Set(keys).size).toBe(6);
    expect(fetcher.calls).toBe(6);
    expect(demo.requests.every((r) => r.status === 200)).toBe(true);
    expect(demo.requests.filter((r) => r.path === '/traffic/sources')).toHaveLength(2);
  });

  it('many digests at once: the same requests still go out once', async () => {
    const fetcher = new SharedFetcher(api);
    const specs = Array.from({ length: 20 }, (_, i) =>
      spec({
        id: i + 1,
        reports: i % 2 === 0 ? ['sources', 'pages'] : ['pages', 'sources', 'countries'],
        timeZone: i % 4 === 0 ? 'Europe/Berlin' : 'Europe/Paris',
      }),
    );
    const views = await Promise.all(specs.map((s) => gatherDigest(fetcher, s, AT, OPTIONS)));
    const keys = requestKeys();
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(6);
    expect(fetcher.calls).toBe(6);
    // Everyone got the same answer.
    for (const view of views) expect(view.totals).toEqual(views[0]!.totals);
  });

  it('a digest whose dates differ (another zone already on the next day) is not served another digest’s rows', async () => {
    const fetcher = new SharedFetcher(api);
    const noon = new Date('2026-11-20T12:00:00Z');
    const berlin = await gatherDigest(fetcher, spec({ period: 'day', reports: ['sources'] }), noon, OPTIONS);
    const kiritimati = await gatherDigest(
      fetcher,
      spec({ period: 'day', reports: ['sources'], timeZone: 'Pacific/Kiritimati' }),
      noon,
      OPTIONS,
    );
    expect(berlin.period.startDate).toBe('2026-11-19');
    expect(kiritimati.period.startDate).toBe('2026-11-20');
    // Kiritimati's "before" (Nov 19) is Berlin's "now": those totals and sources are shared; nothing else is.
    expect(requestKeys()).toHaveLength(4 + 2);
    expect(new Set(requestKeys()).size).toBe(6);
    expect(fetcher.calls).toBe(6);
    expect(kiritimati.totals?.previousVisits).toBe(berlin.totals?.visits);
    expect(kiritimati.totals?.visits).toBe(await visitCount(kiritimati.period));
    expect(berlin.totals?.visits).toBe(await visitCount(berlin.period));
  });
});
