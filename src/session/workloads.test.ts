// Each workload kind and the SLO search, run from the example plans against the embedded simulator
// (time-scaled, few requests).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentProgress } from '../load/progress.js';
import { loadPlanFile } from '../plan/load.js';
import type { RequestRecord } from '../records/request-record.js';
import { runBench } from './run-bench.js';
import { smallConcurrencySearch } from './test-support/slo-search-plan.js';

const examples = join(import.meta.dirname, '..', '..', 'examples');
const run = async (
  file: string,
  over: (p: Awaited<ReturnType<typeof loadPlanFile>>) => void = () => {},
  timeScale = 1000,
) => {
  const plan = await loadPlanFile(join(examples, file));
  plan.output = mkdtempSync(join(tmpdir(), 'bg-wl-'));
  over(plan);
  const notes: string[] = [];
  const res = await runBench({
    plan,
    simulator: { timeScale },
    simulatorInProcess: true,
    progress: { ...silentProgress, note: (s: string) => notes.push(s) },
  });
  const records = readFileSync(join(res.runDir, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RequestRecord);
  return { res, notes, records };
};

describe('workload kinds against the simulator', () => {
  it('sharegpt: asks for the recorded reply lengths', async () => {
    const { res, records } = await run('workload-sharegpt.yaml', (p) => {
      p.load.levels = [2];
      p.load.requests = 6;
    });
    expect(res.summary.levels).toHaveLength(1);
    expect(new Set(records.map((r) => r.requestedOutputTokens)).size).toBeGreaterThan(1);
    expect(records.every((r) => r.error === null)).toBe(true);
  });

  it('shared_prefix: primes unmeasured, then reports configured and observed hit rates side by side', async () => {
    const { res, notes, records } = await run('workload-shared-prefix.yaml');
    expect(records.filter((r) => r.warmup)).toHaveLength(4);
    const hit = JSON.parse(readFileSync(join(res.runDir, 'prefix-cache-level-0.json'), 'utf8'));
    expect(hit.configured).toBeGreaterThan(0.85);
    expect(hit.observed).toBeGreaterThan(0.85);
    expect(hit.reporting).toBe(16);
    expect(notes.some((n) => /configured 8\d\.\d%, observed 8\d\.\d%/.test(n))).toBe(true);
  });

  it('trace: replays every request of the trace at each speed factor, open loop', async () => {
    const { res, records } = await run('workload-trace.yaml');
    expect(res.summary.levels).toHaveLength(2);
    const [slow, fast] = res.summary.levels.map((l) => l.level.value);
    expect(fast).toBeCloseTo(slow * 2, 1);
    expect(records.filter((r) => r.levelIndex === 0)).toHaveLength(24);
    const lens = records.filter((r) => r.levelIndex === 0).map((r) => r.requestedOutputTokens);
    expect(Math.min(...lens)).toBeGreaterThanOrEqual(4);
  });
});

describe('slo_search against the simulator', () => {
  it('returns a concurrency and the probes that bracket it', async () => {
    // time scale 10: one 512-token prefill is ~16 ms, so queueing at 16 in flight breaks a 45 ms TTFT
    const { res, notes } = await run('slo-search.yaml', smallConcurrencySearch, 10);
    const s = JSON.parse(readFileSync(join(res.runDir, 'slo-search.json'), 'utf8'));
    expect(res.summary.levels).toHaveLength(s.probes.length);
    expect(res.summary.levels.map((l) => l.level.value)).toEqual(
      s.probes.map((p: { value: number }) => p.value),
    );
    expect(s.slo).toEqual({ ttft_ms: 45 });
    expect(s.firstFail).not.toBeNull();
    if (s.best !== null) expect(s.best).toBeLessThan(s.firstFail);
    expect(notes.some((n) => n.includes('slo_search: highest concurrency meeting the SLOs'))).toBe(true);
  });

  it('fills the SLOs from a named MLPerf preset', async () => {
    const { res } = await run('slo-search.yaml', (p) => {
      p.load.requests = 4;
      p.load.slo_search = {
        ...(p.load.slo_search as NonNullable<typeof p.load.slo_search>),
        start: 64,
        max: 64,
      };
    });
    const s = JSON.parse(readFileSync(join(res.runDir, 'slo-search.json'), 'utf8'));
    expect(s).toMatchObject({ preset: 'mlperf-llama2-70b-server', slo: { ttft_ms: 2000, tpot_ms: 200 } });
    expect(s.probes[0].value).toBe(64);
  });
});

describe('server telemetry', () => {
  it('samples the running/waiting requests and KV-cache usage of every level into the run directory', async () => {
    const { res } = await run('workload-shared-prefix.yaml');
    const t = JSON.parse(readFileSync(join(res.runDir, 'telemetry-level-0.json'), 'utf8'));
    expect(t.sources).toMatchObject({
      running: 'sglang:num_running_reqs',
      waiting: 'sglang:num_queue_reqs',
      kvCacheUsage: 'sglang:token_usage',
    });
    expect(t.samples.length).toBeGreaterThanOrEqual(2);
    expect(
      t.samples.every((s: { values: { running: unknown } }) => typeof s.values.running === 'number'),
    ).toBe(true);
  });
});
