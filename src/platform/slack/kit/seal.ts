import { createHmac, timingSafeEqual } from 'node:crypto';

/** The workspace (and organisation, where there is one) a sealed value belongs to. */
export interface SealedFor {
  team: string;
  enterprise?: string;
}

/**
 * Binds a value Lookout wrote into a view or message (a response_url in a modal's
 * private_metadata) to Lookout and to the workspace it was written for: a tag made with a key
 * derived from the signing secret, so a value read back is trusted only if Lookout wrote it, for
 * the workspace the request reading it comes from.
 */
export interface Seal {
  tag(value: string, where: SealedFor): string;
  verify(value: string, tag: string | undefined, where: SealedFor): boolean;
}

export function seal(secret: string, purpose: string): Seal {
  const key = createHmac('sha256', secret).update(`lookout:${purpose}`).digest();
  const tag = (value: string, where: SealedFor) =>
    createHmac('sha256', key)
      .update(JSON.stringify([where.team, where.enterprise ?? null, value]))
      .digest('base64url')
      .slice(0, 22);
  return {
    tag,
    verify(value, given, where) {
      if (typeof given !== 'string') return false;
      const a = Buffer.from(tag(value, where));
      const b = Buffer.from(given);
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
