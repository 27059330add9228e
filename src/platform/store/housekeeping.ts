import type { Logger } from '../log.js';

const HOUR = 3_600_000;

/** One table that only grows: deletes what is older than its age, returns how many rows went. */
export interface Prune {
  name: string;
  olderThanMs: number;
  prune(olderThan: Date): Promise<number>;
}

/** Trims each table once; how many rows each lost. */
export async function housekeep(prunes: readonly Prune[], now: Date): Promise<Record<string, number>> {
  const counts = await Promise.all(prunes.map((p) => p.prune(new Date(now.getTime() - p.olderThanMs))));
  return Object.fromEntries(prunes.map((p, i) => [p.name, counts[i] ?? 0]));
}

/** Trims each table once an hour. A failure is logged and tried again the next hour. */
export function startHousekeeping(prunes: readonly Prune[], log: Logger, now: () => Date, everyMs = HOUR): () => void {
  const run = () =>
    housekeep(prunes, now()).then(
      (counts) => {
        if (Object.values(counts).some((n) => n > 0)) log.debug(counts, 'housekeeping');
      },
      (error: unknown) => log.warn({ err: error instanceof Error ? error.message : String(error) }, 'housekeeping failed; it runs again next time'),
    );
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
