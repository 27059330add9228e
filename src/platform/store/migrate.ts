/**
 * Applies the numbered SQL files (001_initial.sql, 002_…) of the platform's folder and of each
 * feature's `migrations/` folder, by one global number: the parts of one number (the platform's
 * first, then the features' in their order) run together in one transaction, recorded once in
 * schema_migrations. A store made before the features kept their own SQL migrates in the same order.
 *
 * The files are read at run time, so the build copies every migrations folder to dist/ (tsc does not).
 *
 * Several replicas may start at once: each migration runs under a transaction-scoped
 * advisory lock (PGlite supports it too) and re-checks whether it was applied meanwhile.
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Db, Queryable } from './db.js';

/** The platform's own migrations. */
export const PLATFORM_MIGRATIONS = new URL('./migrations/', import.meta.url);

/** Any constant shared by every replica; "Look" in ASCII. */
const MIGRATION_LOCK = 0x4c6f6f6b;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE_NAME = /^(\d+)_([\w-]+)\.sql$/;

/** The migrations of these folders, by version, the parts of one version joined in the folders' order. */
export async function loadMigrations(dirs: readonly URL[]): Promise<Migration[]> {
  const byVersion = new Map<number, Migration>();
  for (const dir of dirs) {
    for (const part of await loadFolder(dir)) {
      const seen = byVersion.get(part.version);
      byVersion.set(part.version, seen ? { ...seen, sql: `${seen.sql}\n${part.sql}` } : part);
    }
  }
  return [...byVersion.values()].sort((a, b) => a.version - b.version);
}

/** The migration files of a folder, by version; other files are ignored. */
async function loadFolder(dir: URL): Promise<Migration[]> {
  const path = fileURLToPath(dir);
  let files: string[];
  try {
    files = await readdir(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Cannot read the migrations folder ${path} (the build must copy every migrations folder to dist/): ${reason}`,
    );
  }
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE_NAME.exec(file);
    if (!match) continue;
    const [, version = '', name = ''] = match;
    migrations.push({ version: Number(version), name, sql: await readFile(new URL(file, dir), 'utf8') });
  }
  migrations.sort((a, b) => a.version - b.version);
  const duplicate = migrations.find((m, i) => i > 0 && migrations[i - 1]?.version === m.version);
  if (duplicate) throw new Error(`Two migration files have version ${duplicate.version} in ${path}`);
  return migrations;
}

/** Applies the pending migrations; returns the versions this call applied. */
export async function migrate(db: Db, dirs: readonly URL[]): Promise<number[]> {
  const migrations = await loadMigrations(dirs);
  const seen = await appliedVersions(db);
  const applied: number[] = [];
  for (const migration of migrations) {
    if (seen.has(migration.version)) continue;
    const ran = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      // Another replica may have applied it while this one waited for the lock.
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (done.rows.length > 0) return false;
      await tx.query(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (ran) applied.push(migration.version);
  }
  return applied;
}

/** Versions already recorded; none when schema_migrations does not exist yet. */
export async function appliedVersions(db: Queryable): Promise<Set<number>> {
  const { rows } = await db.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  if (!rows[0]?.present) return new Set();
  const versions = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
  return new Set(versions.rows.map((r) => Number(r.version)));
}
