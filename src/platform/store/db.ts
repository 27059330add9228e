/**
 * One small Db interface over two drivers: PGlite (PostgreSQL in WASM, embedded,
 * the default) and a real PostgreSQL through a `pg` pool (DATABASE_URL).
 * Both speak the same SQL; repositories only ever see `query` and `transaction`.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import v8 from 'node:v8';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type pg from 'pg';
import { ensureTemplate, initInChild, PGLITE_CONF, takeSpare } from './template.js';

export interface Db {
  /**
   * Runs one statement with `$1…` parameters. Without parameters the text may hold
   * several statements (used for migrations); the rows of the last one are returned.
   */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /**
   * Runs fn in a transaction (BEGIN/COMMIT, ROLLBACK on throw) on ONE connection;
   * nested use is not needed. Inside fn use `tx`, never the Db itself: on PGlite
   * every other query waits for the transaction to end.
   */
  transaction<T>(fn: (tx: Pick<Db, 'query'>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly kind: 'pglite' | 'postgres';
}

/** What a repository needs: a Db or the `tx` of a transaction. */
export type Queryable = Pick<Db, 'query'>;

export interface OpenDbOptions {
  /** postgres://… : use a pg pool. Otherwise PGlite. */
  databaseUrl?: string;
  /** PGlite data directory, created if missing. */
  dataDir?: string;
  /** PGlite in memory, empty (takes precedence over dataDir). */
  memory?: boolean;
  /** pg pool size, default 5. */
  poolSize?: number;
  /** Schema to create if missing and use as search_path on every connection. */
  schema?: string;
  /** pg only: errors of idle pooled connections (the pool replaces them); credentials already redacted. */
  onError?: (error: Error) => void;
  /** pg only: how long to wait for a connection and for a query before giving up (default 5 s and 15 s). */
  timeouts?: { connectMs?: number; queryMs?: number };
  /** PGlite keeping nothing: a copy of the migrated template, removed on close (takes precedence over memory). */
  throwaway?: boolean;
  /** PGlite: create a missing data directory here rather than in a short-lived child process. */
  initInProcess?: boolean;
  /** PGlite: every migrations folder (the platform's and each feature's), to make a new data directory or the template with. */
  migrations?: readonly URL[];
}

export async function openDb(options: OpenDbOptions): Promise<Db> {
  const schema = options.schema === undefined ? undefined : checkSchemaName(options.schema);
  if (options.databaseUrl)
    return openPostgres(options.databaseUrl, options.poolSize ?? 5, schema, options.onError, options.timeouts ?? {});
  if (options.throwaway) return openThrowaway(schema, options.migrations ?? []);
  if (options.memory) return openPglite(undefined, schema);
  if (options.dataDir) {
    const dataDir = options.dataDir;
    if (!options.initInProcess) await initDataDir(dataDir, options.migrations ?? []);
    return openPglite(dataDir, schema).catch((error: unknown) => {
      throw unopenable(dataDir, error);
    });
  }
  throw new Error('openDb needs a databaseUrl, a dataDir or memory: true');
}

/** Schema names go into SQL text and connection options, so only plain identifiers are accepted. */
function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`Invalid schema name "${schema}": use lower-case letters, digits and _`);
  }
  return schema;
}

// ---------------------------------------------------------------- PGlite

/**
 * PGlite's WASM is compiled by V8's baseline compiler only. Left on, the optimising tier
 * recompiles hot postgres functions in the background: about 1 s of CPU and 50–90 MB
 * resident, for queries on Lookout's small tables that run as fast without it
 * (bench/memory.ts, docs/benchmarks.md). The flags are process-wide: undici's HTTP parser, WASM
 * too, runs on the baseline tier as well (about 0.02 ms a command at 300/s in a profile).
 * Setting them back once PGlite has started left it 25 MB of optimised code again.
 */
export function compileWasmBaselineOnly(): void {
  v8.setFlagsFromString('--no-wasm-dynamic-tiering --no-wasm-tier-up');
}

/**
 * A data directory Lookout will not open or overwrite. Its message is one line: the
 * directory, what is wrong, and what to do; nothing in the directory was changed.
 */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/** Written into a data directory before anything else and removed last: a start that finds it redoes the initialisation. */
const INITIALISING = '.lookout-initialising';

const WHAT_TO_DO = 'Nothing was changed: restore it from a backup, or set DATA_DIR to an empty or absent directory.';

/**
 * What is in a data directory: ready to open, new (absent or empty), or an initialisation
 * cut short. Anything else is someone's data (a damaged data directory, or another
 * program's files) and is refused.
 */
export function inspectDataDir(dataDir: string): 'ready' | 'new' | 'interrupted' {
  const where = `DATA_DIR ${resolve(dataDir)}`;
  let entries: string[];
  try {
    entries = readdirSync(dataDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'new';
    if (code === 'ENOTDIR') throw new DataDirError(`${where} is a file, not a directory. ${WHAT_TO_DO}`);
    throw new DataDirError(
      `${where} cannot be read (${code ?? String(error)}): give Lookout's user access to it, or set DATA_DIR to an empty or absent directory.`,
    );
  }
  if (entries.includes(INITIALISING)) return 'interrupted';
  if (entries.length === 0) return 'new';
  if (entries.includes('PG_VERSION')) return 'ready';
  const what =
    entries.includes('base') && entries.includes('global')
      ? 'a PostgreSQL data directory without its PG_VERSION file (damaged)'
      : `not empty and not a PostgreSQL data directory (it holds ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}: ${entries
          .slice(0, 3)
          .map((e) => JSON.stringify(e))
          .join(', ')}${entries.length > 3 ? ', …' : ''})`;
  throw new DataDirError(`${where} is ${what}; Lookout initialises only an empty or absent directory. ${WHAT_TO_DO}`);
}

/** PGlite could not open, or read, a data directory that has a PG_VERSION. */
export function unopenable(dataDir: string, error: unknown): DataDirError {
  let version = 'unreadable';
  try {
    version = JSON.stringify(readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim().slice(0, 20));
  } catch {
    // the message says it could not be read
  }
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return new DataDirError(
    `DATA_DIR ${resolve(dataDir)} could not be opened (PGlite: ${reason}): its files are damaged or were made by another PostgreSQL version (PG_VERSION ${version}). ${WHAT_TO_DO}`,
  );
}

/**
 * Only an absent or empty data directory is initialised (or one whose initialisation was
 * cut short, which the INITIALISING file says): a copy of a template, a data directory
 * made once (initdb and the migrations) by a short-lived child process and kept under
 * node_modules/.cache, keyed by the PGlite version and the migrations. initdb's WASM
 * instances would otherwise stay resident in the serving process (about 450 MB), and
 * initdb takes seconds (bench/memory.ts). Where the cache cannot be written, the child
 * makes a copy of its own in a temporary directory.
 */
async function initDataDir(dataDir: string, migrations: readonly URL[]): Promise<void> {
  const state = inspectDataDir(dataDir);
  if (state === 'ready' || (state === 'new' && takeSpare(migrations, dataDir))) return;
  mkdirSync(dataDir, { recursive: true });
  // Everything here is a copy Lookout started and did not finish.
  if (state === 'interrupted')
    for (const entry of readdirSync(dataDir))
      if (entry !== INITIALISING) rmSync(join(dataDir, entry), { recursive: true, force: true });
  writeFileSync(
    join(dataDir, INITIALISING),
    'Lookout is initialising this data directory. If this file is still here, that was cut short, and the next start does it again.\n',
  );
  const template = await ensureTemplate(migrations);
  if (template) {
    cpSync(template, dataDir, { recursive: true });
  } else {
    const made = mkdtempSync(join(tmpdir(), 'lookout-init-'));
    try {
      await initInChild(made, migrations);
      cpSync(made, dataDir, { recursive: true });
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  }
  rmSync(join(dataDir, INITIALISING));
}

/**
 * A store that keeps nothing: a copy of the template in a temporary directory, removed on
 * close (initdb in memory would stay resident, about 540 MB). Without a template, PGlite
 * in memory.
 */
async function openThrowaway(schema: string | undefined, migrations: readonly URL[]): Promise<Db> {
  const template = await ensureTemplate(migrations).catch(() => undefined);
  if (!template) return openPglite(undefined, schema);
  const dir = mkdtempSync(join(tmpdir(), 'lookout-store-'));
  try {
    cpSync(template, dir, { recursive: true });
    const db = await openPglite(dir, schema);
    return { ...db, close: () => db.close().finally(() => rmSync(dir, { recursive: true, force: true })) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function openPglite(dataDir: string | undefined, schema: string | undefined): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  compileWasmBaselineOnly();
  // Each driver is loaded only when it is used: importing pg holds 15 MB resident, PGlite 6 MB.
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create({ ...(dataDir ? { dataDir } : {}), postgresqlconf: PGLITE_CONF });
  // One connection: a SET lasts for the life of the instance.
  if (schema) await pglite.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);

  const queryOn =
    (target: PGlite | Transaction) =>
    async <R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> => {
      if (params?.length) return { rows: (await target.query<R>(sql, params)).rows };
      const results = await target.exec(sql);
      return { rows: (results.at(-1)?.rows ?? []) as R[] };
    };

  let closed = false;
  return {
    kind: 'pglite',
    query: queryOn(pglite),
    // PGlite's own transaction() holds its mutex: queries outside wait until it ends.
    transaction: (fn) => pglite.transaction((tx) => fn({ query: queryOn(tx) })),
    async close() {
      if (closed) return;
      closed = true;
      await pglite.close();
    },
  };
}

// ---------------------------------------------------------------- PostgreSQL

async function openPostgres(
  databaseUrl: string,
  poolSize: number,
  schema: string | undefined,
  onError: ((error: Error) => void) | undefined,
  timeouts: { connectMs?: number; queryMs?: number },
): Promise<Db> {
  const scrub = scrubber(databaseUrl);
  const { default: pgDriver } = await import('pg');
  // A database that stops answering (a partition, not a refusal) fails calls instead of holding them.
  const pool = new pgDriver.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    application_name: 'lookout',
    connectionTimeoutMillis: timeouts.connectMs ?? 5_000,
    query_timeout: timeouts.queryMs ?? 15_000,
    keepAlive: true,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  pool.on('error', (error) => onError?.(scrub(error)));

  try {
    if (schema) await createSchema(pool, schema);
    else await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    const reason = scrub(error).message;
    throw Object.assign(new Error(`Cannot use PostgreSQL at ${redactUrl(databaseUrl)}: ${reason}`), {
      code: (error as { code?: unknown }).code,
    });
  }

  const queryOn =
    (target: pg.Pool | pg.PoolClient) =>
    async <R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> => {
      try {
        const result: pg.QueryResult | pg.QueryResult[] = await target.query(sql, params);
        // Several statements without parameters give one result each.
        const last = Array.isArray(result) ? (result as pg.QueryResult[]).at(-1) : result;
        return { rows: (last?.rows ?? []) as R[] };
      } catch (error) {
        throw scrub(error);
      }
    };

  let closed = false;
  return {
    kind: 'postgres',
    query: queryOn(pool),
    async transaction(fn) {
      const client = await pool.connect().catch((error: unknown) => {
        throw scrub(error);
      });
      const query = queryOn(client);
      let broken: Error | undefined;
      try {
        await query('BEGIN');
        const result = await fn({ query });
        await query('COMMIT');
        return result;
      } catch (error) {
        await query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
        throw error;
      } finally {
        // A connection that could not roll back is destroyed, not reused.
        client.release(broken);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    // Two replicas creating it at once: the loser sees a unique violation; the schema exists.
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw error;
  }
}

// ---------------------------------------------------------------- credentials

const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)([^@/]*)@/i;

/** postgres://user:secret@host/db → postgres://user:***@host/db */
export function redactUrl(url: string): string {
  return url.replace(URL_PASSWORD, '$1***@');
}

/** A function that removes the URL's password (raw and decoded) from an error's message and stack. */
function scrubber(databaseUrl: string): (error: unknown) => Error {
  const raw = URL_PASSWORD.exec(databaseUrl)?.[2] ?? '';
  const secrets = new Set([raw, safeDecode(raw)].filter((s) => s.length > 0));
  const clean = (text: string) => [...secrets].reduce((t, secret) => t.split(secret).join('***'), text);
  return (error) => {
    const err = error instanceof Error ? error : new Error(String(error));
    if (secrets.size === 0) return err;
    err.message = clean(err.message);
    if (err.stack) err.stack = clean(err.stack);
    // URL parse errors carry the whole input alongside the message.
    if ('input' in err && typeof err.input === 'string') err.input = clean(err.input);
    return err;
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
