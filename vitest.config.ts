import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The chaos suite runs on its own: npm run test:chaos.
    exclude: ['test/chaos/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
