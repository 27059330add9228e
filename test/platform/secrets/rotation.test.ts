/**
 * A key rotation as an operator runs it: secrets sealed under the old key, a start with the new key
 * and the old one in LOOKOUT_ENCRYPTION_KEY_PREVIOUS re-seals them, and a start without the old key
 * then opens them. A start that holds no key for a stored secret stops, naming keys, never values.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyring } from '../../../src/platform/secrets.js';
import { InstallationRepo } from '../../../src/platform/slack/installations.js';
import { openStore } from '../../../src/platform/store/index.js';
import { sandbox } from '../../support/sandbox.js';
import { MIGRATIONS } from '../../../src/compose.js';

const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('hex');
const BOT_TOKEN = 'xoxb-rotation-secret-token';
const QUERY = { teamId: 'T0ROT', enterpriseId: undefined, isEnterpriseInstall: false } as const;

const dir = mkdtempSync(join(tmpdir(), 'lookout-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withStore<T>(fn: (db: Awaited<ReturnType<typeof openStore>>['db']) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir: dir, migrations: MIGRATIONS });
  try {
    return await fn(store.db);
  } finally {
    await store.close();
  }
}

describe('rotating LOOKOUT_ENCRYPTION_KEY', () => {
  it('re-seals at start under the new key, refuses to start without a key for a stored secret, and opens without the old key afterwards', async () => {
    await withStore((db) =>
      new InstallationRepo(db, keyring(OLD)).storeInstallation({
        team: { id: 'T0ROT' },
        enterprise: undefined,
        user: { id: 'U0ADMIN', token: undefined, scopes: undefined },
        bot: { token: BOT_TOKEN, scopes: ['commands'], id: 'B0', userId: 'U0BOT' },
        isEnterpriseInstall: false,
        authVersion: 'v2',
      }),
    );

    // The new key alone: the old secret does not open, and the start stops saying which key it needs.
    const refused = await sandbox({ store: { dataDir: dir }, encryption: keyring(NEW) }).then(
      async (box) => {
        await box.stop();
        return undefined;
      },
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toBe(
      `The stored installations.bot_token/team:T0ROT is sealed with key ${keyring(OLD).current.id}, which is neither LOOKOUT_ENCRYPTION_KEY (${keyring(NEW).current.id}) nor in LOOKOUT_ENCRYPTION_KEY_PREVIOUS`,
    );
    for (const secret of [OLD, NEW, BOT_TOKEN]) expect(refused?.message).not.toContain(secret);

    // The same from the command line: one line, exit code 1.
    const run = runMain({
      DATA_DIR: dir,
      LOOKOUT_ENCRYPTION_KEY: NEW,
      SLACK_SIGNING_SECRET: '8f742231b10e8888abcd99yyyzzz85a5',
      SLACK_BOT_TOKEN: 'xoxb-test',
      ANALYTICS_API_URL: 'http://127.0.0.1:9',
      ANALYTICS_API_KEY: 'k',
    });
    expect(run).toEqual({ status: 1, stdout: '', stderr: `${refused?.message}\n` });

    // The new key, and the old one as previous: the start re-seals, and says so without a secret.
    const box = await sandbox({ store: { dataDir: dir }, encryption: keyring(NEW, [OLD]) });
    try {
      const said = box.logs.filter((line) => line.includes('re-sealed stored secrets'));
      expect(said.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
        expect.objectContaining({ resealed: 1, key: keyring(NEW).current.id }),
      ]);
      for (const secret of [OLD, NEW, BOT_TOKEN]) expect(box.logs.join('\n')).not.toContain(secret);
    } finally {
      await box.stop();
    }

    // The old key removed: what was stored opens, under the new key only.
    await withStore(async (db) => {
      const { rows } = await db.query<{ bot_token: string }>('SELECT bot_token FROM installations');
      expect(rows.map((r) => r.bot_token.split(':').slice(0, 2).join(':'))).toEqual([`v1:${keyring(NEW).current.id}`]);
      const fetched = await new InstallationRepo(db, keyring(NEW)).fetchInstallation(QUERY);
      expect(fetched.bot?.token).toBe(BOT_TOKEN);
    });
  }, 120_000);
});

describe('node src/main.ts as a distributed app', () => {
  const DISTRIBUTED = {
    SLACK_CLIENT_ID: '1234567890.0987654321',
    SLACK_CLIENT_SECRET: 'client-secret-0123456789abcdef',
    SLACK_STATE_SECRET: 'state-secret-0123456789abcdef',
    SLACK_SIGNING_SECRET: 'signing-secret-0123',
    LOOKOUT_ENCRYPTION_KEY: NEW,
  };
  it('--check-config calls a distributed configuration ok', () => {
    expect(runMain({ ...DISTRIBUTED, ANALYTICS_API_URL: 'https://api.example.com' }, ['--check-config'])).toEqual({
      status: 0,
      stdout: 'configuration ok\n',
      stderr: '',
    });
  }, 60_000);
});

/** Runs src/main.ts to its exit (LOG_LEVEL silent: only what it prints itself). */
function runMain(env: Record<string, string>, args: string[] = []) {
  const { status, stdout, stderr } = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', PORT: '0', OPS_PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status, stdout, stderr };
}
