import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { decodeQuery, encodeQuery, type ReportCatalog, type ReportQuery } from '../../kernel/query.js';

/**
 * Where a long query waits while its message is on screen. A query that fits
 * travels inside the message (button value or block_id); one that does not is
 * kept here and the message carries `@<id>`.
 */
export interface QueryStash {
  put(encoded: string): Promise<string>;
  get(id: string): Promise<string | undefined>;
}

/** The in-process stash: bounded, and forgotten on restart (the message then asks to run the command again). */
export class MemoryQueryStash implements QueryStash {
  private readonly cache = new LRUCache<string, string>({ max: 10_000, ttl: 24 * 60 * 60 * 1000 });

  async put(encoded: string): Promise<string> {
    const id = randomBytes(9).toString('base64url');
    this.cache.set(id, encoded);
    return id;
  }

  async get(id: string): Promise<string | undefined> {
    return this.cache.get(id);
  }
}

const STASH_PREFIX = '@';

export class QueryRefs {
  constructor(
    private readonly stash: QueryStash,
    private readonly catalog: ReportCatalog,
  ) {}

  /** A reference to `query` at most `max` characters long. */
  async ref(query: ReportQuery, max: number): Promise<string> {
    const encoded = encodeQuery(query);
    if (encoded.length <= max && !encoded.startsWith(STASH_PREFIX)) return encoded;
    return STASH_PREFIX + (await this.stash.put(encoded));
  }

  /** The query a reference stands for, or null when it is tampered with, garbled or forgotten. */
  async resolve(ref: string | undefined): Promise<ReportQuery | null> {
    if (!ref) return null;
    if (ref.startsWith(STASH_PREFIX)) {
      const encoded = await this.stash.get(ref.slice(STASH_PREFIX.length));
      return encoded === undefined ? null : decodeQuery(encoded, this.catalog);
    }
    return decodeQuery(ref, this.catalog);
  }
}
