/**
 * Run as a child process by db.ts: creates a PGlite data directory (initdb) and applies
 * the migrations of the folders given, then exits, taking initdb's memory with it.
 * Usage: node init-pglite.js <dataDir> <migrations folder URL>...
 */
import { openDb } from './db.js';
import { migrate } from './migrate.js';

const [dataDir, ...folders] = process.argv.slice(2);
if (!dataDir || folders.length === 0) {
  console.error('usage: init-pglite <dataDir> <migrations folder URL>...');
  process.exit(2);
}
const db = await openDb({ dataDir, initInProcess: true });
try {
  await migrate(
    db,
    folders.map((f) => new URL(f)),
  );
} finally {
  await db.close();
}
