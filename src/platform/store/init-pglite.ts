/**
 * Run as a child process by db.ts: creates a PGlite data directory (initdb) and applies
 * the migrations, then exits, taking initdb's memory with it.
 * Usage: node init-pglite.js <dataDir>
 */
import { openDb } from './db.js';
import { migrate } from './migrate.js';

const dataDir = process.argv[2];
if (!dataDir) {
  console.error('usage: init-pglite <dataDir>');
  process.exit(2);
}
const db = await openDb({ dataDir, initInProcess: true });
try {
  await migrate(db);
} finally {
  await db.close();
}
