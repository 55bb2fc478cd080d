// vitest global setup (vitest.config.ts): before any test process starts, the run gets its own temporary
// folder (TMPDIR, inherited by the test processes and every child they start) and loses the BENCHGATE_*
// settings of the shell it was started from; when the run ends the folder goes, with all the tests left in it.

import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRunRoot, removeAbandonedRunRoots, scrubBehaviourEnv } from './test-env.js';

export default function setup(): () => void {
  const parentTmp = tmpdir();
  removeAbandonedRunRoots(parentTmp);
  const root = createRunRoot(parentTmp, process.env);
  scrubBehaviourEnv(process.env);
  return () => {
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      // e.g. a tmpfs a failed test left mounted: say so rather than leave it unnoticed
      console.warn(`benchgate tests: could not remove ${root}: ${(e as Error).message}`);
    }
  };
}
