import type { Logger } from '../log.js';

const HOUR = 3_600_000;

/** One table that only grows: deletes what is older than its age, returns how many rows went. */
export interface Prune {
  name: string;
  olderThanMs: number;
  prune(olderThan: Date): Promise<number>;
}

/** Trims each table once an hour. A failure is logged and tried again the next hour. */
export function startHousekeeping(prunes: readonly Prune[], log: Logger, now: () => Date): () => void {
  const run = async () => {
    const at = now().getTime();
    const counts = await Promise.all(prunes.map((p) => p.prune(new Date(at - p.olderThanMs))));
    if (counts.some((n) => n > 0)) log.debug(Object.fromEntries(prunes.map((p, i) => [p.name, counts[i]])), 'housekeeping');
  };
  const timer = setInterval(() => run().catch((error: unknown) => log.warn({ err: String(error) }, 'housekeeping failed')), HOUR);
  timer.unref();
  return () => clearInterval(timer);
}
