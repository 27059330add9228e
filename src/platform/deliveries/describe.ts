import { formatDateTime, counted } from '../../kernel/format.js';
import type { Delivery } from './repo.js';

/** Where a delivery stands, in a few plain words, for status and lists ("retrying at Nov 23, 11:52 after 2 attempts (ratelimited)"). */
export function deliveryState(
  d: Pick<Delivery, 'status' | 'attempts' | 'nextAt' | 'error'>,
  timeZone: string,
  now: Date,
): string {
  const why = d.error ? ` (${d.error})` : '';
  switch (d.status) {
    case 'pending':
      return d.attempts === 0
        ? 'waiting to be posted'
        : `retrying at ${formatDateTime(new Date(d.nextAt).toISOString(), timeZone, now)} after ${counted(d.attempts, 'attempt')}${why}`;
    case 'sending':
      return `being posted (attempt ${d.attempts})`;
    case 'failed':
      return `failed${why}`;
    case 'posted':
      return 'posted';
  }
}
