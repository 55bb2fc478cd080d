import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests sit beside the code (src/**/foo.test.ts). Servers start on port 0, so files run in parallel safely.
// Most files wait on servers they started (simulated time, sleeps, child processes) rather than compute,
// so more files run at once than there are cores: vitest's default (cores − 1) ran them one at a time on
// a 2-core machine; 4 there halved the suite's wall time with the same results.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: Math.max(4, availableParallelism()),
  },
});
