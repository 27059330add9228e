/**
 * Secrets at rest: AES-256-GCM under a key from the environment (LOOKOUT_ENCRYPTION_KEY).
 *
 * A sealed value is `v1:<key id>:<iv>:<tag>:<ciphertext>` (base64url parts). The key id is the first
 * 8 hex digits of the key's SHA-256, so a value names the key that opens it: the current key, or one of
 * the previous keys (LOOKOUT_ENCRYPTION_KEY_PREVIOUS) kept while a rotation re-seals what is stored.
 * The purpose (e.g. `installations.bot_token`) is bound in as additional data: a value copied into
 * another column does not open there.
 *
 * No error here carries a key or a value, sealed or open.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export const KEY_SHAPE = `${KEY_BYTES} random bytes in base64 or hex (make one with: openssl rand -base64 32)`;
export const KEY_HINT = `expected ${KEY_SHAPE}`;

interface Key {
  id: string;
  bytes: Buffer;
}

/** The key that seals, and the keys that still open. */
export interface Keyring {
  readonly current: Key;
  readonly previous: readonly Key[];
}

export class SecretError extends Error {
  override readonly name = 'SecretError';
}

/** 32 bytes from 64 hex digits or base64 (standard or url-safe, padded or not); undefined for anything else. */
export function parseKey(text: string): Buffer | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) return undefined;
  const bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === KEY_BYTES ? bytes : undefined;
}

/** The first 8 hex digits of the key's SHA-256: names a key without revealing it. */
export function keyId(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 8);
}

/** A keyring from the environment's texts; throws SecretError naming the variable (never the value) if one is not a key. */
export function keyring(current: string, previous: readonly string[] = []): Keyring {
  const key = (text: string, name: string): Key => {
    const bytes = parseKey(text);
    if (!bytes) throw new SecretError(`${name}: ${KEY_HINT}`);
    return { id: keyId(bytes), bytes };
  };
  const now = key(current, 'LOOKOUT_ENCRYPTION_KEY');
  const old = previous.map((text) => key(text, 'LOOKOUT_ENCRYPTION_KEY_PREVIOUS')).filter((k) => k.id !== now.id);
  return { current: now, previous: old };
}

/** Seals `plain` under the current key for `purpose`. */
export function seal(ring: Keyring, plain: string, purpose: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', ring.current.bytes, iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
  return [VERSION, ring.current.id, ...parts].join(':');
}

interface Parsed {
  keyId: string;
  iv: Buffer;
  tag: Buffer;
  body: Buffer;
}

function parse(sealed: string, purpose: string): Parsed {
  const parts = sealed.split(':');
  const [version, id = '', iv = '', tag = '', body] = parts;
  const b64 = /^[A-Za-z0-9_-]*$/;
  if (
    parts.length !== 5 ||
    version !== VERSION ||
    !/^[0-9a-f]{8}$/.test(id) ||
    body === undefined ||
    ![iv, tag, body].every((p) => b64.test(p))
  ) {
    throw new SecretError(`The stored ${purpose} is not a sealed value (expected ${VERSION}:<key id>:…)`);
  }
  const parsed = {
    keyId: id,
    iv: Buffer.from(iv, 'base64url'),
    tag: Buffer.from(tag, 'base64url'),
    body: Buffer.from(body, 'base64url'),
  };
  if (parsed.iv.length !== IV_BYTES || parsed.tag.length !== TAG_BYTES) {
    throw new SecretError(`The stored ${purpose} is not a sealed value (its IV or tag has the wrong length)`);
  }
  return parsed;
}

/** The key id a sealed value names; SecretError if it is not a sealed value. */
export function sealedKeyId(sealed: string, purpose: string): string {
  return parse(sealed, purpose).keyId;
}

/** The plain value; SecretError if no key of the ring opens it or it was altered. */
export function open(ring: Keyring, sealed: string, purpose: string): string {
  const p = parse(sealed, purpose);
  const key = [ring.current, ...ring.previous].find((k) => k.id === p.keyId);
  if (!key) {
    throw new SecretError(
      `The stored ${purpose} is sealed with key ${p.keyId}, which is neither LOOKOUT_ENCRYPTION_KEY (${ring.current.id}) nor in LOOKOUT_ENCRYPTION_KEY_PREVIOUS`,
    );
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, p.iv);
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(p.tag);
    return Buffer.concat([decipher.update(p.body), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretError(
      `The stored ${purpose} does not open with key ${key.id}: it was altered, or sealed for something else`,
    );
  }
}

/** True when `sealed` is under a key other than the current one (a rotation re-seals it). */
export function isStale(ring: Keyring, sealed: string, purpose: string): boolean {
  return sealedKeyId(sealed, purpose) !== ring.current.id;
}

/** `open` then `seal` under the current key; the same value when it is current already. */
export function reseal(ring: Keyring, sealed: string, purpose: string): string {
  return isStale(ring, sealed, purpose) ? seal(ring, open(ring, sealed, purpose), purpose) : sealed;
}
