import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import {
  isStale,
  keyId,
  keyring,
  open,
  parseKey,
  reseal,
  seal,
  SecretError,
  sealedKeyId,
} from '../../../src/platform/secrets.js';

const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('hex');
const TOKEN = 'xoxb-1234-5678-abcdefSECRET';
const PURPOSE = 'installations.bot_token';

/** The error `fn` throws; fails when it throws none. */
function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

describe('parseKey', () => {
  it('takes 32 bytes as hex, base64 and base64url, padded or not', () => {
    const bytes = randomBytes(32);
    for (const text of [
      bytes.toString('hex'),
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=$/, ''),
      bytes.toString('base64url'),
    ]) {
      expect(parseKey(` ${text} `)?.equals(bytes)).toBe(true);
    }
  });

  it('refuses anything that is not 32 bytes', () => {
    for (const text of [
      '',
      'secret',
      randomBytes(16).toString('base64'),
      randomBytes(31).toString('hex'),
      randomBytes(33).toString('base64'),
      'z'.repeat(64),
    ]) {
      expect(parseKey(text)).toBeUndefined();
    }
  });
});

describe('seal and open', () => {
  const ring = keyring(NEW);

  it('round-trips, and a sealed value is versioned, names its key and holds no clear text', () => {
    const sealed = seal(ring, TOKEN, PURPOSE);
    expect(sealed).toMatch(/^v1:[0-9a-f]{8}:[\w-]+:[\w-]+:[\w-]+$/);
    expect(sealedKeyId(sealed, PURPOSE)).toBe(keyId(parseKey(NEW)!));
    expect(sealed).not.toContain(TOKEN);
    expect(sealed).not.toContain('SECRET');
    expect(open(ring, sealed, PURPOSE)).toBe(TOKEN);
    // A fresh IV each time: the same value never seals the same way twice.
    expect(seal(ring, TOKEN, PURPOSE)).not.toBe(sealed);
    expect(open(ring, seal(ring, '', PURPOSE), PURPOSE)).toBe('');
  });

  it('refuses a tampered value, a value sealed for another purpose and something that is not sealed, never printing it', () => {
    const sealed = seal(ring, TOKEN, PURPOSE);
    const [v, id, iv, tag, body = ''] = sealed.split(':');
    const flipped = (body[0] === 'A' ? 'B' : 'A') + body.slice(1);
    const cases = [
      [v, id, iv, tag, flipped].join(':'),
      [v, id, iv, (tag![0] === 'A' ? 'B' : 'A') + tag!.slice(1), body].join(':'),
      [v, id, iv, tag, body + 'AA'].join(':'),
    ];
    for (const bad of cases) {
      const error = errorOf(() => open(ring, bad, PURPOSE));
      expect(error).toBeInstanceOf(SecretError);
      expect(error.message).toMatch(/was altered, or sealed for something else/);
      expect(error.message).not.toContain(bad);
      expect(error.message).not.toContain(TOKEN);
    }
    expect(errorOf(() => open(ring, sealed, 'installations.user_token')).message).toMatch(
      /altered, or sealed for something else/,
    );
    for (const notSealed of [TOKEN, 'v2:' + sealed.slice(3), sealed.split(':').slice(0, 4).join(':')]) {
      const error = errorOf(() => open(ring, notSealed, PURPOSE));
      expect(error.message).toMatch(/is not a sealed value/);
      expect(error.message).not.toContain(TOKEN);
      expect(error.message).not.toContain(notSealed);
    }
  });

  it('refuses a value sealed under a key it does not hold, naming the key ids only', () => {
    const sealed = seal(keyring(OLD), TOKEN, PURPOSE);
    const error = errorOf(() => open(ring, sealed, PURPOSE));
    expect(error.message).toBe(
      `The stored ${PURPOSE} is sealed with key ${keyId(parseKey(OLD)!)}, which is neither LOOKOUT_ENCRYPTION_KEY (${keyId(parseKey(NEW)!)}) nor in LOOKOUT_ENCRYPTION_KEY_PREVIOUS`,
    );
    for (const secret of [OLD, NEW, TOKEN, sealed]) expect(error.message).not.toContain(secret);
  });
});

describe('rotation', () => {
  it('opens old values with a previous key, re-seals them under the current one, and they open once the old key is gone', () => {
    const before = seal(keyring(OLD), TOKEN, PURPOSE);
    const rotating = keyring(NEW, [OLD]);
    expect(open(rotating, before, PURPOSE)).toBe(TOKEN);
    expect(isStale(rotating, before, PURPOSE)).toBe(true);

    const after = reseal(rotating, before, PURPOSE);
    expect(isStale(rotating, after, PURPOSE)).toBe(false);
    expect(reseal(rotating, after, PURPOSE)).toBe(after);

    const rotated = keyring(NEW);
    expect(open(rotated, after, PURPOSE)).toBe(TOKEN);
    expect(() => open(rotated, before, PURPOSE)).toThrow(SecretError);
  });

  it('ignores the current key listed among the previous ones', () => {
    expect(keyring(NEW, [NEW, OLD]).previous.map((k) => k.id)).toEqual([keyId(parseKey(OLD)!)]);
  });

  it('names the variable, not the value, when a key is not a key', () => {
    const error = errorOf(() => keyring(NEW, ['not-a-key-but-a-secret']));
    expect(error.message).toBe(
      'LOOKOUT_ENCRYPTION_KEY_PREVIOUS: expected 32 random bytes in base64 or hex (make one with: openssl rand -base64 32)',
    );
  });
});

describe('the encryption keys in the configuration', () => {
  it('are absent unless set, and read as a keyring when set', () => {
    expect(loadConfig({}).encryption).toBeUndefined();
    const ring = loadConfig({ LOOKOUT_ENCRYPTION_KEY: NEW, LOOKOUT_ENCRYPTION_KEY_PREVIOUS: ` ${OLD} , ` }).encryption;
    expect(ring?.current.id).toBe(keyId(parseKey(NEW)!));
    expect(ring?.previous.map((k) => k.id)).toEqual([keyId(parseKey(OLD)!)]);
  });

  it('reports a bad key by name and how to make one, never echoing it', () => {
    const badKey = 'hunter2-my-secret-passphrase';
    const badOld = randomBytes(20).toString('base64');
    const error = errorOf(() =>
      loadConfig({ LOOKOUT_ENCRYPTION_KEY: badKey, LOOKOUT_ENCRYPTION_KEY_PREVIOUS: `${OLD},${badOld}` }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'LOOKOUT_ENCRYPTION_KEY: expected 32 random bytes in base64 or hex (make one with: openssl rand -base64 32)',
      'LOOKOUT_ENCRYPTION_KEY_PREVIOUS: expected a comma-separated list of old keys, each 32 random bytes in base64 or hex (make one with: openssl rand -base64 32)',
    ]);
    for (const secret of [badKey, badOld, OLD]) expect(error.message).not.toContain(secret);
  });

  it('wants the current key when old ones are given', () => {
    expect(() => loadConfig({ LOOKOUT_ENCRYPTION_KEY_PREVIOUS: OLD })).toThrow(
      'LOOKOUT_ENCRYPTION_KEY: required with LOOKOUT_ENCRYPTION_KEY_PREVIOUS (the key that seals from now on)',
    );
  });
});
