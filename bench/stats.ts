/** Small helpers shared by the benchmarks: percentiles and a fixed-concurrency load loop. */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface LoadResult {
  count: number;
  failures: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** The first failure's message, if any. */
  firstError?: string;
  /** This process's CPU time (user + system) per task, in ms. */
  cpuPerTask: number;
}

/** Runs `task(i)` from `concurrency` workers until `total` tasks have run; latencies in ms. */
export async function runLoad(
  total: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        try {
          await task(i);
          latencies.push(performance.now() - t0);
        } catch (error) {
          failures++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    failures,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    firstError,
    cpuPerTask: (used.user + used.system) / 1000 / Math.max(1, latencies.length + failures),
  };
}

export const ms = (n: number) => `${n.toFixed(2)} ms`;

export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** Starts the demo API in its own process (so it does not share the event loop being measured); resolves its URL. */
export async function spawnDemoApi(env: Record<string, string> = {}): Promise<{ url: string; stop: () => void }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/sandbox/src/demo-api/main.ts'], {
    env: { ...process.env, DEMO_API_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += String(chunk);
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`demo API exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** A fresh build of Lookout in dist/, which the production-mode benchmarks run. */
export async function buildDist(): Promise<void> {
  const { execFileSync } = await import('node:child_process');
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}

/**
 * What a production-mode app needs around it, for bench/memory.ts and bench/ack.ts: a fresh
 * build in dist/, an offline Slack (for auth.test at start) and the demo API in its own
 * process, with the environment that points an app at them.
 */
export async function productionWorld(
  options: { extraRoutes?: import('@lookout/sandbox/slack').ExtraRoutes } = {},
): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
  const { randomBytes } = await import('node:crypto');
  const { startOfflineSlack } = await import('@lookout/sandbox/slack');
  await buildDist();
  const signingSecret = randomBytes(16).toString('hex');
  const botToken = `xoxb-bench-${randomBytes(8).toString('hex')}`;
  const slack = await startOfflineSlack({
    signingSecret,
    botToken,
    rateLimit: false,
    ...(options.extraRoutes ? { extraRoutes: options.extraRoutes } : {}),
  });
  const demo = await spawnDemoApi({ DEMO_API_KEY: 'bench' });
  return {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_BOT_TOKEN: botToken,
      SLACK_API_URL: slack.apiUrl,
      ANALYTICS_API_URL: demo.url,
      ANALYTICS_API_KEY: 'bench',
    },
    close: async () => {
      demo.stop();
      await slack.close();
    },
  };
}

/**
 * BENCH_BUILDS: other builds of Lookout to measure in the same run, as `name=main.js` pairs separated by
 * commas; the name ends at the first `=`, so Node flags before main.js may hold their own (`--flag=16 dist/main.js`).
 * `args`: what Node is started with, the flags then main.js.
 */
export function otherBuilds(): { name: string; args: string[] }[] {
  return (process.env.BENCH_BUILDS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      const args = pair
        .slice(at + 1)
        .split(' ')
        .filter(Boolean);
      if (at < 1 || args.length === 0) throw new Error(`BENCH_BUILDS takes name=main.js pairs, not "${pair}"`);
      return { name: pair.slice(0, at), args };
    });
}
