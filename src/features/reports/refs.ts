import { decodeQuery, encodeQuery, type ReportQuery } from '../../kernel/query.js';
import type { ReportCatalog } from '../../kernel/catalog.js';
import type { QueryStash } from '../../platform/store/index.js';

const STASH_PREFIX = '@';

/**
 * Where a message's buttons and menus find their query again. A query that fits
 * travels inside the message (button value or block_id); one that does not is
 * kept in the store's stash and the message carries `@<id>`, found again only by the
 * workspace that stashed it.
 */
export class QueryRefs {
  constructor(
    private readonly stash: QueryStash,
    private readonly catalog: ReportCatalog,
  ) {}

  /** A reference to `query`, asked in workspace `team`, at most `max` characters long. */
  async ref(team: string, query: ReportQuery, max: number): Promise<string> {
    const encoded = encodeQuery(query);
    if (encoded.length <= max && !encoded.startsWith(STASH_PREFIX)) return encoded;
    return STASH_PREFIX + (await this.stash.put(team, encoded));
  }

  /** The query a reference from workspace `team` stands for, or null when it is tampered with, garbled, forgotten or another workspace's. */
  async resolve(team: string, ref: string | undefined): Promise<ReportQuery | null> {
    if (!ref) return null;
    if (ref.startsWith(STASH_PREFIX)) {
      const id = ref.slice(STASH_PREFIX.length);
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return null;
      const encoded = await this.stash.get(team, id);
      return encoded === undefined ? null : decodeQuery(encoded, this.catalog);
    }
    return decodeQuery(ref, this.catalog);
  }
}
