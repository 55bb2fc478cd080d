import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests sit beside the code (src/**/foo.test.ts). Every run gets its own temporary folder and every test
// process an empty home (src/test-support/test-env.ts), so tests leave nothing behind and never read the
// user's ~/.cache or BENCHGATE_* settings.
//
// Most files wait on servers and child processes on port 0, so they run several at once even on 2 cores.
// The files below judge wall-clock figures of real servers (throughput, timer timing, in-flight counts);
// other files running beside them on a small machine skew what they measure (four at once cost the story
// test its significance now and then), so they run one at a time after the rest, on a quieter machine.
const WALL_CLOCK_SENSITIVE = [
  // throughput verdicts between three configurations, measured live against three simulators
  'src/report/story-e2e.test.ts',
  // throughput orderings of the story profile's configurations, measured live
  'src/sim/model-orderings.test.ts',
  // the client's TTFT against the simulator's own, per request
  'src/session/fixed-profile-parity.test.ts',
  // level durations, sends against the deadline, requests in flight at once
  'src/load/level-runner.test.ts',
  // worker threads' stamps against the parent's clock and one common start
  'src/load/worker-pool.test.ts',
  // open-loop arrivals that must fall inside a back-off window
  'src/load/failure-policy.test.ts',
  // a bench level that must be valid: a host that delays the client's event loop makes it suspect
  'src/session/gpu-telemetry.test.ts',
  // the most connections a simulator with 6 HTTP threads saw at once, against a server closing each
  // stream: with four files at once it now and then saw one more than the client held
  'src/client/connection-budget.test.ts',
  // two runs of one config with trials must read "no meaningful difference" in throughput (the replay
  // of the same prompts, judged on cache counters, runs with the rest: replay-cache-e2e.test.ts)
  'src/report/repeat-run-e2e.test.ts',
];

// a file renamed or split away would silently leave the group: say so instead
for (const file of WALL_CLOCK_SENSITIVE)
  if (!existsSync(new URL(file, import.meta.url)))
    throw new Error(`vitest.config.ts lists ${file} as wall-clock sensitive, but there is no such file`);

const PARALLEL_FILES = Math.max(4, availableParallelism());

// A guard against hangs, not a speed check (the bench scripts measure speed): with several files at once
// on 2 cores a test's wall time can double, so the limit is generous.
const shared = {
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: 'forks',
  setupFiles: ['src/test-support/vitest-setup-file.ts'],
} as const;

export default defineConfig({
  test: {
    globalSetup: ['src/test-support/vitest-global-setup.ts'],
    projects: [
      {
        test: {
          ...shared,
          name: 'parallel',
          include: ['src/**/*.test.ts'],
          exclude: WALL_CLOCK_SENSITIVE,
          maxWorkers: PARALLEL_FILES,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: 'wall-clock',
          include: WALL_CLOCK_SENSITIVE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
