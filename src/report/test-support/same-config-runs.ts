// Test support: one config benched several times against one SGLang simulator through the real CLI, as a
// user repeats a run (levels 1 and 4, 12 requests of 256 + 16 tokens), and compared with `compare`.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from '../../cli/test-support/run-cli.js';
import { type SimulatorHandle, startSimulator } from '../../sim/index.js';

/** What these tests read of compare.json. */
export interface CompareJson {
  validity: {
    runs: { run: string; levels: Record<string, { reasons: { check: string; text: string }[] }> }[];
  };
  cache: { run: string; label: string; share: number | null; source: string | null; text: string }[];
  verdicts: { metric: string; text: string; family?: string[] }[];
  summary: string[];
}

export interface SameConfigRuns {
  /** The folder the runs (and anything else of the test) go into; removed by close. */
  dir: string;
  /** One `bench` run of the shared config into its own folder; returns its run directory. */
  bench(name: string, extra: string[]): Promise<string>;
  /** `compare` of run directories (and flags) in a format; returns its stdout. */
  compare(args: string[], format: string): Promise<string>;
  close(): Promise<void>;
}

export async function sameConfigRuns(prefix: string): Promise<SameConfigRuns> {
  const out = mkdtempSync(join(tmpdir(), prefix));
  // time scale 0.5: the story model at half speed (a request of 256 + 16 tokens takes ~0.4 s at
  // concurrency 1), so a host hiccup of tens of ms on a busy machine is a small share of each request
  const sim: SimulatorHandle = await startSimulator({
    host: '127.0.0.1',
    port: 0,
    loadTimeS: 0,
    timeScale: 0.5,
  });
  await sim.ready;
  return {
    dir: out,
    async bench(name, extra) {
      const dir = join(out, name);
      const load = ['--concurrency', '1,4', '--requests', '12'];
      const lengths = ['--input-tokens', '256', '--output-tokens', '16'];
      const r = await runCli([
        ...['bench', '--url', sim.url, ...load, ...lengths],
        ...['--name', name, '--out', dir, '--json', ...extra],
      ]);
      expect(r.code, r.stderr).toBe(0);
      return join(dir, readdirSync(dir)[0]);
    },
    async compare(args, format) {
      const r = await runCli(['compare', ...args, '--format', format]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    },
    async close() {
      await sim.close();
      rmSync(out, { recursive: true, force: true });
    },
  };
}
