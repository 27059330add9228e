/**
 * The embedded store initialises only an absent or empty DATA_DIR (or one whose own
 * initialisation was cut short). Anything else that will not open stops Lookout with one
 * line naming the directory and what is wrong, and nothing in it changes.
 */
import { DIGEST_INPUT } from '../../support/db.js';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRepos, type Repos } from '../../../src/compose.js';
import { DataDirError } from '../../../src/platform/store/db.js';
import { ensureTemplate, moveDir } from '../../../src/platform/store/template.js';
import { MIGRATIONS } from '../../../src/compose.js';

const root = mkdtempSync(join(tmpdir(), 'lookout-data-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const newDir = () => join(root, `d${++count}`);

/** Every file and folder under dir, each file with a hash of its bytes: equal snapshots mean nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at)) {
      const path = join(at, entry);
      if (statSync(path).isDirectory()) {
        out[relative(dir, path)] = 'dir';
        walk(path);
      } else {
        out[relative(dir, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
      }
    }
  };
  walk(dir);
  return out;
}

/** A data directory Lookout made, holding three digests. */
async function dataDirWithDigests(): Promise<string> {
  const dir = newDir();
  const repos = await openRepos({ dataDir: dir });
  for (const channelId of ['C1', 'C2', 'C3']) await repos.digests.create({ ...DIGEST_INPUT, channelId });
  await repos.close();
  return dir;
}

async function refusal(dataDir: string): Promise<Error> {
  return openRepos({ dataDir }).then(
    async (repos: Repos) => {
      await repos.close();
      throw new Error(`${dataDir} was opened`);
    },
    (error: unknown) => error as Error,
  );
}

async function digestsIn(dataDir: string): Promise<string[]> {
  const repos = await openRepos({ dataDir });
  try {
    return (await repos.digests.listAll(DIGEST_INPUT.teamId)).map((d) => d.channelId).sort();
  } finally {
    await repos.close();
  }
}

describe('DATA_DIR', () => {
  it('a data directory whose PG_VERSION is gone is refused in one line, and left as it was', async () => {
    const dir = await dataDirWithDigests();
    const version = readFileSync(join(dir, 'PG_VERSION'));
    rmSync(join(dir, 'PG_VERSION'));
    const before = snapshot(dir);

    const error = await refusal(dir);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toBe(
      `DATA_DIR ${dir} is a PostgreSQL data directory without its PG_VERSION file (damaged); Lookout initialises only an empty or absent directory. Nothing was changed: restore it from a backup, or set DATA_DIR to an empty or absent directory.`,
    );
    expect(snapshot(dir)).toEqual(before);

    // What a restore would bring back is all there: the three digests.
    writeFileSync(join(dir, 'PG_VERSION'), version);
    expect(await digestsIn(dir)).toEqual(['C1', 'C2', 'C3']);
  });

  it("a directory of another program's files is refused, and left as it was", async () => {
    const dir = newDir();
    mkdirSync(join(dir, 'photos'), { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    writeFileSync(join(dir, 'photos', 'a.jpg'), 'not really a photo');
    const before = snapshot(dir);

    const error = await refusal(dir);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toMatch(
      new RegExp(
        `^DATA_DIR ${dir} is not empty and not a PostgreSQL data directory \\(it holds 2 entries: "notes.txt", "photos"\\); Lookout initialises only an empty or absent directory\\. Nothing was changed`,
      ),
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('a data directory that has PG_VERSION but will not open is refused in one line, and left as it was', async () => {
    const dir = await dataDirWithDigests();
    const control = join(dir, 'global', 'pg_control');
    writeFileSync(control, Buffer.alloc(statSync(control).size, 7));
    const before = snapshot(dir);

    const error = await refusal(dir);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toMatch(
      new RegExp(
        `^DATA_DIR ${dir} could not be opened \\(PGlite: .+\\): its files are damaged or were made by another PostgreSQL version \\(PG_VERSION "\\d+"\\)\\. Nothing was changed`,
      ),
    );
    expect(error.message).not.toContain('\n');
    expect(snapshot(dir)).toEqual(before);
  });

  it('a data directory with a damaged table is refused in one line', async () => {
    const dir = await dataDirWithDigests();
    const repos = await openRepos({ dataDir: dir });
    const { rows } = await repos.db.query<{ path: string }>("SELECT pg_relation_filepath('schema_migrations') AS path");
    await repos.close();
    writeFileSync(join(dir, rows[0]!.path), 'garbage');

    const error = await refusal(dir);
    expect(error).toBeInstanceOf(DataDirError);
    expect(error.message).toMatch(
      new RegExp(`^DATA_DIR ${dir} could not be opened \\(PGlite: could not read .+\\): its files are damaged`),
    );
  });

  it('an empty directory is initialised', async () => {
    const dir = newDir();
    mkdirSync(dir);
    expect(await digestsIn(dir)).toEqual([]);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    expect(readdirSync(dir)).not.toContain('.lookout-initialising');
  });

  it('an initialisation cut short is done again', async () => {
    // What a kill mid-copy leaves: the marker written first, and part of the template (PG_VERSION included, which no longer makes it look finished).
    const template = await ensureTemplate(MIGRATIONS);
    const dir = newDir();
    mkdirSync(dir);
    writeFileSync(join(dir, '.lookout-initialising'), '');
    if (template)
      cpSync(template, dir, { recursive: true, filter: (source) => !source.startsWith(join(template, 'base')) });
    writeFileSync(join(dir, 'half-written'), 'x');

    expect(await digestsIn(dir)).toEqual([]);
    const entries = readdirSync(dir);
    expect(entries).toContain('base');
    expect(entries).not.toContain('.lookout-initialising');
    expect(entries).not.toContain('half-written');
  });
});

describe("moveDir (how a new data directory takes the install's spare copy of the template)", () => {
  const spare = () => {
    const dir = newDir();
    mkdirSync(join(dir, 'base'), { recursive: true });
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    return dir;
  };

  it('moves the directory whole, to an absent path or an empty directory', () => {
    for (const makeTarget of [(dir: string) => join(dir, 'nested'), (dir: string) => (mkdirSync(dir), dir)]) {
      const from = spare();
      const inode = statSync(join(from, 'PG_VERSION')).ino;
      const to = makeTarget(newDir());
      expect(moveDir(from, to)).toBe(true);
      expect(existsSync(from)).toBe(false);
      expect(statSync(join(to, 'PG_VERSION')).ino).toBe(inode);
      expect(readdirSync(to).sort()).toEqual(['PG_VERSION', 'base']);
    }
  });

  it('refuses a directory that is not empty, leaving both as they were, and a spare another start took', () => {
    const from = spare();
    const to = newDir();
    mkdirSync(to);
    writeFileSync(join(to, 'notes.txt'), 'mine\n');
    expect(moveDir(from, to)).toBe(false);
    expect(readdirSync(to)).toEqual(['notes.txt']);
    expect(readdirSync(from).sort()).toEqual(['PG_VERSION', 'base']);
    expect(moveDir(join(root, 'taken'), newDir())).toBe(false);
  });
});

/** Runs src/main.ts to its exit; its stdout, stderr and exit code. */
function runMain(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      env: { PATH: process.env.PATH, LOG_LEVEL: 'info', PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    // A Lookout that started on a data directory it should have refused is stopped; the test then fails on its exit code.
    const timer = setTimeout(() => child.kill('SIGTERM'), 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

describe('node src/main.ts on a damaged DATA_DIR', () => {
  it('with Slack credentials: stops with one line naming the directory, exit code 1, nothing changed', async () => {
    const dir = await dataDirWithDigests();
    rmSync(join(dir, 'PG_VERSION'));
    const before = snapshot(dir);
    const { stdout, stderr, code } = await runMain({
      DATA_DIR: dir,
      SLACK_SIGNING_SECRET: '8f742231b10e8888abcd99yyyzzz85a5',
      SLACK_BOT_TOKEN: 'xoxb-test',
      ANALYTICS_API_URL: 'http://127.0.0.1:9',
      ANALYTICS_API_KEY: 'k',
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `DATA_DIR ${dir} is a PostgreSQL data directory without its PG_VERSION file (damaged); Lookout initialises only an empty or absent directory. Nothing was changed: restore it from a backup, or set DATA_DIR to an empty or absent directory.\n`,
    );
    expect(stdout).not.toMatch(/\n\s+at |Error/);
    expect(snapshot(dir)).toEqual(before);
  }, 90_000);

  it('the sandbox: the same one line and exit code 1', async () => {
    const dir = newDir();
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    const { stderr, code } = await runMain({ DATA_DIR: dir });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `DATA_DIR ${dir} is not empty and not a PostgreSQL data directory (it holds 1 entry: "notes.txt"); Lookout initialises only an empty or absent directory. Nothing was changed: restore it from a backup, or set DATA_DIR to an empty or absent directory.\n`,
    );
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  }, 90_000);

  it('--check-config refuses it with the same one line, as the start would', async () => {
    const dir = newDir();
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    const { stdout, stderr, code } = await runMain({ DATA_DIR: dir }, ['--check-config']);
    expect({ stdout, code }).toEqual({ stdout: '', code: 1 });
    expect(stderr).toBe(
      `DATA_DIR ${dir} is not empty and not a PostgreSQL data directory (it holds 1 entry: "notes.txt"); Lookout initialises only an empty or absent directory. Nothing was changed: restore it from a backup, or set DATA_DIR to an empty or absent directory.\n`,
    );
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    // An absent directory is one the start initialises: the sandbox runs from this clone.
    expect(await runMain({ DATA_DIR: join(dir, 'absent') }, ['--check-config'])).toEqual({
      stdout: 'configuration ok: no Slack credentials, so the sandbox runs\n',
      stderr: '',
      code: 0,
    });
  }, 90_000);
});
