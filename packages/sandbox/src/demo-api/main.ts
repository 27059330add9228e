/**
 * Runs the demo API on its own: `npm run demo-api`.
 * DEMO_API_PORT (default 4010), DEMO_API_KEY (default "demo"),
 * DEMO_API_HOST (default 127.0.0.1), DEMO_API_SEED (default 42).
 * For benchmarks (see README.md):
 * DEMO_API_LATENCY_MS (default 0): the `latencyMs` fault on every request;
 * DEMO_API_NOW (ISO 8601, default the real time): the moment the data set is made around;
 * DEMO_API_EXTRA_VISITS=`count:visitors` (e.g. 10000:2000): that many more visits by that
 * many generated visitors, spread over the last minute before "now" (the generated data
 * then ends a minute earlier, so they are the newest `count` visits).
 */

import { generateDataset } from './generate-dataset.js';
import type { Dataset } from './dataset.js';
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

function dateFromEnv(name: string): Date | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = new Date(raw.trim());
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})$/i.test(raw.trim()) || Number.isNaN(value.getTime())) {
    console.error(`${name} must be an ISO 8601 date and time with a zone, like 2026-11-21T12:00:00Z, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

function extraVisitsFromEnv(name: string): { count: number; visitors: number } | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const m = /^(\d{1,7}):(\d{1,6})$/.exec(raw.trim());
  const count = Number(m?.[1]);
  const visitors = Number(m?.[2]);
  if (!m || count < 1 || count > 1_000_000 || visitors < 1 || visitors > count) {
    console.error(`${name} must be count:visitors with 1 ≤ visitors ≤ count ≤ 1000000, like 10000:2000, got "${raw}"`);
    process.exit(2);
  }
  return { count, visitors };
}

/** The generated data a minute before `at`, then `count` visits by the first `visitors` generated visitors, evenly over (at − 60 s, at]. */
function withExtraVisits(at: Date, { count, visitors }: { count: number; visitors: number }): Dataset {
  const minute = 60_000;
  const dataset = generateDataset({ seed, now: new Date(at.getTime() - minute) });
  const pool = dataset.visitors.filter((v) => !v.id.startsWith('v_demo_')).slice(0, visitors);
  if (pool.length < visitors) {
    console.error(`DEMO_API_EXTRA_VISITS asks for ${visitors} visitors; the data set has ${pool.length}`);
    process.exit(2);
  }
  for (let i = 0; i < count; i++) {
    dataset.addVisit({
      visitor_id: pool[i % visitors]!.id,
      date: new Date(at.getTime() - minute + Math.floor(((i + 1) * minute) / count)),
    });
  }
  return dataset;
}

const latencyMs = integerFromEnv('DEMO_API_LATENCY_MS', 0, 0, 60_000);
const now = dateFromEnv('DEMO_API_NOW');
const extra = extraVisitsFromEnv('DEMO_API_EXTRA_VISITS');
const dataset = extra ? withExtraVisits(now ?? new Date(), extra) : undefined;
const api = await startDemoApi({
  port,
  host,
  apiKey,
  seed,
  ...(now && !dataset ? { now: () => now } : {}),
  ...(dataset ? { dataset } : {}),
  ...(latencyMs > 0 ? { faults: { latencyMs } } : {}),
});
const keyNote = apiKey === 'demo' ? 'x-api-key: demo' : 'x-api-key: the value of DEMO_API_KEY';
const extras = [
  extra ? `${extra.count} of them added over the last minute by ${extra.visitors} visitors` : '',
  now || extra ? `data made around ${api.dataset.now.toISOString()}` : '',
  latencyMs > 0 ? `${latencyMs} ms added to every answer` : '',
].filter(Boolean);
console.log(
  `Demo API listening on ${api.url} (${keyNote}; ${api.dataset.visitors.length} visitors, ${api.dataset.visits.length} visits${extras.length ? `; ${extras.join('; ')}` : ''})`,
);

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
