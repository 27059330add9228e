import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../src/features/index.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** Runs the project's rules over `src/` and `packages/` in `cwd`; the violations found. */
async function cruise(cwd: string): Promise<Violation[]> {
  const run = promisify(execFile);
  const { stdout } = await run(DEPCRUISE, ['src', 'packages', '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** A small tree shaped like Lookout's, with one violation of each rule planted in it. */
const PLANTED: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
    include: ['src', 'packages'],
  }),
  'package.json': JSON.stringify({
    type: 'module',
    workspaces: ['packages/*'],
    devDependencies: { '@lookout/sandbox': '*', devtool: '1' },
  }),
  'packages/sandbox/package.json': JSON.stringify({
    name: '@lookout/sandbox',
    type: 'module',
    exports: { '.': './src/start.ts' },
  }),
  'node_modules/devtool/package.json': JSON.stringify({ name: 'devtool', version: '1.0.0', main: 'index.js' }),
  'node_modules/devtool/index.js': 'export const tool = 1;',
  'node_modules/stray/package.json': JSON.stringify({ name: 'stray', version: '1.0.0', main: 'index.js' }),
  'node_modules/stray/index.js': 'export const stray = 1;',
  'src/kernel/text.ts': "import { tool } from 'devtool';\nexport const t = tool;",
  'src/config.ts': 'export const config = 1;',
  'src/platform/log.ts': 'export const log = 1;',
  'src/kernel/dates.ts': "import { log } from '../platform/log.js';\nexport const d = log;",
  'src/platform/slack/kit/limits.ts': "import { log } from '../../log.js';\nexport const k = log;",
  'src/platform/store/db.ts': "import { s } from '../../features/foo/service.js';\nexport const db = s;",
  'src/features/bar/repo.ts': 'export const r = 1;',
  'src/features/bar/service.ts': 'export const bs = 1;',
  'src/features/bar/index.ts': "export { bs } from './service.js';",
  'src/features/index.ts': 'export const all = 1;',
  'src/features/foo/index.ts':
    "import { bs } from '../bar/index.js';\nexport const bi = bs;\nexport { all } from '../index.js';",
  'src/context.ts': "import { bs } from './features/bar/index.js';\nexport const ctx = bs;",
  'src/platform/feature.ts': "import { ctx } from '../context.js';\nexport const f = ctx;",
  'src/features/foo/service.ts': "import { r } from '../bar/repo.js';\nexport const s = r;",
  'src/features/foo/parse.ts': "import { s } from './service.js';\nexport const p = s;",
  'src/features/foo/blocks.ts': "import { c } from '../../compose.js';\nexport const b = c;",
  'src/features/foo/listeners.ts':
    "import { db } from '../../platform/store/db.js';\nimport { bs } from '../bar/service.js';\nimport { bi } from '../bar/index.js';\nexport const l = [db, bs, bi];",
  'src/compose.ts': "import { box } from '@lookout/sandbox';\nexport const c = box;",
  'src/main.ts': "import { box } from '@lookout/sandbox';\nexport const m = box;",
  'packages/sandbox/src/start.ts':
    "import { config } from '../../../src/config.js';\nimport { ui } from './ui.js';\nexport const box = [config, ui];",
  'packages/sandbox/src/ui.ts': "import { stray } from 'stray';\nexport const ui = stray;",
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
    // npm links a workspace package into node_modules.
    mkdirSync(join(planted, 'node_modules/@lookout'));
    symlinkSync('../../packages/sandbox', join(planted, 'node_modules/@lookout/sandbox'));
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
        'wiring-knows-only-the-feature-list: src/context.ts → src/features/bar/index.ts',
        'kit-is-pure: src/platform/slack/kit/limits.ts → src/platform/log.ts',
        'listeners-import-their-feature-and-slack: src/features/foo/listeners.ts → src/platform/store/db.ts',
        'main-loads-the-sandbox-lazily: src/main.ts → packages/sandbox/src/start.ts',
        'no-circular: src/features/bar/a.ts → src/features/bar/b.ts',
        'platform-knows-no-feature: src/platform/store/db.ts → src/features/foo/service.ts',
        'packages-declare-what-they-use: packages/sandbox/src/ui.ts → node_modules/stray/index.js',
        'product-never-imports-the-sandbox: src/compose.ts → packages/sandbox/src/start.ts',
        'product-runs-on-production-dependencies: src/kernel/text.ts → node_modules/devtool/index.js',
        'pure-files-import-only-kernel: src/features/foo/blocks.ts → src/compose.ts',
        'pure-files-import-only-kernel: src/features/foo/parse.ts → src/features/foo/service.ts',
        'sandbox-knows-only-protocols: packages/sandbox/src/start.ts → src/config.ts',
      ].sort(),
    );
  });
});

/**
 * Words that name a feature and also a thing of Slack's or of the analytics API, which the
 * platform serves whatever the features: Slack's workspaces and its App Home surface, the
 * API's visitors and reports.
 */
const ALSO_PLATFORM_WORDS = new Set(['workspace', 'home', 'visitor', 'reports']);

/** Where code (identifiers and strings, not comments) names one of `names`: `line:word`. */
function featureNamesIn(code: string, names: readonly string[]): string[] {
  const file = ts.createSourceFile('x.ts', code, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) || ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      const words = node.text
        .replace(/([a-z])([A-Z])/g, '$1 $2')
        .toLowerCase()
        .split(/[^a-z]+/);
      for (const word of words.filter((w) => names.includes(w)))
        found.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}:${word}`);
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.ts'))
    .map((p) => join(dir, p));
}

describe('the platform, compose.ts and context.ts name no feature', () => {
  const names = FEATURES.map((f) => f.name).filter((n) => !ALSO_PLATFORM_WORDS.has(n));

  it('finds no feature name in their code (comments are prose)', () => {
    const files = [
      ...sourcesUnder(join(ROOT, 'src/platform')),
      join(ROOT, 'src/compose.ts'),
      join(ROOT, 'src/context.ts'),
    ];
    const found = files.flatMap((f) =>
      featureNamesIn(readFileSync(f, 'utf8'), names).map((hit) => `${f.slice(ROOT.length + 1)}:${hit}`),
    );
    expect(found).toEqual([]);
  });

  it('bites: an identifier, a string and a template naming a feature are found, a comment is not', () => {
    const planted = [
      '// the digests run on time',
      'const watchesDue = 1;',
      "const kind = 'trends';",
      'const where = `${kind} in alerts`;',
    ].join('\n');
    expect(featureNamesIn(planted, ['digests', 'watches', 'trends', 'alerts'])).toEqual([
      '2:watches',
      '3:trends',
      '4:alerts',
    ]);
  });
});
