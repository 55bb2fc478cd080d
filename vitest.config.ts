import { defineConfig } from 'vitest/config';

// Tests sit beside the code (src/**/foo.test.ts). Servers start on port 0, so files run in parallel safely.
// vitest's default runs cores − 1 files at once (one at a time on 2 cores). Four at once on 2 cores
// halved the wall time, but end-to-end tests that compare wall-clock throughput (report/story-e2e) then
// lost significance now and then, so the default stays until those run in their own serial group.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Runs made by the CLI in tests are not added to a results store (BENCHGATE_STORE=off), so tests that
    // list a results directory see only runs; the store's own tests turn it back on (cli/test-support/bench-sim.ts).
    env: { BENCHGATE_STORE: 'off' },
  },
});
