/**
 * One small Db interface over two drivers: PGlite (PostgreSQL in WASM, embedded,
 * the default) and a real PostgreSQL through a `pg` pool (DATABASE_URL).
 * Both speak the same SQL; repositories only ever see `query` and `transaction`.
 */
import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import pg from 'pg';

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
  /** PGlite in memory (takes precedence over dataDir). */
  memory?: boolean;
  /** pg pool size, default 5. */
  poolSize?: number;
  /** Schema to create if missing and use as search_path on every connection. */
  schema?: string;
  /** pg only: errors of idle pooled connections (the pool replaces them); credentials already redacted. */
  onError?: (error: Error) => void;
}

export async function openDb(options: OpenDbOptions): Promise<Db> {
  const schema = options.schema === undefined ? undefined : checkSchemaName(options.schema);
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 5, schema, options.onError);
  if (options.memory) return openPglite(undefined, schema);
  if (options.dataDir) return openPglite(options.dataDir, schema);
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

async function openPglite(dataDir: string | undefined, schema: string | undefined): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // Lookout's tables are small: 16 MB of shared buffers instead of 128 MB saves ~130 MB of memory.
  const pglite = await PGlite.create({ ...(dataDir ? { dataDir } : {}), postgresqlconf: ['shared_buffers=16MB'] });
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
): Promise<Db> {
  const scrub = scrubber(databaseUrl);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    application_name: 'lookout',
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
        const last = Array.isArray(result) ? result.at(-1) : result;
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
