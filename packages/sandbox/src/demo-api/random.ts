/**
 * A small seeded pseudo-random generator and the helpers the demo data needs.
 * Everything here is deterministic: the same seed gives the same sequence on
 * every machine (integer arithmetic only, no Math.random).
 */

/** FNV-1a over UTF-16 code units, finished with a murmur3-style avalanche. */
export function hashString(input: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < input.length; i++) {
    h ^= input.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: a fast 32-bit generator with a full 2^32 period. Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HEX = '0123456789abcdef';

export class Random {
  readonly seed: number;
  private readonly gen: () => number;
  private spareNormal: number | undefined;

  /** A string seed is hashed; a number is used as an unsigned 32-bit integer. */
  constructor(seed: number | string) {
    this.seed = typeof seed === 'string' ? hashString(seed) : Math.trunc(seed) >>> 0;
    this.gen = mulberry32(this.seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.gen();
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.gen() * (max - min + 1));
  }

  /** A float in [min, max). */
  float(min: number, max: number): number {
    return min + this.gen() * (max - min);
  }

  chance(probability: number): boolean {
    return this.gen() < probability;
  }

  /** A standard normal deviate (Box–Muller). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const spare = this.spareNormal;
      this.spareNormal = undefined;
      return spare;
    }
    const u = 1 - this.gen(); // (0, 1]
    const v = this.gen();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.gen() * items.length)] as T;
  }

  /** Weighted pick by linear scan; for hot paths build a WeightedTable once. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of entries) total += weight;
    if (!(total > 0)) throw new RangeError('weighted pick needs a positive total weight');
    let target = this.gen() * total;
    for (const [item, weight] of entries) {
      target -= weight;
      if (target < 0) return item;
    }
    return (entries[entries.length - 1] as readonly [T, number])[0];
  }

  /** `count` distinct items in random order (fewer if the list is shorter). */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = items.slice();
    const out: T[] = [];
    while (out.length < count && pool.length > 0) {
      const index = Math.floor(this.gen() * pool.length);
      out.push(pool.splice(index, 1)[0] as T);
    }
    return out;
  }

  /** `length` hex digits, 8 per draw (one draw is 32 random bits). */
  hex(length: number): string {
    let out = '';
    while (out.length < length)
      out += Math.floor(this.gen() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return out.slice(0, length);
  }

  /** `length` base-36 digits, 6 per draw (36^6 < 2^32). */
  base36(length: number): string {
    let out = '';
    while (out.length < length)
      out += Math.floor(this.gen() * 2_176_782_336)
        .toString(36)
        .padStart(6, '0');
    return out.slice(0, length);
  }

  /** A UUID in version-4 layout (random bits from this generator). */
  uuid(): string {
    const variant = HEX[8 + Math.floor(this.gen() * 4)];
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${variant}${this.hex(3)}-${this.hex(12)}`;
  }

  /** An independent generator derived from this one's seed and a label, so streams don't disturb each other. */
  fork(label: string): Random {
    return new Random(hashString(`${this.seed}/${label}`));
  }
}

/** Weighted sampling in O(log n) from a table built once. */
export class WeightedTable<T> {
  private readonly items: T[] = [];
  private readonly cumulative: number[] = [];
  private readonly total: number;

  constructor(entries: Iterable<readonly [T, number]>) {
    let total = 0;
    for (const [item, weight] of entries) {
      if (!(weight > 0)) continue;
      total += weight;
      this.items.push(item);
      this.cumulative.push(total);
    }
    if (this.items.length === 0) throw new RangeError('a weighted table needs at least one positive weight');
    this.total = total;
  }

  get size(): number {
    return this.items.length;
  }

  sample(rng: Random): T {
    const target = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] as number) > target) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo] as T;
  }
}

const namedUuids = new Map<string, string>();

/** A UUID that depends only on the name: the same name always gives the same id. */
export function uuidFromName(name: string): string {
  let id = namedUuids.get(name);
  if (id === undefined) {
    id = new Random(`uuid:${name}`).uuid();
    if (namedUuids.size < 10_000) namedUuids.set(name, id);
  }
  return id;
}
