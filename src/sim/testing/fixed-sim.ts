// Test helper: one fixed-profile simulator (constant TTFT and ITL: the figures a test reads are known)
// on port 0 and one temporary results folder for a test file; both gone after its tests.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { SimulatorHandle } from '../api.js';
import { startSimulator } from '../index.js';

/** Call at module level; `url()` is the simulator's address once the tests run, `out` the folder. */
export function fixedSimForFile(
  prefix: string,
  timing: { ttftMs: number; itlMs: number },
): { url: () => string; out: string } {
  const out = mkdtempSync(join(tmpdir(), prefix));
  let sim: SimulatorHandle | null = null;
  beforeAll(async () => {
    sim = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, profile: 'fixed', ...timing });
    await sim.ready;
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(out, { recursive: true, force: true });
  });
  return {
    url: () => {
      if (!sim) throw new Error('the fixed simulator starts in beforeAll');
      return sim.url;
    },
    out,
  };
}
