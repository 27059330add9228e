import { defineConfig } from 'vitest/config';

/**
 * The slow suite (`npm run test:slow`): the chaos scenarios (Lookout's production entry point
 * in child processes, killed and cut off for real) and the container build made by hand.
 */
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts', 'test/slow/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
