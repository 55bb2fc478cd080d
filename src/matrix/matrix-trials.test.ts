// Repeated trials in the matrix against the simulator launched as real child processes: two identical
// configs with load.trials: 2 run in rounds (a b, a b), every visit a launch of its own; each config's
// run holds both trials of every level, tagged as bench tags them, and the comparison of the two
// identical configs pools the trials and reads "no meaningful difference".

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../metrics/summary.js';
import { defaultStages } from './default-stages.js';
import { freeLoopbackPorts } from './free-port.js';
import { MATRIX_SUMMARY_FILE, runMatrix } from './run-matrix.js';
import { readMatrixState } from './state.js';
import {
  pidsWithMarker,
  requestsPerLevel,
  simConfig,
  testPlan,
  uniqueMarker,
} from './test-support/matrix-fixtures.js';

let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'bg-matrix-trials-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

interface CompareJson {
  verdicts: { metric: string; text: string }[];
  summary: string[];
}

async function summaryOf(dir: string): Promise<RunSummary> {
  return JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')) as RunSummary;
}

describe('the matrix with load.trials: 2', () => {
  it('runs the configs in rounds (a b a b), keeps both trials of every level, and compares them pooled', async () => {
    const marker = uniqueMarker();
    const [pa, pb] = await freeLoopbackPorts(2);
    const plan = testPlan(
      out,
      [
        simConfig({ name: 'a', port: pa!, marker, timeScale: 1 }),
        simConfig({ name: 'b', port: pb!, marker, timeScale: 1 }),
      ],
      {
        workload: { input_tokens: { fixed: 256 }, output_tokens: { fixed: 16 }, ignore_eos: true },
        load: { kind: 'concurrency', levels: [1, 4], requests: 12, trials: 2 },
      },
    );
    const logs: string[] = [];
    const launches: string[] = [];
    const result = await runMatrix({
      plan,
      planPath: null,
      stages: defaultStages(),
      log: (l) => logs.push(l),
      onStage: (config, stage) => {
        if (stage === 'launch') launches.push(config);
      },
    });
    const log = logs.join('\n');
    expect(log).toContain('trials: 2 rounds × 2 configs = 4 launches');
    expect(launches).toEqual(['a', 'b', 'a', 'b']);
    const headers = logs.filter((l) => /══ round|── [ab]/.test(l)).map((l) => l.trim());
    expect(headers).toEqual([
      '══ round 1/2 ══',
      '── a, trial 1/2 ──',
      '── b, trial 1/2 ──',
      '══ round 2/2 ══',
      '── a, trial 2/2 ──',
      '── b, trial 2/2 ──',
    ]);
    expect(result.configs.map((c) => c.status)).toEqual(['completed', 'completed']);
    const state = await readMatrixState(result.matrixDir);
    for (const c of result.configs) {
      expect(state?.configs[c.name]).toMatchObject({ status: 'completed', trial: 2, stage: null });
      expect(state?.configs[c.name]?.completedLevels).toEqual([0, 1, 2, 3]);
      const s = await summaryOf(c.dir);
      expect(s.incomplete).toBeUndefined();
      expect(s.levels.map((l) => [l.level.value, l.trial, l.levelIndex])).toEqual([
        [1, 1, 0],
        [4, 1, 1],
        [1, 2, 2],
        [4, 2, 3],
      ]);
      expect(await requestsPerLevel(c.dir)).toEqual({ 0: 12, 1: 12, 2: 12, 3: 12 });
    }
    const cmp = result.comparison?.json as CompareJson;
    // the rounds ran a b a b, so compare resamples them as pairs
    expect(cmp.summary).toContainEqual(
      expect.stringMatching(/^Intervals resample interleaved rounds as pairs/),
    );
    const throughput = cmp.verdicts.find((v) => v.metric === 'output_throughput');
    expect(throughput?.text).toMatch(/^b and a: no meaningful difference in output throughput/);
    const summary = await readFile(join(result.matrixDir, MATRIX_SUMMARY_FILE), 'utf8');
    expect(summary).toContain('a: completed, 4/4 levels, 2 trials of 2');
    expect(await pidsWithMarker(marker)).toEqual([]);
  }, 240_000);
});
