import type { Logger } from '../log.js';
import type { Store } from './index.js';

const HOUR = 3_600_000;

/**
 * Tables that only grow are trimmed once an hour: long queries of messages a
 * month old, security answers past reuse, and leases long expired.
 */
export function startHousekeeping(store: Store, log: Logger, options: { now: () => Date; recheckMs: number }): () => void {
  const run = async () => {
    const now = options.now().getTime();
    const [stash, checks, leases] = await Promise.all([
      store.stash.prune(new Date(now - 30 * 24 * HOUR)),
      store.visitorChecks.prune(new Date(now - Math.max(options.recheckMs, HOUR))),
      store.leases.pruneExpired(new Date(now - 24 * HOUR)),
    ]);
    if (stash + checks + leases > 0) log.debug({ stash, checks, leases }, 'housekeeping');
  };
  const timer = setInterval(() => run().catch((error: unknown) => log.warn({ err: String(error) }, 'housekeeping failed')), HOUR);
  timer.unref();
  return () => clearInterval(timer);
}
