import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { VisitRecord } from '../../../src/kernel/records.js';
import { advance } from '../../../src/features/threats/pass.js';

const T0 = Date.parse('2026-11-21T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);
const visit = (id: string, seconds: number): VisitRecord => ({
  id,
  visitor_id: `v_${id}`,
  date: at(seconds).toISOString(),
});

describe('advance', () => {
  it('moves the watermark to the newest visit, and keeps exactly the ids at that instant', () => {
    const fresh = [visit('a', 5), visit('b', 9), visit('c', 7), visit('d', 9), visit('e', 1)];
    const next = advance(at(0), ['old1', 'old2'], fresh);
    expect(next.watermark).toEqual(at(9));
    expect([...next.seenIds].sort()).toEqual(['b', 'd']);
  });

  it('a single newest visit: its id alone (older seen ids are dropped)', () => {
    const next = advance(at(0), ['x', 'y'], [visit('a', 3), visit('b', 4)]);
    expect(next).toEqual({ watermark: at(4), seenIds: ['b'] });
  });

  it('merges the ids when the newest visits are at the old watermark instant', () => {
    // The previous scan saw x and y at t=10; this one found z at the same instant (and nothing newer).
    const next = advance(at(10), ['x', 'y'], [visit('z', 10)]);
    expect(next.watermark).toEqual(at(10));
    expect([...next.seenIds].sort()).toEqual(['x', 'y', 'z']);
  });

  it('merging does not repeat an id', () => {
    const next = advance(at(10), ['x', 'y'], [visit('y', 10), visit('z', 10)]);
    expect([...next.seenIds].sort()).toEqual(['x', 'y', 'z']);
  });

  it('no visits: the watermark and the seen ids stay', () => {
    const next = advance(at(10), ['x', 'y'], []);
    expect(next.watermark).toEqual(at(10));
    expect(next.watermark.getTime()).toBe(at(10).getTime());
    expect(next.seenIds).toEqual(['x', 'y']);
    expect(advance(at(10), [], [])).toEqual({ watermark: at(10), seenIds: [] });
  });

  it('keeps millisecond precision', () => {
    const a: VisitRecord = { id: 'a', date: '2026-11-21T12:00:00.001Z' };
    const b: VisitRecord = { id: 'b', date: '2026-11-21T12:00:00.002Z' };
    const next = advance(at(0), [], [b, a]);
    expect(next.watermark.toISOString()).toBe('2026-11-21T12:00:00.002Z');
    expect(next.seenIds).toEqual(['b']);
  });

  it('does not change its inputs', () => {
    const seen = ['x'];
    const fresh = [visit('a', 1)];
    const copy = structuredClone(fresh);
    advance(at(0), seen, fresh);
    expect(seen).toEqual(['x']);
    expect(fresh).toEqual(copy);
  });

  it('property: the watermark never moves back; the seen ids are exactly the visits at it (plus the old ones if it stayed)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20 }),
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 5 }),
        fc.uniqueArray(
          fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), s: fc.integer({ min: 0, max: 20 }) }),
          { selector: (v) => v.id, maxLength: 30 },
        ),
        (w, seen, raw) => {
          // As the threat scan calls it: only visits at or after the watermark.
          const fresh = raw.filter((v) => v.s >= w).map((v) => visit(v.id, v.s));
          const next = advance(at(w), seen, fresh);
          const newest = Math.max(w, ...fresh.map((v) => Date.parse(v.date!) / 1000 - T0 / 1000));
          expect(next.watermark.getTime()).toBe(at(newest).getTime());
          const atNewest = fresh.filter((v) => Date.parse(v.date!) === at(newest).getTime()).map((v) => v.id!);
          const expected = newest === w ? new Set([...seen, ...atNewest]) : new Set(atNewest);
          expect(new Set(next.seenIds)).toEqual(expected);
          expect(next.seenIds).toHaveLength(expected.size);
        },
      ),
    );
  });
});
