/**
 * The outbox against posting directly: 1,000 alerts decided at once over 20 channels,
 * posted through the offline Slack.
 *
 *   npm run bench -- deliveries
 *
 * Each round runs the poster in its own process (the offline Slack stays in this one):
 *  - outbox: the rows written in one transaction (PGlite in memory), then the delivery worker
 *    posts them (one in flight per channel, paced, retried through the store);
 *  - direct: what Lookout did before, and the floor: chat.postMessage from a loop per channel,
 *    the WebClient waiting out 429s itself.
 * With Slack's rate limits on (one message a second per channel, bursts of 5), latency is
 * decision → posted. With them off, the same work shows what the outbox itself costs: CPU
 * per delivery and time to drain, as ratios to direct, medians of interleaved rounds.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { LogLevel, WebClient, WebClientEvent } from '@slack/web-api';
import { median, percentile } from './stats.js';

const TOTAL = 1_000;
const CHANNELS = Array.from({ length: 20 }, (_, i) => `C_BENCH_${String(i).padStart(2, '0')}`);

interface Result {
  latencies: number[];
  seconds: number;
  cpuMs: number;
  failed: number;
  /** Answers of 429, by channel. */
  limited: Record<string, number>;
}

/** An alert-sized message: a header, two sections with fields, a context line and four buttons. */
function alertLike(i: number, channel: string): { text: string; blocks: never[] } {
  const visitor = `v_bench_${i}`;
  return {
    text: `Threat · high severity: visitor ${visitor}: flagged as a bot; scraping score 0.97`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `Threat · high severity: visitor ${visitor}` } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `:rotating_light: *Threat* (high severity) · visitor \`${visitor}\`\n• flagged as a bot\n• scraping score 0.97`,
        },
      },
      {
        type: 'section',
        fields: [
          { type: 'mrkdwn', text: `*Visit*\nNov 23, 11:02 · /login · direct · Berlin, Germany · ${channel}` },
          { type: 'mrkdwn', text: '*Seen*\n1 visit · first Nov 23, 11:02 · last Nov 23, 11:02' },
        ],
      },
      {
        type: 'actions',
        elements: ['Acknowledge', 'Mute 24h', 'Mute 7d', 'Details'].map((t, k) => ({
          type: 'button',
          action_id: `b${k}`,
          text: { type: 'plain_text', text: t },
          value: visitor,
        })),
      },
    ] as never[],
  };
}

// ---------------------------------------------------------------- the child: one poster, one round

type Mode = 'outbox' | 'outbox-pg' | 'direct';

async function child(mode: Mode, apiUrl: string, token: string, paceMs: number): Promise<Result> {
  const work = Array.from({ length: TOTAL }, (_, i) => ({
    channel: CHANNELS[i % CHANNELS.length]!,
    message: alertLike(i, CHANNELS[i % CHANNELS.length]!),
  }));
  if (mode === 'direct') {
    const client = new WebClient(token, { slackApiUrl: apiUrl, logLevel: LogLevel.ERROR, timeout: 10_000 });
    const limited: Record<string, number> = {};
    client.on(
      WebClientEvent.RATE_LIMITED,
      (_retryAfter: number, { body }: { body: { channel?: string } }) =>
        void (limited[body.channel ?? '?'] = (limited[body.channel ?? '?'] ?? 0) + 1),
    );
    const latencies: number[] = [];
    let failed = 0;
    const t0 = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      CHANNELS.map(async (channel) => {
        for (const w of work.filter((x) => x.channel === channel)) {
          try {
            await client.chat.postMessage({ channel, text: w.message.text, blocks: w.message.blocks });
            latencies.push(performance.now() - t0);
          } catch {
            failed++;
          }
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return {
      latencies,
      seconds: (performance.now() - t0) / 1000,
      cpuMs: (used.user + used.system) / 1000,
      failed,
      limited,
    };
  }
  const { openRepos } = await import('../src/compose.js');
  const { DeliveryRepo } = await import('../src/platform/deliveries/repo.js');
  const { DeliveryWorker } = await import('../src/platform/deliveries/worker.js');
  const { defineSubject, Subjects } = await import('../src/platform/deliveries/subject.js');
  const { z } = await import('zod');
  // Posts alone: no feature hears how they went.
  const BENCH = defineSubject({ kind: 'bench', payload: z.object({}) });
  const { webPoster } = await import('../src/platform/slack/poster.js');
  const { createLogger } = await import('../src/platform/log.js');
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const store = await openRepos(
    mode === 'outbox-pg' ? { databaseUrl: process.env.TEST_DATABASE_URL, schema } : { memory: true },
  );
  const client = new WebClient(token, {
    slackApiUrl: apiUrl,
    logLevel: LogLevel.ERROR,
    timeout: 10_000,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const limited: Record<string, number> = {};
  const poster = webPoster(client);
  const counted = {
    ...poster,
    post: (channel: string, ...rest: Parameters<typeof poster.post> extends [string, ...infer R] ? R : never) =>
      poster.post(channel, ...rest).catch((error: { code?: string }) => {
        if (error.code === 'slack_webapi_rate_limited_error') limited[channel] = (limited[channel] ?? 0) + 1;
        throw error;
      }),
  };
  const worker = new DeliveryWorker({
    db: store.db,
    poster: async () => counted,
    owner: 'bench',
    log: createLogger({ level: 'silent' }),
    subjects: new Subjects([BENCH]),
    paceMs,
    concurrency: CHANNELS.length,
  });
  const t0 = performance.now();
  const cpu = process.cpuUsage();
  await store.db.transaction(async (tx) => {
    const outbox = new DeliveryRepo(tx);
    for (const w of work)
      await outbox.enqueue({
        team: 'T_BENCH',
        subject: BENCH,
        channelId: w.channel,
        message: w.message,
        expiresInMs: 3_600_000,
      });
  });
  await worker.start();
  await worker.drained(600_000, 250);
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - t0) / 1000;
  const { rows } = await store.db.query<{ ms: number; status: string }>(
    'SELECT extract(epoch FROM (posted_at - created_at)) * 1000 AS ms, status FROM deliveries',
  );
  await worker.stop();
  if (mode === 'outbox-pg') await store.db.query(`DROP SCHEMA ${schema} CASCADE`);
  await store.close();
  return {
    latencies: rows.filter((r) => r.status === 'posted').map((r) => Number(r.ms)),
    seconds,
    cpuMs: (used.user + used.system) / 1000,
    failed: rows.filter((r) => r.status !== 'posted').length,
    limited,
  };
}

if (process.argv[2] === '--child') {
  const [, , , mode, apiUrl, token, pace] = process.argv;
  const result = await child(mode as Mode, apiUrl!, token!, Number(pace));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

// ---------------------------------------------------------------- the parent: Slack, rounds, figures

const { startOfflineSlack } = await import('@lookout/sandbox/slack');
const botToken = `xoxb-bench-${randomBytes(6).toString('hex')}`;
const slack = await startOfflineSlack({ signingSecret: randomBytes(16).toString('hex'), botToken, rateLimit: false });
for (const id of CHANNELS) slack.workspace.addChannel({ id, name: id.toLowerCase().replace(/_/g, '-') });

function round(mode: Mode, paceMs: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', mode, slack.apiUrl, botToken, String(paceMs)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += String(c)));
    p.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Result)
        : reject(new Error(`${mode} round exited ${code}`)),
    );
  });
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(0)} ms`);
const describe = (r: Result) => {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(sorted, 50))}, p99 ${fmt(percentile(sorted, 99))}, all posted in ${r.seconds.toFixed(1)} s, ${r.failed} failed, CPU ${(r.cpuMs / TOTAL).toFixed(2)} ms per delivery`;
};

console.log(
  `${TOTAL} alert-sized messages decided at once over ${CHANNELS.length} channels; each poster in its own process\n`,
);

const perChannel = TOTAL / CHANNELS.length;
const floorSeconds = perChannel - 1;
const limitedIn = (r: Result) => Object.values(r.limited);
console.log(
  `A strict Slack (chat.postMessage: 1 a second per channel, no burst): the physical floor is ${floorSeconds} s (${perChannel} posts a channel, the first at once)`,
);
slack.setRateLimit({ burst: 1, perSecond: 1 });
const strict = await round('outbox', 1_000);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
console.log(`  outbox (paced to 1/s a channel)  ${describe(strict)}`);
console.log(
  `    ${(strict.seconds / floorSeconds).toFixed(3)}× the floor; ${sum(limitedIn(strict))} answers of 429, at most ${Math.max(0, ...limitedIn(strict))} in one channel`,
);
const strictDirect = await round('direct', 0);
console.log(`  direct (WebClient waits out 429) ${describe(strictDirect)}`);
console.log(
  `    ${(strictDirect.seconds / floorSeconds).toFixed(3)}× the floor; ${sum(limitedIn(strictDirect))} answers of 429, at most ${Math.max(0, ...limitedIn(strictDirect))} in one channel\n`,
);

console.log("With Slack's rate limits (chat.postMessage: bursts of 5, then 1 a second per channel):");
slack.setRateLimit({ burst: 5, perSecond: 1 });
const limitedOutbox = await round('outbox', 1_000);
console.log(`  outbox (paced to 1/s a channel)  ${describe(limitedOutbox)}`);
const limitedDirect = await round('direct', 0);
console.log(`  direct (WebClient waits out 429) ${describe(limitedDirect)}`);
console.log(
  `  429 answers seen by Slack: ${slack.webApi.calls.filter((c) => c.status === 429).length} of the last ${slack.webApi.calls.length} calls kept`,
);

console.log('\nWithout rate limits (what the outbox itself costs), 3 interleaved rounds:');
slack.setRateLimit(false);
const outbox: Result[] = [];
const direct: Result[] = [];
const outboxPg: Result[] = [];
const pg = Boolean(process.env.TEST_DATABASE_URL);
const each = (r: Result) => `${r.seconds.toFixed(2)} s, ${(r.cpuMs / TOTAL).toFixed(2)} ms CPU each`;
for (let i = 0; i < 3; i++) {
  outbox.push(await round('outbox', 0));
  direct.push(await round('direct', 0));
  if (pg) outboxPg.push(await round('outbox-pg', 0));
  console.log(
    `  round ${i + 1}: outbox ${each(outbox[i]!)} · direct ${each(direct[i]!)}${pg ? ` · outbox on PostgreSQL ${each(outboxPg[i]!)}` : ''}`,
  );
}
const m = (rs: Result[], f: (r: Result) => number) => median(rs.map(f));
const cpuO = m(outbox, (r) => r.cpuMs / TOTAL);
const cpuD = m(direct, (r) => r.cpuMs / TOTAL);
const secO = m(outbox, (r) => r.seconds);
const secD = m(direct, (r) => r.seconds);
console.log(
  `\n  median CPU per delivery: outbox ${cpuO.toFixed(2)} ms, direct ${cpuD.toFixed(2)} ms (${(cpuO / cpuD).toFixed(2)}×)`,
);
console.log(
  `  median time to post all: outbox ${secO.toFixed(2)} s, direct ${secD.toFixed(2)} s (${(secO / secD).toFixed(2)}×)`,
);
if (pg) {
  const cpuP = m(outboxPg, (r) => r.cpuMs / TOTAL);
  console.log(
    `  on PostgreSQL (TEST_DATABASE_URL; its server's CPU not counted): CPU per delivery ${cpuP.toFixed(2)} ms (${(cpuP / cpuD).toFixed(2)}× direct), time to post all ${m(outboxPg, (r) => r.seconds).toFixed(2)} s (${(m(outboxPg, (r) => r.seconds) / secD).toFixed(2)}×)`,
  );
} else {
  console.log('  (set TEST_DATABASE_URL to measure the outbox on PostgreSQL too)');
}
console.log(
  `  median latency p50 / p99: outbox ${fmt(
    m(outbox, (r) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        50,
      ),
    ),
  )} / ${fmt(
    m(outbox, (r) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        99,
      ),
    ),
  )}, direct ${fmt(
    m(direct, (r) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        50,
      ),
    ),
  )} / ${fmt(
    m(direct, (r) =>
      percentile(
        [...r.latencies].sort((a, b) => a - b),
        99,
      ),
    ),
  )}`,
);
await slack.close();
