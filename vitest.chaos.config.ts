import { defineConfig } from 'vitest/config';

/** The chaos suite: Lookout's production entry point in child processes, killed and cut off for real (`npm run test:chaos`). */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
