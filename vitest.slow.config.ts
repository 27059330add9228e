import { defineConfig } from 'vitest/config';

/**
 * The slow suite (`npm run test:slow`, the files named `*.slow.test.ts`): the chaos scenarios (Lookout's production entry point
 * in child processes, killed and cut off for real), the container build made by hand, the
 * watch scenarios (hours of a living demo, replicas, restarts), the outbox's, grouped
 * alerts', the store's and the clock's fault scenarios, watch alerts explaining the demo's spikes, the three
 * personas, the README's demo spikes and the distributed install in a browser: kept
 * out of `npm test` so it stays under 6 minutes on 2 cores.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.slow.test.ts'],
    setupFiles: ['test/support/slack-rules-guard.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
