/**
 * Runs the demo API on its own: `npm run demo-api`.
 * DEMO_API_PORT (default 4010), DEMO_API_KEY (default "demo"),
 * DEMO_API_HOST (default 127.0.0.1), DEMO_API_SEED (default 42).
 */

import { startDemoApi } from './server.js';

function integerFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

const port = integerFromEnv('DEMO_API_PORT', 4010, 0, 65_535);
const seed = integerFromEnv('DEMO_API_SEED', 42, 0, 4_294_967_295);
const host = process.env['DEMO_API_HOST']?.trim() || '127.0.0.1';
const apiKey = process.env['DEMO_API_KEY'] || 'demo';

const api = await startDemoApi({ port, host, apiKey, seed });
const keyNote = apiKey === 'demo' ? 'x-api-key: demo' : 'x-api-key: the value of DEMO_API_KEY';
console.log(`Demo API listening on ${api.url} (${keyNote}; ${api.dataset.visitors.length} visitors, ${api.dataset.visits.length} visits)`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    api.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('error while closing the demo API', error);
        process.exit(1);
      },
    );
  });
}
