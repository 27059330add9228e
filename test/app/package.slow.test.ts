import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * No Docker engine runs here, so this checks what can be checked without one:
 * the Dockerfile's two stages, done by hand — `npm run build` with dev
 * dependencies, then `npm ci --omit=dev` in a clean copy holding only the
 * package files and the built `dist/` — and that the result starts, without the sandbox.
 */
const root = process.cwd();
const work = mkdtempSync(join(tmpdir(), 'lookout-package-'));
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** What a start without Slack credentials and without the sandbox says: one line, what to set. */
const NO_SANDBOX =
  /^No Slack credentials, and this installation has no sandbox .* set SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, ANALYTICS_API_URL and ANALYTICS_API_KEY .*\n$/;

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('Dockerfile', () => {
  it('builds with dev dependencies and runs with production ones, as a non-root user, with a health check and a data volume', () => {
    const [build, runtime] = dockerfile.split(/^FROM /m).slice(1);
    expect(build).toMatch(/^node:\d+-\S*slim AS build/);
    expect(build).toMatch(/RUN npm ci\n/);
    expect(build).toMatch(/RUN npm run build/);
    expect(runtime).toMatch(/RUN npm ci --omit=dev --workspaces=false/);
    expect(runtime).toMatch(/COPY --from=build \/app\/dist \.\/dist/);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/HEALTHCHECK[\s\S]*\/healthz/);
    expect(runtime).toMatch(/VOLUME \["\/data"\]/);
    expect(runtime).toMatch(/CMD \["node", "dist\/main\.js"\]/);
    expect(dockerfile).not.toMatch(/^(ENV|ARG)\s+.*(SECRET|TOKEN|API_KEY|PASSWORD)/im);
  });

  it('the runtime stage, made by hand, starts from dist/ with production dependencies only', () => {
    const built = join(work, 'build');
    cpSync(join(root, 'src'), join(built, 'src'), { recursive: true });
    cpSync(join(root, 'packages'), join(built, 'packages'), { recursive: true });
    for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'])
      cpSync(join(root, f), join(built, f));
    // The build stage: `npm run build` (with this checkout's dev dependencies, as `npm ci` would install).
    symlinkSync(join(root, 'node_modules'), join(built, 'node_modules'));
    execFileSync('npm', ['run', 'build'], { cwd: built, stdio: 'pipe' });

    // A built checkout, with nothing set: dist/ has no sandbox (it runs from source, npm start), so both
    // the start and --check-config say in one line what to set, and nothing starts.
    for (const args of [['dist/main.js'], ['dist/main.js', '--check-config']]) {
      const run = spawnSync('node', args, {
        cwd: built,
        env: { PATH: process.env.PATH, DATA_DIR: join(work, 'data') },
        encoding: 'utf8',
      });
      expect({ args, status: run.status, stdout: run.stdout }).toEqual({ args, status: 1, stdout: '' });
      expect(run.stderr).toMatch(NO_SANDBOX);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect(existsSync(join(work, 'data'))).toBe(false);

    const runtime = join(work, 'runtime');
    for (const f of ['package.json', 'package-lock.json']) cpSync(join(root, f), join(runtime, f));
    cpSync(join(built, 'dist'), join(runtime, 'dist'), { recursive: true });
    execFileSync('npm', ['ci', '--omit=dev', '--workspaces=false', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: runtime,
      stdio: 'pipe',
    });

    // No dev dependency made it in, nor the sandbox: not its code, not its dependencies.
    expect(() => execFileSync('node', ['-e', "import('typescript')"], { cwd: runtime, stdio: 'pipe' })).toThrow();
    const files = readdirSync(join(runtime, 'dist'), { recursive: true, encoding: 'utf8' });
    expect(files.filter((f) => /sandbox|demo-api|offline/i.test(f))).toEqual([]);
    for (const name of ['@lookout/sandbox', 'ws', 'chart.js', 'emojibase-data'])
      expect(existsSync(join(runtime, 'node_modules', name)), name).toBe(false);
    const ok = spawnSync('node', ['dist/main.js', '--check-config'], {
      cwd: runtime,
      env: {
        PATH: process.env.PATH,
        SLACK_BOT_TOKEN: 'xoxb-1-2-3',
        SLACK_SIGNING_SECRET: 'signing-secret-0123',
        ANALYTICS_API_URL: 'https://api.example.com',
        ANALYTICS_API_KEY: 'k',
      },
      encoding: 'utf8',
    });
    expect(ok.stderr).toBe('');
    expect(ok.stdout.trim()).toBe('configuration ok');
    expect(ok.status).toBe(0);

    const bad = spawnSync('node', ['dist/main.js', '--check-config'], {
      cwd: runtime,
      env: { PATH: process.env.PATH, SLACK_BOT_TOKEN: 'xoxp-not-a-bot-token-secret', PORT: 'eighty' },
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/SLACK_BOT_TOKEN: expected a bot token/);
    expect(bad.stderr).toMatch(/PORT: expected a whole number/);
    expect(bad.stderr).not.toContain('xoxp-not-a-bot-token-secret');

    // Without Slack credentials, a production install says it has no sandbox, and starts nothing; --check-config says the same.
    for (const args of [['dist/main.js'], ['dist/main.js', '--check-config']]) {
      const bare = spawnSync('node', args, {
        cwd: runtime,
        env: { PATH: process.env.PATH, DATA_DIR: join(work, 'data') },
        encoding: 'utf8',
      });
      expect({ args, status: bare.status }).toEqual({ args, status: 1 });
      expect(bare.stderr).toMatch(NO_SANDBOX);
    }
    expect(existsSync(join(work, 'data'))).toBe(false);
  }, 180_000);
});
