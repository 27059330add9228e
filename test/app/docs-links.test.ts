/**
 * Every relative link in README.md, CONTRIBUTING.md and docs/**\/*.md points at a file that exists
 * and, with a #fragment, at a heading that file has (GitHub's anchors). Links to other sites are not
 * followed. Every repository path those docs name in code (`src/…`, `test/…`, `manifest.json`, …) exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Broken {
  file: string;
  line: number;
  target: string;
  why: string;
}

/** Fenced code blocks blanked (lines kept, so line numbers stay true). */
function withoutFences(md: string): string[] {
  let fence: string | undefined;
  return md.split('\n').map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && open) {
      fence = open[1]!;
      return '';
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence[0]!.repeat(fence.length)) && line.trim().replace(/[`~]/g, '') === '')
        fence = undefined;
      return '';
    }
    return line;
  });
}

const withoutCodeSpans = (line: string): string =>
  line.replace(/(`+)(.+?)\1/g, (_, ticks: string) => ' '.repeat(ticks.length));

/** A heading's anchor as GitHub makes it: its text, lowercased, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/<[^>]+>/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown file's headings make, duplicates numbered as GitHub numbers them. */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutFences(md)) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every link target in a Markdown file, inline (`[a](b)`, `![a](b)`) or by reference (`[a]: b`), outside code. */
export function linkTargets(md: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  withoutFences(md).forEach((raw, i) => {
    const line = withoutCodeSpans(raw);
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      out.push({ line: i + 1, target: m[1]! });
    const ref = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (ref) out.push({ line: i + 1, target: ref[1]! });
  });
  return out;
}

/**
 * The links among `files` (repository paths → text) that do not resolve. `exists` answers for
 * other files, and `read` gives another Markdown file's text for its headings.
 */
export function brokenLinks(
  files: Map<string, string>,
  exists: (path: string) => boolean,
  read: (path: string) => string | undefined = () => undefined,
): Broken[] {
  const broken: Broken[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchorsIn = (path: string): Set<string> | undefined => {
    if (!anchorsOf.has(path)) {
      const text = files.get(path) ?? read(path);
      if (text === undefined) return undefined;
      anchorsOf.set(path, anchors(text));
    }
    return anchorsOf.get(path);
  };
  for (const [file, md] of files) {
    for (const { line, target } of linkTargets(md)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const fragment = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const path =
        pathPart === ''
          ? file
          : pathPart.startsWith('/')
            ? posix.normalize(pathPart.slice(1))
            : posix.normalize(posix.join(posix.dirname(file), pathPart));
      if (path.startsWith('..')) {
        broken.push({ file, line, target, why: 'points outside the repository' });
        continue;
      }
      const target_ = path.replace(/\/$/, '');
      if (!files.has(target_) && !exists(target_)) {
        broken.push({ file, line, target, why: `no file ${target_}` });
        continue;
      }
      if (fragment === undefined || fragment === '') continue;
      if (!target_.endsWith('.md')) continue;
      const known = anchorsIn(target_);
      if (!known?.has(fragment.toLowerCase())) {
        broken.push({ file, line, target, why: `${target_} has no heading #${fragment}` });
      }
    }
  }
  return broken;
}

const REPO_PATH = /^(?:src|test|bench|packages|docs|\.ci)\//;
const ROOT_FILE = /^(?:\.?[\w-]+(?:\.[\w-]+)*\.(?:json|md|cjs|mjs|ya?ml)|Dockerfile|\.[\w-]+ignore)$/;

/** Where a path the docs write from inside `src/` lives: `platform/open.ts`, `kit/seal.ts`, `alerts/scan.ts`. */
function underSrc(word: string, features: readonly string[]): string | undefined {
  const first = word.split('/')[0]!;
  if (['kernel', 'platform', 'features', 'slack-rules'].includes(first)) return `src/${word}`;
  if (first === 'kit') return `src/platform/slack/${word}`;
  if (features.includes(first)) return `src/features/${word}`;
  return undefined;
}

/**
 * The repository paths a Markdown file names in code spans and link texts, outside fences: a word
 * that starts with `src/`, `test/`, `bench/`, `packages/`, `docs/` or `.ci/`; one written from
 * inside `src/` (`platform/…`, `kernel/…`, `kit/…`, a feature's folder); or a whole span that names a
 * root file (`manifest.json`). A `:line` or `#anchor` after it is dropped; a pattern (`<name>`,
 * `*`, `…`) is not a path.
 */
export function namedPaths(md: string, features: readonly string[] = []): { line: number; path: string; at: string }[] {
  const out: { line: number; path: string; at: string }[] = [];
  withoutFences(md).forEach((raw, i) => {
    const spans = [...raw.matchAll(/(`+)(.+?)\1/g)].map((m) => m[2]!.trim());
    const linkTexts = [...withoutCodeSpans(raw).matchAll(/\[([^\]]+)\]\(/g)].map((m) => m[1]!.trim());
    for (const text of [...spans, ...linkTexts]) {
      const words = ROOT_FILE.test(text) ? [text] : text.split(/\s+/).map((w) => w.replace(/^["'(]+|["'),;.]+$/g, ''));
      for (const word of words) {
        if (/[<>*{}…$]/.test(word)) continue;
        const path = word.replace(/(?::\d+(?:-\d+)?|#.*)$/, '');
        const at = ROOT_FILE.test(text) || REPO_PATH.test(path) ? path : underSrc(path, features);
        if (at !== undefined) out.push({ line: i + 1, path, at: at.replace(/\/$/, '') });
      }
    }
  });
  return out;
}

/** The paths among `files` (repository paths → text) named in code that do not exist. */
export function stalePaths(
  files: Map<string, string>,
  exists: (path: string) => boolean,
  features: readonly string[] = [],
): Broken[] {
  const stale: Broken[] = [];
  for (const [file, md] of files) {
    for (const { line, path, at } of namedPaths(md, features)) {
      if (!files.has(at) && !exists(at)) stale.push({ file, line, target: path, why: `no file ${at}` });
    }
  }
  return stale;
}

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = posix.join(dir, e.name);
    if (e.isDirectory()) return markdownUnder(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

const exists = (p: string): boolean => existsSync(join(ROOT, p));

function docs(): Map<string, string> {
  const paths = ['README.md', 'CONTRIBUTING.md'].filter(exists).concat(markdownUnder('docs'));
  return new Map(paths.map((p) => [p, readFileSync(join(ROOT, p), 'utf8')]));
}

describe('links and code paths in the README, CONTRIBUTING.md and docs/', () => {
  it('every relative link points at a file that exists, and every #anchor at one of its headings', () => {
    // A linked Markdown file elsewhere (src/**/README.md) is read for its headings.
    const broken = brokenLinks(docs(), exists, (p) => (exists(p) ? readFileSync(join(ROOT, p), 'utf8') : undefined));
    expect(broken.map((b) => `${b.file}:${b.line} ${b.target}: ${b.why}`)).toEqual([]);
  });

  it('every repository path named in code exists', () => {
    const features = readdirSync(join(ROOT, 'src/features'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    const stale = stalePaths(docs(), exists, features);
    expect(stale.map((s) => `${s.file}:${s.line} names \`${s.target}\`: ${s.why}`)).toEqual([]);
  });

  it('finds the paths a doc names in code and link texts, and ignores patterns, commands and fences', () => {
    const md = [
      '`src/a.ts` `src/gone.ts:12` `docs/b.md#the-store` [`test/c.test.ts`](x) [src/gone/](y)',
      '`npx tsx bench/gone.ts --heavy 500` `manifest.json` `gone.json` `compose.ts` `src/features/<name>/index.ts`',
      '`docs/**/*.md` `src/…` src/unquoted.ts `package.json` `kit/gone.ts` `alerts/scan.ts:4` `dist/main.js`',
      '```',
      '`src/in-a-fence.ts`',
      '```',
    ].join('\n');
    const real = new Set([
      'src/a.ts',
      'docs/b.md',
      'test/c.test.ts',
      'manifest.json',
      'package.json',
      'src/features/alerts/scan.ts',
    ]);
    expect(namedPaths(md, ['alerts']).map((p) => `${p.line} ${p.path}`)).toEqual([
      '1 src/a.ts',
      '1 src/gone.ts',
      '1 docs/b.md',
      '1 test/c.test.ts',
      '1 src/gone/',
      '2 bench/gone.ts',
      '2 manifest.json',
      '2 gone.json',
      '3 package.json',
      '3 kit/gone.ts',
      '3 alerts/scan.ts',
    ]);
    const stale = stalePaths(new Map([['README.md', md]]), (p) => real.has(p), ['alerts']);
    expect(stale.map((s) => `${s.file}:${s.line} ${s.target}: ${s.why}`)).toEqual([
      'README.md:1 src/gone.ts: no file src/gone.ts',
      'README.md:1 src/gone/: no file src/gone',
      'README.md:2 bench/gone.ts: no file bench/gone.ts',
      'README.md:2 gone.json: no file gone.json',
      'README.md:3 kit/gone.ts: no file src/platform/slack/kit/gone.ts',
    ]);
  });

  it('catches a missing file, a missing heading and a missing anchor in the same file; ignores code and other sites', () => {
    const files = new Map([
      [
        'README.md',
        [
          '# Lookout',
          '## Start — `npm run bench -- start`',
          '## Start — `npm run bench -- start`',
          '[ok](docs/a.md#the-store) [ok](#start--npm-run-bench----start) [ok](#start--npm-run-bench----start-1)',
          '[gone](docs/missing.md) [no heading](docs/a.md#nowhere) [no anchor](#nowhere)',
          '`[in code](docs/missing.md)` [site](https://example.com/x.md) ![img](docs/pic.png)',
          '```',
          '[in a fence](docs/missing.md)',
          '```',
          '[ref]: docs/also-missing.md',
        ].join('\n'),
      ],
      ['docs/a.md', '# A\n\n## The store\n\n[up](../README.md#lookout) [out](../../x.md)'],
    ]);
    const broken = brokenLinks(files, (p) => p === 'docs/pic.png');
    expect(broken.map((b) => `${b.file}:${b.line} ${b.target}`)).toEqual([
      'README.md:5 docs/missing.md',
      'README.md:5 docs/a.md#nowhere',
      'README.md:5 #nowhere',
      'README.md:10 docs/also-missing.md',
      'docs/a.md:5 ../../x.md',
    ]);
  });

  it('makes anchors as GitHub does: punctuation dropped, code and emphasis kept as text', () => {
    expect(slug('`/traffic trend`: charts against the previous period')).toBe(
      'traffic-trend-charts-against-the-previous-period',
    );
    expect(slug('Each surface: who may do what, and the test that proves it')).toBe(
      'each-surface-who-may-do-what-and-the-test-that-proves-it',
    );
    expect(slug('The analytics API client (`src/platform/api/`)')).toBe('the-analytics-api-client-srcplatformapi');
    expect(slug('**Adding** a feature')).toBe('adding-a-feature');
  });
});
