/**
 * Runs the same store contract against both drivers: PGlite in memory always, and
 * the real PostgreSQL at TEST_DATABASE_URL when it is set (skipped, with a warning,
 * when it is not). Each test file gets one database per driver, migrated once
 * (PGlite takes ~2 s to start; on PostgreSQL a fresh schema, dropped afterwards, so
 * files run in parallel without seeing each other's rows). Tables are emptied
 * before each test.
 *
 * Call describeEachDb once per file and nest describes inside it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { openDb, type Db } from '../../src/platform/store/db.js';
import { createRepos, MIGRATIONS, type Repos as Store } from '../../src/compose.js';
import { migrate } from '../../src/platform/store/migrate.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export type DbKind = Db['kind'];

export interface TestDb {
  readonly kind: DbKind;
  /** The file's shared, migrated database. */
  readonly db: Db;
  /** Repositories over `db`. */
  readonly store: Store;
  /** PostgreSQL: a second pool on the same schema as `of` (another replica). PGlite: unsupported (one process). */
  openSibling(of?: Db): Promise<Db>;
  /** An empty, unmigrated database: a new schema, or a new PGlite instance (~2 s). Closed after the file. */
  openEmpty(): Promise<Db>;
}

const TABLES = [
  'digest_runs',
  'digests',
  'job_claims',
  'query_stash',
  'alert_subscriptions',
  'alert_mutes',
  'alerts',
  'alert_groups',
  'visitor_checks',
  'scan_state',
  'deliveries',
  'rate_limits',
  'trend_points',
  'watches',
  'watch_alerts',
  'replay_keys',
  'installations',
  'org_workspaces',
  'workspaces',
  'agent_tokens',
  'api_answers',
];

let warned = false;

/** Drops these PostgreSQL schemas at TEST_DATABASE_URL, and all they hold: a test file's clean-up. */
export async function dropSchemas(...schemas: string[]): Promise<void> {
  if (!TEST_DATABASE_URL || schemas.length === 0) return;
  const admin = await openDb({ databaseUrl: TEST_DATABASE_URL });
  try {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await admin.close();
  }
}

export function describeEachDb(title: string, body: (t: TestDb) => void): void {
  for (const kind of ['pglite', 'postgres'] as const) {
    const skip = kind === 'postgres' && !TEST_DATABASE_URL;
    if (skip && !warned) {
      warned = true;
      console.warn(`${title}: PostgreSQL variant skipped: TEST_DATABASE_URL is not set`);
    }
    describe.skipIf(skip)(`${title} [${kind}]`, () => {
      const t = new TestDatabase(kind);
      beforeAll(() => t.setUp());
      afterAll(() => t.tearDown());
      beforeEach(() => t.clean());
      body(t);
    });
  }
}

class TestDatabase implements TestDb {
  private shared?: { db: Db; store: Store };
  private readonly schemas: string[] = [];
  private readonly schemaOf = new Map<Db, string | undefined>();
  private readonly extra: Db[] = [];

  constructor(readonly kind: DbKind) {}

  get db(): Db {
    return this.ready().db;
  }

  get store(): Store {
    return this.ready().store;
  }

  async setUp(): Promise<void> {
    const db = await this.open(this.newSchema());
    await migrate(db, MIGRATIONS);
    this.shared = { db, store: createRepos(db) };
  }

  async tearDown(): Promise<void> {
    for (const db of this.extra) await db.close();
    const db = this.shared?.db;
    if (!db) return;
    for (const schema of this.schemas) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.close();
  }

  async clean(): Promise<void> {
    await this.db.query(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY CASCADE`);
  }

  async openSibling(of: Db = this.db): Promise<Db> {
    if (this.kind === 'pglite') throw new Error('PGlite is one process: there is no second connection to it');
    const db = await this.open(this.schemaOf.get(of));
    this.extra.push(db);
    return db;
  }

  async openEmpty(): Promise<Db> {
    const db = await this.open(this.newSchema());
    this.extra.push(db);
    return db;
  }

  private ready(): { db: Db; store: Store } {
    if (!this.shared) throw new Error('The test database is opened in beforeAll: use it inside tests and hooks');
    return this.shared;
  }

  /** PostgreSQL: a unique schema name to create; PGlite needs none (each instance is its own database). */
  private newSchema(): string | undefined {
    if (this.kind === 'pglite') return undefined;
    const schema = `lookout_test_${randomBytes(6).toString('hex')}`;
    this.schemas.push(schema);
    return schema;
  }

  private async open(schema: string | undefined): Promise<Db> {
    const db =
      this.kind === 'pglite'
        ? await openDb({ memory: true })
        : await openDb({ databaseUrl: TEST_DATABASE_URL, schema, poolSize: 5 });
    this.schemaOf.set(db, schema);
    return db;
  }
}

/** A digest as the store takes it, for tests that need one stored. */
export const DIGEST_INPUT = {
  teamId: 'T1',
  channelId: 'C1',
  ownerId: 'U1',
  reports: ['sources'],
  topN: 10,
  period: 'yesterday',
  schedule: { kind: 'daily' as const, time: '09:00' },
  cron: '0 9 * * *',
  timeZone: 'UTC',
};
