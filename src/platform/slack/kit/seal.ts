import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Binds a value Lookout wrote into a view or message (a response_url in a modal's
 * private_metadata) to Lookout: a tag made with a key derived from the signing secret,
 * so a value read back is trusted only if Lookout wrote it.
 */
export interface Seal {
  tag(value: string): string;
  verify(value: string, tag: string | undefined): boolean;
}

export function seal(secret: string, purpose: string): Seal {
  const key = createHmac('sha256', secret).update(`lookout:${purpose}`).digest();
  const tag = (value: string) => createHmac('sha256', key).update(value).digest('base64url').slice(0, 22);
  return {
    tag,
    verify(value, given) {
      if (typeof given !== 'string') return false;
      const a = Buffer.from(tag(value));
      const b = Buffer.from(given);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
