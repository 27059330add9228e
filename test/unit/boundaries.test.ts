import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Runs the project's rules over `src/` in `cwd`; the violations found. */
async function cruise(cwd: string): Promise<Violation[]> {
  const run = promisify(execFile);
  const { stdout } = await run(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** A small tree shaped like Lookout's, with one violation of each rule planted in it. */
const PLANTED: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }),
  'package.json': JSON.stringify({ type: 'module' }),
  'src/config.ts': 'export const config = 1;',
  'src/platform/log.ts': 'export const log = 1;',
  'src/kernel/dates.ts': "import { log } from '../platform/log.js';\nexport const d = log;",
  'src/platform/slack/kit/limits.ts': "import { log } from '../../log.js';\nexport const k = log;",
  'src/platform/store/db.ts': "import { s } from '../../features/foo/service.js';\nexport const db = s;",
  'src/features/bar/repo.ts': 'export const r = 1;',
  'src/features/bar/service.ts': 'export const bs = 1;',
  'src/features/bar/index.ts': "export { bs } from './service.js';",
  'src/features/index.ts': 'export const all = 1;',
  'src/features/foo/index.ts': "import { bs } from '../bar/index.js';\nexport const bi = bs;\nexport { all } from '../index.js';",
  'src/context.ts': 'export const ctx = 1;',
  'src/platform/feature.ts': "import { ctx } from '../context.js';\nexport const f = ctx;",
  'src/features/foo/service.ts': "import { r } from '../bar/repo.js';\nexport const s = r;",
  'src/features/foo/parse.ts': "import { s } from './service.js';\nexport const p = s;",
  'src/features/foo/blocks.ts': "import { c } from '../../compose.js';\nexport const b = c;",
  'src/features/foo/listeners.ts': "import { db } from '../../platform/store/db.js';\nimport { bs } from '../bar/service.js';\nimport { bi } from '../bar/index.js';\nexport const l = [db, bs, bi];",
  'src/compose.ts': "import { box } from './sandbox/start.js';\nexport const c = box;",
  'src/main.ts': "import { box } from './sandbox/start.js';\nexport const m = box;",
  'src/sandbox/start.ts': "import { config } from '../config.js';\nexport const box = config;",
  'src/features/bar/a.ts': "import { b } from './b.js';\nexport const a = () => b;",
  'src/features/bar/b.ts': "import { a } from './a.js';\nexport const b = () => a;",
};

// That the rules hold for the code itself is `npm run boundaries`, a step of `npm test` before vitest
// (12 s here of depcruise over src/; run twice, it made this file time out on a loaded machine).
describe('the layering rules (.dependency-cruiser.cjs)', () => {
  const planted = mkdtempSync(join(tmpdir(), 'lookout-boundaries-'));
  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  it('catch each planted violation, and only those', async () => {
    for (const [path, text] of Object.entries(PLANTED)) {
      mkdirSync(dirname(join(planted, path)), { recursive: true });
      writeFileSync(join(planted, path), text);
    }
    const found = (await cruise(planted)).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(found.sort()).toEqual(
      [
        'features-are-not-wiring: src/features/foo/blocks.ts → src/compose.ts',
        'features-meet-through-their-index: src/features/foo/service.ts → src/features/bar/repo.ts',
        'features-meet-through-their-index: src/features/foo/listeners.ts → src/features/bar/service.ts',
        'listeners-import-their-feature-and-slack: src/features/foo/listeners.ts → src/features/bar/service.ts',
        'features-meet-through-their-index: src/features/foo/index.ts → src/features/index.ts',
        'features-are-not-wiring: src/features/foo/index.ts → src/features/index.ts',
        'platform-knows-no-feature: src/platform/feature.ts → src/context.ts',
        'kernel-is-pure: src/kernel/dates.ts → src/platform/log.ts',
        'kit-is-pure: src/platform/slack/kit/limits.ts → src/platform/log.ts',
        'listeners-import-their-feature-and-slack: src/features/foo/listeners.ts → src/platform/store/db.ts',
        'main-loads-the-sandbox-lazily: src/main.ts → src/sandbox/start.ts',
        'no-circular: src/features/bar/a.ts → src/features/bar/b.ts',
        'platform-knows-no-feature: src/platform/store/db.ts → src/features/foo/service.ts',
        'product-never-imports-the-sandbox: src/compose.ts → src/sandbox/start.ts',
        'pure-files-import-only-kernel: src/features/foo/blocks.ts → src/compose.ts',
        'pure-files-import-only-kernel: src/features/foo/parse.ts → src/features/foo/service.ts',
        'sandbox-knows-only-protocols: src/sandbox/start.ts → src/config.ts',
      ].sort(),
    );
  });
});
