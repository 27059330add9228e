import { createHash } from 'node:crypto';

/**
 * An analytics account's name in the store: a hash of its base URL and key, so what is kept
 * of one account (finished trend periods) is never read for another, and the key itself is
 * never stored. The same URL with or without a trailing slash is one account.
 */
export function accountOf(baseUrl: string, apiKey: string): string {
  const url = baseUrl.trim().replace(/\/+$/, '');
  return createHash('sha256').update(`${url}\n${apiKey}`).digest('hex').slice(0, 24);
}
