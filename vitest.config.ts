import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The sandbox package's own tests (packages/sandbox/test) run here too: npm test runs everything.
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // The slow suite (*.slow.test.ts) runs on its own: npm run test:slow.
    exclude: ['**/*.slow.test.ts', 'node_modules/**'],
    setupFiles: ['test/support/slack-rules-guard.ts'],
    // Sized for a machine busy with other work (npm test passes beside a CPU-bound loop, .ci/run):
    // a timeout only costs time when a test fails. No test asserts how long something took.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    // Two files at a time on 2 cores: npm test takes 3 min 20 s instead of 5 min 40 s (vitest's default here is one).
    maxWorkers: 2,
  },
});
