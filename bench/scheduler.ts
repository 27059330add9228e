/**
 * The digest scheduler's idle cost against the size of the schedule: with 0, 1,000 and
 * 10,000 active digests (PGlite in memory, daily crons in five zones, none due while it is
 * measured), the CPU the idle process spends (ms of CPU per second, process.cpuUsage, over
 * three windows of 30 s, each holding one wake of the 30-second timer, after the start's catch-up has finished) and its
 * RSS after a collection; then the CPU of one add as the scheduling sees it (the minimum-interval check, the
 * insert, and the scheduler taking the change), over 15 adds. Each size runs in its own
 * process. Medians, and ratios against the 0-digest floor of the same run.
 * Run: npm run bench -- scheduler   (BENCH_COUNTS=0,1000,10000, BENCH_IDLE_S=30, BENCH_WINDOWS=3 override)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openRepos } from '../src/compose.js';
import { DigestScheduler } from '../src/features/digests/scheduler.js';
import { shortestGap } from '../src/features/digests/cron.js';
import { createLogger } from '../src/platform/log.js';

const COUNTS = (process.env.BENCH_COUNTS ?? '0,1000,10000').split(',').map(Number);
/** One window is the 30 s both schedulers wake at most that far apart (before: the periodic catch-up). */
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 3);
const ADDS = 15;
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney', 'UTC'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

interface Result {
  count: number;
  idleMsPerS: number;
  rssMb: number;
  addMs: number;
}

/** A daily cron at an hour far from now in its zone (nothing is due while measuring). */
function quietCron(i: number): string {
  const hour = (new Date().getUTCHours() + 12 + (i % 3)) % 24;
  return `${i % 60} ${hour} * * ${i % 2 ? '*' : '1-5'}`;
}

async function child(count: number): Promise<Result> {
  const store = await openRepos({ memory: true });
  for (let i = 0; i < count; i += 500) {
    const values: unknown[] = [];
    const rows: string[] = [];
    for (let j = i; j < Math.min(count, i + 500); j++) {
      const p = values.length;
      rows.push(
        `('T', 'C${j % 100}', 'U${j % 50}', '["sources"]', '[]', 5, 'day', '{"kind":"cron"}', $${p + 1}, $${p + 2}, false)`,
      );
      values.push(quietCron(j), ZONES[j % ZONES.length]);
    }
    await store.db.query(
      `INSERT INTO digests (team_id, channel_id, owner_id, reports, filters, top_n, period, schedule, cron, time_zone, paused)
       VALUES ${rows.join(', ')}`,
      values,
    );
  }
  const log = createLogger({ level: 'silent' });
  const scheduler = new DigestScheduler({
    runs: store.runs,
    loadActive: () => store.digests.listActive(),
    loadOne: (id) => store.digests.get(id),
    post: async () => {},
    log,
    owner: 'bench',
  });
  await scheduler.start();
  await (scheduler as unknown as { catchingUp?: Promise<void> }).catchingUp;
  // The timer's first passes schedule every digest (the backfill of next_run_at); main has no such column.
  const unscheduled = async () =>
    (
      await store.db
        .query(`SELECT count(*)::int AS n FROM digests WHERE next_run_at IS NULL`)
        .catch(() => ({ rows: [{ n: 0 }] }))
    ).rows[0]!.n as number;
  while ((await unscheduled()) > 0) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, 1000));

  globalThis.gc?.(); // the set-up's garbage is collected before, not inside, the idle windows
  const windows: number[] = [];
  for (let w = 0; w < WINDOWS; w++) {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    windows.push(cpuMs(cpu) / ((performance.now() - t0) / 1000));
  }
  globalThis.gc?.(); // what is held, not garbage not yet collected
  const rssMb = process.memoryUsage().rss / 2 ** 20;

  const adds: number[] = [];
  for (let i = 0; i < ADDS; i++) {
    const cron = quietCron(count + i);
    const zone = ZONES[i % ZONES.length]!;
    const cpu = process.cpuUsage();
    shortestGap(cron, zone, new Date(), 3_600_000);
    await store.digests.create({
      teamId: 'T',
      channelId: 'C0',
      ownerId: 'U0',
      reports: ['sources'],
      topN: 5,
      period: 'day',
      schedule: { kind: 'cron', cron },
      cron,
      timeZone: zone,
    });
    await scheduler.reload();
    adds.push(cpuMs(cpu));
  }
  await scheduler.stop();
  await store.close();
  if (process.env.BENCH_VERBOSE) console.error(count, windows);
  return { count, idleMsPerS: median(windows), rssMb, addMs: median(adds) };
}

if (process.argv[2] === '--child') {
  console.log(JSON.stringify(await child(Number(process.argv[3]))));
  process.exit(0);
}

const label = process.env.BENCH_LABEL ?? 'this tree';
console.log(`digest scheduler, ${label}: idle ${WINDOWS} × ${IDLE_S} s per size (node ${process.version})`);
const results: Result[] = [];
for (const count of COUNTS) {
  const out = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', String(count)],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = out.stdout.trim().split('\n').pop() ?? '';
  if (out.status !== 0 || !line.startsWith('{')) {
    console.error(`the ${count}-digest run failed`);
    process.exit(1);
  }
  results.push(JSON.parse(line) as Result);
}
const floor = results.find((r) => r.count === 0) ?? results[0]!;
const ratio = (x: number, base: number) => (base > 0 ? `${(x / base).toFixed(2)}×` : 'n/a');
console.log('digests   idle CPU (ms/s)        RSS (MB)          one add (ms CPU)');
for (const r of results) {
  console.log(
    `${String(r.count).padStart(7)}   ${r.idleMsPerS.toFixed(2).padStart(6)} (${ratio(r.idleMsPerS, floor.idleMsPerS).padStart(7)})   ` +
      `${r.rssMb.toFixed(0).padStart(5)} (${ratio(r.rssMb, floor.rssMb).padStart(6)})   ${r.addMs.toFixed(1).padStart(7)} (${ratio(r.addMs, floor.addMs)})`,
  );
}
