/** The store: one Db (PGlite or PostgreSQL), migrated, with the repositories every feature shares. */
import { openDb, unopenable, type Db, type OpenDbOptions } from './db.js';
import { LeaseRepo } from './leases.js';
import { migrate } from './migrate.js';
import { QueryStashRepo } from './query-stash.js';
import { ReplayRepo } from './replays.js';

export type { Db, OpenDbOptions, Queryable } from './db.js';
export type { QueryStash } from './query-stash.js';
export { DataDirError, inspectDataDir, openDb, redactUrl } from './db.js';
export { migrate, PLATFORM_MIGRATIONS } from './migrate.js';
export { LeaseRepo, QueryStashRepo, ReplayRepo };

export interface Store {
  db: Db;
  leases: LeaseRepo;
  stash: QueryStashRepo;
  close(): Promise<void>;
}

/** Opens the Db and applies pending migrations (every folder's). A store in memory starts from the migrated template. */
export async function openStore(options: OpenDbOptions & { migrations: readonly URL[] }): Promise<Store> {
  const db = await openDb(options.memory ? { ...options, memory: false, throwaway: true } : options);
  try {
    await migrate(db, options.migrations);
  } catch (error) {
    await db.close();
    // A data directory that opens but cannot be read (a damaged table) is refused in one line, as one that does not open.
    const dataDir = options.databaseUrl || options.memory || options.throwaway ? undefined : options.dataDir;
    throw dataDir ? unopenable(dataDir, error) : error;
  }
  return { db, leases: new LeaseRepo(db), stash: new QueryStashRepo(db), close: () => db.close() };
}
