import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { REPORTS } from '../../src/kernel/catalog.js';
import { newQuery, withPage, withSort } from '../../src/kernel/query.js';
import { averageSortOf, minVisitsToRank, rankByAverage, rankedPage } from '../../src/kernel/ranking.js';

const page = (url: string, total: number, avg: number) => ({
  full_url: url,
  total,
  visitors: total,
  avg_duration: avg,
});
const byDuration = withSort(newQuery('pages'), { key: 'avg_duration', dir: 'desc' });

describe('ranking a report by time spent', () => {
  it('ranks by average only the sort by duration of a report with counts', () => {
    expect(averageSortOf(REPORTS.pages, byDuration)).toBe('avg_duration');
    expect(averageSortOf(REPORTS.pages, newQuery('pages'))).toBeUndefined();
    expect(averageSortOf(REPORTS.visits, withSort(newQuery('visits'), { key: 'date', dir: 'desc' }))).toBeUndefined();
  });

  it('needs 10 visits, and 1% of the report’s visits rounded up', () => {
    expect(minVisitsToRank(0)).toBe(10);
    expect(minVisitsToRank(1000)).toBe(10);
    expect(minVisitsToRank(2504)).toBe(26);
    expect(minVisitsToRank(10_346)).toBe(104);
  });

  it('leaves out a row of a few long visits, and pages the rest', () => {
    const rows = [page('/', 900, 60), page('/pricing', 60, 90), page('/docs', 30, 120), page('/blog/x', 3, 900)];
    const first = rankedPage(REPORTS.pages, { ...byDuration, top: 2 }, rows, true, 'avg_duration');
    expect(first.rows.map((r) => r.full_url)).toEqual(['/docs', '/pricing']);
    expect(first).toMatchObject({ ranking: { minVisits: 10, total: 993 }, more: true, barMax: 900 });
    const second = rankedPage(REPORTS.pages, withPage({ ...byDuration, top: 2 }, 2), rows, true, 'avg_duration');
    expect(second.rows.map((r) => r.full_url)).toEqual(['/']);
    expect(second.more).toBe(false);
    expect(rankedPage(REPORTS.pages, byDuration, [], true, 'avg_duration').ranking).toBeUndefined();
  });

  it('read in part, needs more visits than any row left unread could have', () => {
    const rows = [page('/', 500, 60), page('/a', 40, 90), page('/b', 12, 300)];
    const ranking = rankByAverage(REPORTS.pages, rows, false, 'avg_duration', 'desc');
    expect(ranking.minVisits).toBe(13);
    expect(ranking.total).toBeUndefined();
    expect(ranking.rows.map((r) => r.full_url)).toEqual(['/a', '/']);
  });

  it('never ranks a row under its minimum, in either order, and ranks every row over it', () => {
    const rows = fc.array(
      fc.record({ total: fc.integer({ min: 1, max: 5000 }), avg: fc.integer({ min: 0, max: 3600 }) }),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(rows, fc.boolean(), fc.constantFrom('asc' as const, 'desc' as const), (list, complete, dir) => {
        const sorted = list.map((r, i) => page(`/${i}`, r.total, r.avg)).sort((a, b) => b.total - a.total);
        const ranking = rankByAverage(REPORTS.pages, sorted, complete, 'avg_duration', dir);
        const { minVisits } = ranking;
        const ranked = ranking.rows as typeof sorted;
        expect(ranked.every((r) => r.total >= minVisits)).toBe(true);
        expect(ranked).toHaveLength(sorted.filter((r) => r.total >= minVisits).length);
        const avgs = ranked.map((r) => r.avg_duration);
        const ordered = [...avgs].sort((a, b) => (dir === 'asc' ? a - b : b - a));
        expect(avgs).toEqual(ordered);
      }),
    );
  });
});
