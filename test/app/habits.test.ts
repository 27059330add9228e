/**
 * Habits the code keeps, checked so they stay kept: files short enough to read whole, and a
 * README short enough to read first (docs/ holds the rest).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** The one file allowed over the limit: Slack's rules, one check per rule, each with its source. */
const LONG_BY_NATURE = new Set(['src/slack-rules/validate.ts']);
const MAX_LINES = 450;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((p) => /\.(ts|js)$/.test(p) && !p.includes('node_modules'))
    .map((p) => join(dir, p));
}

describe('habits', () => {
  it(`no source file is over ${MAX_LINES} lines`, () => {
    const files = [...sources('src'), ...sources('packages/sandbox/src')];
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .filter((f) => !LONG_BY_NATURE.has(f))
      .map((f) => ({ f, lines: readFileSync(join(ROOT, f), 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `${relative('.', f)}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it('the README is under 900 words', () => {
    const words = readFileSync(join(ROOT, 'README.md'), 'utf8').split(/\s+/).filter(Boolean).length;
    expect(words).toBeLessThan(900);
  });
});
