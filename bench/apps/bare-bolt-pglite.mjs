// bare-bolt.mjs's app that also opens PGlite as Lookout opens it, after loading Bolt and before listening: V8's
// baseline tier for its WASM, Lookout's postgresql.conf, and the data directory DATA_DIR already holds. It runs no
// query: the embedded store's floor bench/memory.ts measures Lookout against. Needs dist/ (npm run build).
import process from 'node:process';
import '@slack/bolt';
import { compileWasmBaselineOnly } from '../../dist/platform/store/db.js';
import { PGLITE_CONF } from '../../dist/platform/store/template.js';

compileWasmBaselineOnly();
const { PGlite } = await import('@electric-sql/pglite');
const pglite = await PGlite.create({ dataDir: process.env.DATA_DIR, postgresqlconf: PGLITE_CONF });
const { closing } = await import('./bare-bolt.mjs');
closing.push(() => pglite.close());
