import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashString, mulberry32, Random, uuidFromName, WeightedTable } from '../../src/demo-api/random.js';

const take = (rng: Random, n: number) => Array.from({ length: n }, () => rng.next());

describe('Random', () => {
  it('repeats its sequence for the same seed and differs for another', () => {
    expect(take(new Random(7), 50)).toEqual(take(new Random(7), 50));
    expect(take(new Random(7), 50)).not.toEqual(take(new Random(8), 50));
    expect(take(new Random('abc'), 5)).toEqual(take(new Random(hashString('abc')), 5));
  });

  it('gives floats in [0, 1)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const gen = mulberry32(seed);
        for (let i = 0; i < 200; i++) {
          const x = gen();
          if (!(x >= 0 && x < 1)) return false;
        }
        return true;
      }),
    );
  });

  it('int stays inside its inclusive bounds and reaches both ends', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 0, max: 20 }),
        (seed, min, width) => {
          const rng = new Random(seed);
          const seen = new Set<number>();
          for (let i = 0; i < 400; i++) {
            const n = rng.int(min, min + width);
            if (!Number.isInteger(n) || n < min || n > min + width) return false;
            seen.add(n);
          }
          return width > 8 || (seen.has(min) && seen.has(min + width));
        },
      ),
    );
  });

  it('refuses to pick from nothing', () => {
    const rng = new Random(1);
    expect(() => rng.pick([])).toThrow(RangeError);
    expect(() => rng.weighted([])).toThrow(RangeError);
    expect(() => rng.weighted([['a', 0]])).toThrow(RangeError);
    expect(() => new WeightedTable([['a', 0]])).toThrow(RangeError);
  });

  it('weighted picks follow the weights', () => {
    const rng = new Random(3);
    const table = new WeightedTable([
      ['a', 1],
      ['b', 3],
      ['never', 0],
    ] as const);
    let b = 0;
    let linearB = 0;
    for (let i = 0; i < 20_000; i++) {
      const x = table.sample(rng);
      expect(x).not.toBe('never');
      if (x === 'b') b++;
      if (
        rng.weighted([
          ['a', 1],
          ['b', 3],
        ] as const) === 'b'
      )
        linearB++;
    }
    expect(b / 20_000).toBeGreaterThan(0.73);
    expect(b / 20_000).toBeLessThan(0.77);
    expect(linearB / 20_000).toBeGreaterThan(0.73);
    expect(linearB / 20_000).toBeLessThan(0.77);
  });

  it('sample gives distinct items', () => {
    fc.assert(
      fc.property(fc.integer(), fc.uniqueArray(fc.string(), { maxLength: 10 }), fc.nat(12), (seed, items, count) => {
        const picked = new Random(seed).sample(items, count);
        return (
          picked.length === Math.min(count, items.length) &&
          new Set(picked).size === picked.length &&
          picked.every((p) => items.includes(p))
        );
      }),
    );
  });

  it('makes version-4 UUIDs, and the same UUID for the same name', () => {
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const rng = new Random(9);
    for (let i = 0; i < 100; i++) expect(rng.uuid()).toMatch(v4);
    expect(uuidFromName('source:google')).toMatch(v4);
    expect(uuidFromName('source:google')).toBe(uuidFromName('source:google'));
    expect(uuidFromName('source:google')).not.toBe(uuidFromName('source:bing'));
  });

  it('forks streams that do not disturb the parent or each other', () => {
    const a = new Random(5);
    const b = new Random(5);
    const forkA = a.fork('x');
    a.fork('y');
    expect(take(a, 10)).toEqual(take(b, 10));
    expect(take(forkA, 10)).toEqual(take(new Random(5).fork('x'), 10));
    expect(take(new Random(5).fork('x'), 10)).not.toEqual(take(new Random(5).fork('y'), 10));
  });

  it('normal deviates have mean ≈ 0 and variance ≈ 1', () => {
    const rng = new Random(11);
    const xs = Array.from({ length: 20_000 }, () => rng.normal());
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
    expect(Math.abs(mean)).toBeLessThan(0.05);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });
});
