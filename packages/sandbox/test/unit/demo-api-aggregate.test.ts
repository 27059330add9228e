import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRows, paginate, REPORTS, sortRows, type ReportSpec } from '../../src/demo-api/aggregate.js';
import { generateDataset } from '../../src/demo-api/generate-dataset.js';
import { computeFacts, type Visit, type VisitEntry } from '../../src/demo-api/model.js';

const NOW = new Date('2026-11-20T13:45:12.000Z');
const data = generateDataset({ seed: 7, now: NOW, visitors: 200, visits: 2500, days: 30 });
const entries = data.entries;
const report = (path: string): ReportSpec => {
  const spec = REPORTS.get(path);
  if (!spec) throw new Error(`no report ${path}`);
  return spec;
};
const rowsOf = (path: string, list: readonly VisitEntry[] = entries) =>
  buildRows(report(path), list, (id) => data.getVisitor(id)) as unknown as Record<string, unknown>[];

/** The expected aggregate, computed the slow obvious way. */
function expected(keysOf: (v: Visit) => string[]) {
  const out = new Map<string, { total: number; visitors: Set<string>; duration: number }>();
  for (const v of data.visits) {
    for (const key of new Set(keysOf(v))) {
      const g = out.get(key) ?? { total: 0, visitors: new Set<string>(), duration: 0 };
      g.total += 1;
      g.visitors.add(v.visitor_id);
      g.duration += v.duration;
      out.set(key, g);
    }
  }
  return out;
}

describe('REPORTS', () => {
  it('has the 13 Marketing paths with the spec’s default sorts', () => {
    expect([...REPORTS.keys()].sort()).toEqual(
      [
        '/cities',
        '/countries',
        '/pages',
        '/states',
        '/traffic/campaigns',
        '/traffic/channels',
        '/traffic/sources',
        '/user-agent/browsers',
        '/user-agent/devices',
        '/user-agent/extensions',
        '/user-agent/os',
        '/visitors',
        '/visits',
      ].sort(),
    );
    for (const [path, spec] of REPORTS) {
      const key = path === '/pages' ? 'total' : path === '/visitors' || path === '/visits' ? 'created' : 'total_visits';
      expect(spec.defaultSort).toEqual({ key, value: -1 });
      expect(spec.sortKeys).toContain(key);
      expect(spec.sortKeys).toContain(spec.tiebreak);
    }
  });
});

describe('buildRows', () => {
  it.each([
    ['/countries', (v: Visit) => [v.location.country_code], (r: Record<string, unknown>) => r['label']],
    [
      '/states',
      (v: Visit) => [`${v.location.state}, ${v.location.country_code}`],
      (r: Record<string, unknown>) => r['label'],
    ],
    [
      '/cities',
      (v: Visit) => [`${v.location.city}, ${v.location.state}, ${v.location.country_code}`],
      (r: Record<string, unknown>) => r['label'],
    ],
    ['/traffic/sources', (v: Visit) => [v.trafficSource.source], (r: Record<string, unknown>) => r['name']],
    ['/traffic/channels', (v: Visit) => [v.trafficSource.channel], (r: Record<string, unknown>) => r['name']],
    [
      '/traffic/campaigns',
      (v: Visit) => (v.trafficSource.campaign === null ? [] : [v.trafficSource.campaign]),
      (r: Record<string, unknown>) => r['name'],
    ],
    ['/user-agent/browsers', (v: Visit) => [v.browser.name], (r: Record<string, unknown>) => r['name']],
    ['/user-agent/devices', (v: Visit) => [v.device.name], (r: Record<string, unknown>) => r['name']],
    ['/user-agent/os', (v: Visit) => [v.device.os.name], (r: Record<string, unknown>) => r['name']],
    ['/user-agent/extensions', (v: Visit) => v.browser.extensions, (r: Record<string, unknown>) => r['name']],
  ] as const)('%s counts visits, unique visitors and the average duration per group', (path, keysOf, keyOfRow) => {
    const want = expected(keysOf);
    const rows = rowsOf(path);
    expect(rows.length).toBe(want.size);
    for (const row of rows) {
      const g = want.get(String(keyOfRow(row)));
      expect(g, `row ${String(keyOfRow(row))}`).toBeDefined();
      expect(row['total_visits']).toBe(g!.total);
      expect(row['unique_visitors']).toBe(g!.visitors.size);
      expect(row['average_duration']).toBe(Math.round((g!.duration / g!.total) * 10) / 10);
    }
  });

  it('gives location rows exactly name, label and the three numbers; traffic rows add a UUID id', () => {
    for (const path of ['/countries', '/states', '/cities']) {
      for (const row of rowsOf(path))
        expect(Object.keys(row).sort()).toEqual([
          'average_duration',
          'label',
          'name',
          'total_visits',
          'unique_visitors',
        ]);
    }
    for (const path of ['/traffic/sources', '/traffic/channels', '/traffic/campaigns']) {
      for (const row of rowsOf(path)) {
        expect(Object.keys(row).sort()).toEqual([
          'average_duration',
          'id',
          'label',
          'name',
          'total_visits',
          'unique_visitors',
        ]);
        expect(row['id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      }
    }
    for (const path of ['/user-agent/browsers', '/user-agent/devices', '/user-agent/os', '/user-agent/extensions']) {
      for (const row of rowsOf(path))
        expect(Object.keys(row).sort()).toEqual(['average_duration', 'name', 'total_visits', 'unique_visitors']);
    }
  });

  it('labels countries by code, states as "State, CC" and cities as "City, State, CC"', () => {
    const v = data.visits[0]!;
    const { country, country_code: cc, state, city } = v.location;
    expect(rowsOf('/countries').find((r) => r['label'] === cc)?.['name']).toBe(country);
    expect(rowsOf('/states').find((r) => r['label'] === `${state}, ${cc}`)?.['name']).toBe(state);
    expect(rowsOf('/cities').find((r) => r['label'] === `${city}, ${state}, ${cc}`)?.['name']).toBe(city);
  });

  it('keeps same-named cities in different places apart', () => {
    const paris =
      data.visits.find((v) => v.location.city === 'Paris' && v.location.country_code === 'FR') ?? data.visits[0]!;
    const clone = (v: Visit, location: Visit['location'], id: string): VisitEntry => {
      const copy: Visit = { ...v, id, location };
      return { visit: copy, facts: computeFacts(copy) };
    };
    const list = [
      clone(paris, { country: 'France', country_code: 'FR', state: 'Île-de-France', city: 'Paris' }, 'a'),
      clone(paris, { country: 'United States', country_code: 'US', state: 'Texas', city: 'Paris' }, 'b'),
      clone(paris, { country: 'United States', country_code: 'US', state: 'Texas', city: 'Paris' }, 'c'),
    ];
    const rows = rowsOf('/cities', list);
    expect(rows.map((r) => [r['name'], r['label'], r['total_visits']]).sort()).toEqual([
      ['Paris', 'Paris, Texas, US', 2],
      ['Paris', 'Paris, Île-de-France, FR', 1],
    ]);
  });

  it('groups pages by the URL without its query string', () => {
    const want = expected((v) => [v.url.split('?')[0]!]);
    const rows = rowsOf('/pages');
    expect(rows.length).toBe(want.size);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['avg_duration', 'full_url', 'total', 'visitors']);
      expect(String(row['full_url'])).not.toContain('?');
      const g = want.get(String(row['full_url']))!;
      expect(row['total']).toBe(g.total);
      expect(row['visitors']).toBe(g.visitors.size);
    }
  });

  it('lists each visitor with a visit in the range once, and every visit', () => {
    const recent = data.entriesBetween('2026-11-18', '2026-11-20');
    const visitors = rowsOf('/visitors', recent);
    const ids = visitors.map((v) => v['id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(new Set(recent.map((e) => e.visit.visitor_id)));
    expect(rowsOf('/visits', recent)).toEqual(recent.map((e) => e.visit));
  });
});

describe('sortRows', () => {
  const rows = [
    { name: 'beta', label: 'B', total_visits: 5, unique_visitors: 1, average_duration: 3 },
    { name: 'Alpha', label: 'A', total_visits: 5, unique_visitors: 2, average_duration: 1 },
    { name: 'alpha', label: 'C', total_visits: 9, unique_visitors: 3, average_duration: 2 },
    { name: 'gamma', label: 'D', total_visits: 1, unique_visitors: 4, average_duration: 2 },
  ];
  const countries = report('/countries');

  it('sorts numbers numerically in both directions, ties by the tiebreak ascending', () => {
    expect(sortRows(countries, rows, { key: 'total_visits', value: -1 }).map((r) => r.label)).toEqual([
      'C',
      'A',
      'B',
      'D',
    ]);
    expect(sortRows(countries, rows, { key: 'total_visits', value: 1 }).map((r) => r.label)).toEqual([
      'D',
      'A',
      'B',
      'C',
    ]);
    expect(sortRows(countries, rows, { key: 'average_duration', value: 1 }).map((r) => r.label)).toEqual([
      'A',
      'C',
      'D',
      'B',
    ]);
  });

  it('sorts strings case-insensitively', () => {
    expect(sortRows(countries, rows, { key: 'name', value: 1 }).map((r) => r.name.toLowerCase())).toEqual([
      'alpha',
      'alpha',
      'beta',
      'gamma',
    ]);
    expect(sortRows(countries, rows, { key: 'name', value: -1 }).map((r) => r.name.toLowerCase())).toEqual([
      'gamma',
      'beta',
      'alpha',
      'alpha',
    ]);
  });

  it('sorts visitors and visits by created (first_seen, date)', () => {
    const visits = sortRows(report('/visits'), data.visits, { key: 'created', value: -1 });
    for (let i = 1; i < visits.length; i++) expect(visits[i - 1]!.date >= visits[i]!.date).toBe(true);
    const visitors = sortRows(report('/visitors'), data.visitors, { key: 'created', value: 1 });
    for (let i = 1; i < visitors.length; i++) expect(visitors[i - 1]!.first_seen <= visitors[i]!.first_seen).toBe(true);
  });

  it('is a permutation in the requested order, and does not touch its input (property)', () => {
    const row = fc.record({
      name: fc.string({ maxLength: 4 }),
      label: fc.string({ maxLength: 6 }),
      total_visits: fc.integer({ min: 0, max: 5 }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(row, { selector: (r) => r.label }),
        fc.constantFrom('name', 'label', 'total_visits'),
        fc.constantFrom(1 as const, -1 as const),
        (list, key, value) => {
          const before = JSON.stringify(list);
          const sorted = sortRows(countries, list, { key, value });
          if (JSON.stringify(list) !== before || sorted.length !== list.length) return false;
          if (new Set(sorted.map((r) => r.label)).size !== list.length) return false;
          return sorted.every((r, i) => {
            if (i === 0) return true;
            const a = sorted[i - 1]![key];
            const b = r[key];
            const cmp =
              typeof a === 'number'
                ? a - (b as number)
                : String(a).toLowerCase() < String(b).toLowerCase()
                  ? -1
                  : String(a).toLowerCase() > String(b).toLowerCase()
                    ? 1
                    : 0;
            return cmp * value <= 0;
          });
        },
      ),
    );
  });
});

describe('paginate', () => {
  it('pages concatenate to the whole list, and past the end is empty (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 60 }), fc.integer({ min: 1, max: 15 }), (list, limit) => {
        const pages: number[] = [];
        let page = 1;
        for (;;) {
          const chunk = paginate(list, page, limit);
          if (chunk.length === 0) break;
          if (chunk.length > limit) return false;
          pages.push(...chunk);
          page++;
        }
        return JSON.stringify(pages) === JSON.stringify(list) && paginate(list, page + 3, limit).length === 0;
      }),
    );
  });
});
