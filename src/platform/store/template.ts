/**
 * The data directory template: PGlite initialised and migrated once, kept in node_modules'
 * cache for this PGlite and these migrations, and copied into each new data directory (much
 * faster than initialising one). A spare copy made at install is taken whole by the first start.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Lookout's tables are small: 4 MB of shared buffers instead of 128 MB, and small work
 * memory, keep PGlite's WASM heap small (bench/memory.ts).
 */
export const PGLITE_CONF = [
  'shared_buffers=4MB',
  'work_mem=1MB',
  'maintenance_work_mem=4MB',
  'temp_buffers=1MB',
  'wal_buffers=256kB',
];

const INIT_TIMEOUT_MS = 120_000;

/** The data directory template, made now if it is missing; undefined where it cannot be kept. */
export async function ensureTemplate(migrations: readonly URL[]): Promise<string | undefined> {
  const template = templateDir(migrations);
  if (!template) return undefined;
  if (!existsSync(join(template, 'PG_VERSION'))) await build(template, (dir) => initInChild(dir, migrations));
  return existsSync(join(template, 'PG_VERSION')) ? template : undefined;
}

/**
 * A copy of the template made beside it at install (`npm ci`), which the first start on a new
 * data directory takes whole, by renaming it, instead of copying 40 MB (most of a second of
 * `npm start` on a 2-core machine, bench/start.ts). Only one start can take it; the others copy.
 */
const spareOf = (template: string) => `${template}-spare`;

/** The template and its spare, made now if they are missing; false where they cannot be kept. */
export async function ensureSpare(migrations: readonly URL[]): Promise<boolean> {
  const template = await ensureTemplate(migrations);
  if (!template) return false;
  const spare = spareOf(template);
  if (!existsSync(join(spare, 'PG_VERSION')))
    await build(spare, async (dir) => cpSync(template, dir, { recursive: true }));
  return existsSync(join(spare, 'PG_VERSION'));
}

/** Makes `target` by `make` in a directory of its own beside it, renamed into place once made: never half made. */
async function build(target: string, make: (dir: string) => Promise<void>): Promise<void> {
  const building = `${target}.${process.pid}.tmp`;
  try {
    rmSync(building, { recursive: true, force: true });
    await make(building);
    renameSync(building, target);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
}

/** Moves the template's spare to an absent or empty `dataDir`; false where there is none. */
export function takeSpare(migrations: readonly URL[], dataDir: string): boolean {
  const template = templateDir(migrations);
  return template !== undefined && moveDir(spareOf(template), dataDir);
}

/** Moves `from` to an absent or empty `to` in one rename; false where it cannot (no `from`, `to` not empty, another file system). */
export function moveDir(from: string, to: string): boolean {
  try {
    mkdirSync(dirname(resolve(to)), { recursive: true });
    renameSync(from, to);
    return true;
  } catch {
    return false;
  }
}

export async function initInChild(dataDir: string, migrations: readonly URL[]): Promise<void> {
  const here = fileURLToPath(import.meta.url);
  const script = join(here, '..', `init-pglite${here.endsWith('.ts') ? '.ts' : '.js'}`);
  const folders = migrations.map((m) => m.href);
  const args = [...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), script, dataDir, ...folders];
  await promisify(execFile)(process.execPath, args, { timeout: INIT_TIMEOUT_MS, env: process.env }).catch(
    (error: { stderr?: string; message: string }) => {
      throw new Error(
        `Could not create the PGlite data directory ${dataDir}: ${(error.stderr || error.message).trim().slice(0, 500)}`,
      );
    },
  );
}

/** Where the template for this PGlite and these migrations lives; undefined when there is no node_modules to keep it in. */
export function templateDir(migrationFolders: readonly URL[]): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const entry = require.resolve('@electric-sql/pglite');
    const modules = entry.slice(0, entry.lastIndexOf('node_modules') + 'node_modules'.length);
    const hash = createHash('sha256')
      .update(readFileSync(join(modules, '@electric-sql', 'pglite', 'package.json')))
      .update(PGLITE_CONF.join(','));
    for (const folder of migrationFolders) {
      const path = fileURLToPath(folder);
      for (const file of readdirSync(path).sort()) hash.update(file).update(readFileSync(join(path, file)));
    }
    const dir = join(modules, '.cache', 'lookout');
    mkdirSync(dir, { recursive: true });
    return join(dir, `pgdata-${hash.digest('hex').slice(0, 16)}`);
  } catch {
    return undefined;
  }
}
