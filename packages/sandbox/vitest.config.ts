import { defineConfig } from 'vitest/config';

/** The sandbox's own tests (`npm test` here); the root's `npm test` runs them too, with the product's. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    maxWorkers: 2,
  },
});
