// The runs `npm run bench:verdicts` judges: one-trial benches of the embedded simulator (each its own
// child process, so a CPU hog slows server and client alike), made in interleaved rounds A B, A B …;
// consecutive rounds assembled into one run of repeated trials per side (as the matrix assembles its
// rounds: every record moved onto the first run's clock), and a CPU hog of child processes.

import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { shiftRecord } from '../matrix/assemble-run.js';
import { planSchema } from '../plan/schema.js';
import type { LoadedRun } from '../results/layout.js';
import { readRun } from '../results/read-run.js';
import { runBench } from '../session/run-bench.js';

export interface RoundShape {
  outDir: string;
  requests: number;
  concurrency: number;
  timeScale: number;
}

/** One one-trial bench of a fresh simulator with `faults`; the run as read back from disk. */
async function benchOnce(name: string, faults: string[], s: RoundShape): Promise<LoadedRun> {
  const plan = planSchema.parse({
    name,
    workload: { input_tokens: { fixed: 128 }, output_tokens: { fixed: 64 }, ignore_eos: true },
    load: { kind: 'concurrency', levels: [s.concurrency], requests: s.requests, warmup: s.concurrency },
    output: s.outDir,
  });
  const res = await runBench({ plan, simulator: { timeScale: s.timeScale, faults } });
  return readRun(res.runDir);
}

/** `rounds` rounds of A then B (B with `faultsB`), each a one-trial bench; [A runs, B runs]. */
export async function interleavedRounds(
  rounds: number,
  faultsB: string[],
  s: RoundShape,
  progress: (line: string) => void,
): Promise<[LoadedRun[], LoadedRun[]]> {
  const a: LoadedRun[] = [];
  const b: LoadedRun[] = [];
  for (let t = 0; t < rounds; t++) {
    a.push(await benchOnce('a', [], s));
    b.push(await benchOnce('b', faultsB, s));
    progress(`  round ${t + 1}/${rounds}`);
  }
  return [a, b];
}

/** One-trial runs of one side made into one run of repeated trials, on the first run's clock. */
export function asTrials(name: string, runs: readonly LoadedRun[]): LoadedRun {
  const first = runs[0];
  const wall = (r: LoadedRun) => r.manifest?.anchor.wallEpochMs ?? 0;
  const perRun = first.summary.levels.length;
  const levels = runs.flatMap((r, t) =>
    r.summary.levels.map((l) => ({ ...l, levelIndex: t * perRun + l.levelIndex, trial: t + 1 })),
  );
  const records = runs.flatMap((r, t) =>
    r.records.map((x) => ({
      ...shiftRecord(x, wall(r) - wall(first)),
      levelIndex: t * perRun + x.levelIndex,
    })),
  );
  return { ...first, name, summary: { ...first.summary, name, levels }, records };
}

/** A run renamed (compare needs distinct names). */
export const named = (name: string, r: LoadedRun): LoadedRun => ({
  ...r,
  name,
  summary: { ...r.summary, name },
});

/** Busy-looping child processes, 2 per core, each ending by itself after `maxS` at the latest. */
export function startCpuHog(maxS: number): { stop: () => void; processes: number } {
  const n = 2 * cpus().length;
  const code = `const end = Date.now() + ${Math.round(maxS * 1000)}; while (Date.now() < end) {}`;
  const children: ChildProcess[] = Array.from({ length: n }, () =>
    spawn(process.execPath, ['-e', code], { stdio: 'ignore' }),
  );
  const stop = () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  };
  process.once('exit', stop);
  return { stop, processes: n };
}
