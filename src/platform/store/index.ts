/** The store: one Db (PGlite or PostgreSQL), migrated, and its repositories. */
import { AlertMuteRepo, AlertRepo, AlertSubscriptionRepo, VisitorCheckRepo, WatchStateRepo } from '../../features/alerts/repo.js';
import { openDb, type Db, type OpenDbOptions } from './db.js';
import { DigestRunRepo } from '../../features/digests/runs.js';
import { DigestRepo } from '../../features/digests/repo.js';
import { LeaseRepo } from './leases.js';
import { migrate } from './migrate.js';
import { QueryStashRepo } from './query-stash.js';

export type {
  Alert,
  AlertClaim,
  AlertMute,
  AlertRaise,
  AlertSighting,
  AlertSubscription,
  AlertSubscriptionInput,
  AlertVisit,
  CheckName,
  Severity,
  VisitorCheck,
  VisitorCheckEntry,
  WatchCounts,
  WatchProgress,
  WatchState,
} from '../../features/alerts/repo.js';
export type { Db, OpenDbOptions, Queryable } from './db.js';
export type { Digest, DigestInput, DigestPatch, DigestSchedule } from '../../features/digests/repo.js';
export type { DigestRun, DigestRunStatus } from '../../features/digests/runs.js';
export type { LeaseHolder } from './leases.js';
export type { QueryStash } from './query-stash.js';
export { openDb, redactUrl } from './db.js';
export { migrate } from './migrate.js';
export { DigestRepo, DigestRunRepo, LeaseRepo, QueryStashRepo };
export { AlertMuteRepo, AlertRepo, AlertSubscriptionRepo, VisitorCheckRepo, WatchStateRepo };

export interface Store {
  db: Db;
  digests: DigestRepo;
  runs: DigestRunRepo;
  leases: LeaseRepo;
  stash: QueryStashRepo;
  alertSubscriptions: AlertSubscriptionRepo;
  alertMutes: AlertMuteRepo;
  alerts: AlertRepo;
  visitorChecks: VisitorCheckRepo;
  watchState: WatchStateRepo;
  close(): Promise<void>;
}

/** Repositories over an open Db (already migrated). */
export function createStore(db: Db): Store {
  return {
    db,
    digests: new DigestRepo(db),
    runs: new DigestRunRepo(db),
    leases: new LeaseRepo(db),
    stash: new QueryStashRepo(db),
    alertSubscriptions: new AlertSubscriptionRepo(db),
    alertMutes: new AlertMuteRepo(db),
    alerts: new AlertRepo(db),
    visitorChecks: new VisitorCheckRepo(db),
    watchState: new WatchStateRepo(db),
    close: () => db.close(),
  };
}

/** Opens the Db and applies pending migrations. */
export async function openStore(options: OpenDbOptions): Promise<Store> {
  const db = await openDb(options);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return createStore(db);
}
