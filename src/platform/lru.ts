import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `max` entries whose memory grows with what it holds. Given `max`,
 * lru-cache allocates its arrays for `max` entries when it is made (with a ttl, 1.9 MB for
 * 50,000 before the first entry, 190 kB for 5,000: a workspace's Slack directory or an
 * account's answers); counted as one of a size of `max` each, entries are allocated as they come.
 */
export function growingLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>, FC = unknown>(
  max: number,
  options: Omit<LRUCache.Options<K, V, FC>, 'max' | 'maxSize' | 'sizeCalculation'> = {},
): LRUCache<K, V, FC> {
  return new LRUCache<K, V, FC>({ ...options, maxSize: max, sizeCalculation: () => 1 });
}
