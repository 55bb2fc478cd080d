// Test helper: one real `benchgate bench` (the CLI, in its own process) against a simulator the test starts
// on port 0 with the given options (faults, engine flags, environment); returns the new run directory.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SimulatorOptions } from '../../sim/api.js';
import { startSimulator } from '../../sim/index.js';
import { runCli } from './run-cli.js';

export interface BenchSimOptions {
  results: string;
  name: string;
  sim?: SimulatorOptions;
  /** bench flags after the URL (default: two short levels). */
  args?: string[];
  /** Called with the simulator's URL before the bench starts (e.g. to watch it). */
  onStart?: () => void;
}

export const SHORT_LEVELS = [
  ...['--concurrency', '2,8', '--requests', '32', '--warmup', '2'],
  ...['--input-tokens', '64', '--output-tokens', '24'],
];

export async function benchAgainstSimulator(
  o: BenchSimOptions,
): Promise<{ dir: string; code: number | null; stderr: string }> {
  const sim = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, timeScale: 1, ...o.sim });
  await sim.ready;
  try {
    const before = new Set(readdirSync(o.results));
    // the suite turns recording off (test-support/test-env.ts); these runs are recorded, as a user's are
    const args = [
      'bench',
      '--url',
      sim.url,
      ...(o.args ?? SHORT_LEVELS),
      '--out',
      o.results,
      '--name',
      o.name,
    ];
    const running = runCli(args, { env: { BENCHGATE_STORE: '' } });
    o.onStart?.();
    const r = await running;
    const added = readdirSync(o.results).filter((d) => !before.has(d) && d.includes(o.name));
    if (added.length !== 1)
      throw new Error(
        `expected one new run directory for ${o.name}; found ${added.join(', ') || 'none'}: ${r.stderr}`,
      );
    return { dir: join(o.results, added[0]), code: r.code, stderr: r.stderr };
  } finally {
    await sim.close();
  }
}
