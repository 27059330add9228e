import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, redactUrl } from '../../../src/platform/store/db.js';
import { MIGRATIONS } from '../../../src/compose.js';
import { loadMigrations } from '../../../src/platform/store/migrate.js';

describe('redactUrl', () => {
  it('hides the password and keeps the rest', () => {
    expect(redactUrl('postgres://lookout:s3cret@db.internal:5432/lookout?sslmode=require')).toBe(
      'postgres://lookout:***@db.internal:5432/lookout?sslmode=require',
    );
  });

  it('leaves a URL without a password alone', () => {
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/test')).toBe('postgres://postgres@127.0.0.1:5432/test');
    expect(redactUrl('postgresql://host/db')).toBe('postgresql://host/db');
  });
});

describe('openDb', () => {
  it('needs a place to keep the data', async () => {
    await expect(openDb({})).rejects.toThrow('openDb needs a databaseUrl, a dataDir or memory: true');
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openDb({ memory: true, schema: 'x; DROP TABLE digests' })).rejects.toThrow('Invalid schema name');
  });

  it('names an unreachable PostgreSQL without its password', async () => {
    const error = await openDb({ databaseUrl: 'postgres://lookout:hunter2-s3cret@127.0.0.1:1/lookout' }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/^Cannot use PostgreSQL at postgres:\/\/lookout:\*\*\*@127\.0\.0\.1:1\/lookout: /);
    expect(`${error?.message} ${error?.stack}`).not.toContain('hunter2');
  });

  it('never shows the password of a URL it cannot even parse', async () => {
    const error = await openDb({ databaseUrl: 'postgres://lookout:hunter2%zz@127.0.0.1:1/lookout' }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(`${error?.message} ${error?.stack} ${JSON.stringify(error)}`).not.toContain('hunter2');
  });
});

describe('loadMigrations', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function folder(files: Record<string, string>): Promise<URL> {
    dir = await mkdtemp(join(tmpdir(), 'lookout-migrations-'));
    for (const [name, sql] of Object.entries(files)) await writeFile(join(dir, name), sql);
    return pathToFileURL(`${dir}/`);
  }

  it("finds the shipped migrations in the platform's folder and each feature's, one global number joining their parts", async () => {
    const migrations = await loadMigrations(MIGRATIONS);
    expect(migrations[0]).toMatchObject({ version: 1, name: 'initial' });
    expect(migrations[0]?.sql).toContain('CREATE TABLE job_claims');
    expect(migrations[0]?.sql).toContain('CREATE TABLE digests');
    expect(migrations.map((m) => m.version)).toEqual([...migrations.keys()].map((i) => i + 1));
  });

  it('joins the parts of one version in the order of their folders, and keeps the first part’s name', async () => {
    const platform = await folder({ '001_initial.sql': 'SELECT 1', '002_more.sql': 'SELECT 2' });
    const first = dir;
    const feature = await folder({ '002_feature.sql': 'SELECT 20', '003_later.sql': 'SELECT 3' });
    try {
      expect(await loadMigrations([platform, feature])).toEqual([
        { version: 1, name: 'initial', sql: 'SELECT 1' },
        { version: 2, name: 'more', sql: 'SELECT 2\nSELECT 20' },
        { version: 3, name: 'later', sql: 'SELECT 3' },
      ]);
    } finally {
      if (first) await rm(first, { recursive: true, force: true });
    }
  });

  it('orders by version number, not by name, and ignores other files', async () => {
    const url = await folder({
      '10_ten.sql': 'SELECT 10',
      '2_two.sql': 'SELECT 2',
      '001_one.sql': 'SELECT 1',
      'README.md': '#',
    });
    expect((await loadMigrations([url])).map((m) => [m.version, m.name])).toEqual([
      [1, 'one'],
      [2, 'two'],
      [10, 'ten'],
    ]);
  });

  it('refuses two files with the same version', async () => {
    const url = await folder({ '001_a.sql': 'SELECT 1', '1_b.sql': 'SELECT 1' });
    await expect(loadMigrations([url])).rejects.toThrow('Two migration files have version 1');
  });

  it('says the build must copy the folder when it is missing', async () => {
    await expect(loadMigrations([new URL('file:///nonexistent/lookout/migrations/')])).rejects.toThrow(
      'the build must copy every migrations folder to dist/',
    );
  });
});
