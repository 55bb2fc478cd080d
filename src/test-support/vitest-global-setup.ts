// vitest global setup (vitest.config.ts): before any test process starts, the run gets its own temporary
// folder (TMPDIR, inherited by the test processes and every child they start), trades the BENCHGATE_*
// settings of the shell it was started from for the suite's own (test-env.ts), and builds the CLI the tests start (cli-build.ts). When the
// run ends the folder goes, with everything the tests left in it.

import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCliForTests, TEST_CLI_VAR } from './cli-build.js';
import { createRunRoot, removeAbandonedRunRoots, useSuiteSettings } from './test-env.js';

export default async function setup(): Promise<() => void> {
  const parentTmp = tmpdir();
  removeAbandonedRunRoots(parentTmp);
  const root = createRunRoot(parentTmp, process.env);
  useSuiteSettings(process.env);
  const teardown = () => {
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      // e.g. a tmpfs a failed test left mounted: say so rather than leave it unnoticed
      console.warn(`benchgate tests: could not remove ${root}: ${(e as Error).message}`);
    }
  };
  try {
    process.env[TEST_CLI_VAR] = await buildCliForTests(join(root, 'cli'));
  } catch (e) {
    teardown();
    throw e;
  }
  return teardown;
}
