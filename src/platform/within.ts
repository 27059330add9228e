/** A wait that ran out. */
export class TimedOut extends Error {
  override readonly name = 'TimedOut';
  constructor(readonly ms: number) {
    super(`did not answer within ${ms / 1000} s`);
  }
}

/**
 * `promise`'s outcome, or a rejection with `timedOut()` (a TimedOut by default) once `ms`
 * pass. The work itself goes on, unheard; the timer is cleared either way.
 */
export function within<T>(promise: Promise<T>, ms: number, timedOut: () => Error = () => new TimedOut(ms)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), Math.max(0, ms));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
