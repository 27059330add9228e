import type { Logger } from '../log.js';

const HOUR = 3_600_000;

/** One table that only grows: deletes what is older than its age, returns how many rows went. */
export interface Prune {
  name: string;
  olderThanMs: number;
  /** How often it runs, when not as often as the rest (replay keys: as often as their window). */
  everyMs?: number;
  prune(olderThan: Date): Promise<number>;
}

/** Trims each table once; how many rows each lost. */
export async function housekeep(prunes: readonly Prune[], now: Date): Promise<Record<string, number>> {
  const counts = await Promise.all(prunes.map((p) => p.prune(new Date(now.getTime() - p.olderThanMs))));
  return Object.fromEntries(prunes.map((p, i) => [p.name, counts[i] ?? 0]));
}

/** Trims each table every `everyMs` (an hour), or as often as its own `everyMs` says. A failure is logged and tried again next time. */
export function startHousekeeping(prunes: readonly Prune[], log: Logger, now: () => Date, everyMs = HOUR): () => void {
  const run = (group: readonly Prune[]) =>
    housekeep(group, now()).then(
      (counts) => {
        if (Object.values(counts).some((n) => n > 0)) log.debug(counts, 'housekeeping');
      },
      (error: unknown) =>
        log.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'housekeeping failed; it runs again next time',
        ),
    );
  const intervals = new Set(prunes.map((p) => p.everyMs ?? everyMs));
  const timers = [...intervals].map((ms) => {
    const group = prunes.filter((p) => (p.everyMs ?? everyMs) === ms);
    const timer = setInterval(() => void run(group), ms);
    timer.unref();
    return timer;
  });
  return () => timers.forEach((timer) => clearInterval(timer));
}
