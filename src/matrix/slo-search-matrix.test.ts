// load.kind slo_search in the matrix, against two simulator configs launched as real child processes:
// each config runs the search (never the plan's default levels), keeps every probe and its
// slo-search.json, the comparison leads with the found loads; an unfinished search is re-run from the
// start on --resume while a completed one is kept.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../metrics/summary.js';
import { defaultStages } from './default-stages.js';
import { freeLoopbackPorts } from './free-port.js';
import { renderMatrixSummary } from './render-summary.js';
import { runMatrix } from './run-matrix.js';
import { readMatrixState, writeMatrixState } from './state.js';
import { pidsWithMarker, simConfig, testPlan, uniqueMarker } from './test-support/matrix-fixtures.js';

let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'bg-matrix-slo-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, 'utf8')) as T;

describe('the matrix with load.kind slo_search', () => {
  it('searches each config through its session, keeps every probe and the outcome, compares the found loads, and re-runs only an unfinished search on --resume', async () => {
    const marker = uniqueMarker();
    const [p1, p2] = await freeLoopbackPorts(2);
    const plan = testPlan(
      out,
      [simConfig({ name: 'base', port: p1, marker }), simConfig({ name: 'other', port: p2, marker })],
      {
        load: {
          kind: 'slo_search',
          requests: 4,
          slo_search: { over: 'concurrency', start: 2, max: 8, precision: 2, share: 0.5 },
        },
        slo: { ttft_ms: 2000, tpot_ms: 200 },
      },
    );
    const logs: string[] = [];
    const result = await runMatrix({
      plan,
      planPath: null,
      stages: defaultStages(),
      log: (l) => logs.push(l),
      progress: () => {},
      print: () => {},
    });
    expect(result.configs.map((c) => c.status)).toEqual(['completed', 'completed']);
    expect(logs.join('\n')).toContain('at most 12 probes per config');
    for (const c of result.configs) {
      const search = await readJson<{ probes: { value: number }[]; over: string; slo: unknown }>(
        join(c.dir, 'slo-search.json'),
      );
      expect(search.over).toBe('concurrency');
      expect(search.slo).toEqual({ ttft_ms: 2000, tpot_ms: 200 });
      const summary = await readJson<RunSummary>(join(c.dir, 'summary.json'));
      // every probe is a level of the config's run, in the order run, as concurrency (not the default levels)
      expect(summary.levels.map((l) => l.level)).toEqual(
        search.probes.map((p) => ({ kind: 'concurrency', value: p.value })),
      );
      expect(summary.levels.map((l) => l.levelIndex)).toEqual(search.probes.map((_, i) => i));
      expect(c.completedLevels).toEqual(search.probes.map((_, i) => i));
    }
    const text = result.comparison?.text ?? '';
    expect(text).toContain('SLO search');
    expect(text).toMatch(/base: (highest concurrency meeting the SLOs|no probed concurrency)/);
    expect(text).toMatch(/other (holds concurrency \d+ under the SLOs|meets the SLOs at no probed load)/);
    expect(renderMatrixSummary(plan, result)).toMatch(/other: completed, SLO search, \d+ probe\(s\)/);

    // an interruption during other's search: on --resume base is kept, other's search starts over
    const state = await readMatrixState(result.matrixDir);
    state!.configs.other.status = 'running';
    state!.configs.other.searchCompleted = false;
    await writeMatrixState(result.matrixDir, state!);
    const again: string[] = [];
    const resumed = await runMatrix({
      plan,
      planPath: null,
      resumeDir: result.matrixDir,
      stages: defaultStages(),
      log: (l) => again.push(l),
      progress: () => {},
      print: () => {},
    });
    expect(resumed.configs.map((c) => c.status)).toEqual(['completed', 'completed']);
    const said = again.join('\n');
    expect(said).toContain('base: SLO search already completed; nothing to run');
    expect(said).toMatch(/base: the SLO search already completed under the same launch spec; not relaunched/);
    expect(said).toMatch(/other: the earlier SLO search did not finish .* re-run from the start/);
    const after = await readMatrixState(result.matrixDir);
    expect(after?.configs.other.searchCompleted).toBe(true);
    expect(await pidsWithMarker(marker)).toEqual([]);
  }, 180_000);
});
