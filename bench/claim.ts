/**
 * The outbox's claim with many channels waiting: 5,000 open deliveries over 1,000 workspaces
 * (one channel each), on PostgreSQL; each round claims 20 (the worker's batch) and puts them
 * back. The floor, measured in the same run, is reading one open row through the same index.
 *
 * Run: npm run bench -- claim   (DATABASE_URL or TEST_DATABASE_URL; default postgres://postgres@127.0.0.1:5432/test)
 */
import { randomBytes } from 'node:crypto';
import { openRepos } from '../src/compose.js';
import { percentile } from './stats.js';

const ROUNDS = 30;
const databaseUrl =
  process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_claim_${randomBytes(4).toString('hex')}`;
const store = await openRepos({ databaseUrl, schema });
try {
  await store.db.query(`INSERT INTO deliveries (kind, channel_id, message, team_id, next_at, deadline, created_at)
    SELECT 'notice', 'C' || (g % 1000), '{"text":"x","blocks":[]}', 'T' || (g % 1000), now(), now() + interval '1 hour', now()
    FROM generate_series(1, 5000) g`);
  await store.db.query('ANALYZE deliveries');
  const claims: number[] = [];
  const floors: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    let t = performance.now();
    await store.db.query(
      "SELECT id FROM deliveries WHERE status IN ('pending', 'sending') ORDER BY team_id, channel_id, id LIMIT 1",
    );
    floors.push(performance.now() - t);
    t = performance.now();
    const claimed = await store.deliveries.claim('bench', { busy: [], staleMs: 60_000, limit: 20 });
    claims.push(performance.now() - t);
    if (claimed.length !== 20) throw new Error(`claimed ${claimed.length}, not 20`);
    await store.db.query("UPDATE deliveries SET status = 'pending', owner = NULL WHERE id = ANY($1::bigint[])", [
      claimed.map((d) => d.id),
    ]);
  }
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const claim = percentile(sorted(claims), 50);
  const floor = percentile(sorted(floors), 50);
  console.log(`open deliveries / workspaces      5,000 / 1,000 (PostgreSQL, ${ROUNDS} rounds)`);
  console.log(
    `claim of 20: median / p90          ${claim.toFixed(1)} ms / ${percentile(sorted(claims), 90).toFixed(1)} ms`,
  );
  console.log(`floor (one open row by the index)  ${floor.toFixed(2)} ms`);
  console.log(`claim ÷ floor                      ${(claim / floor).toFixed(0)}×`);
} finally {
  await store.db.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
  await store.close();
}
