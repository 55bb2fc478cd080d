import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentProgress } from '../load/progress.js';
import { loadPlanFile } from '../plan/load.js';
import { planSchema } from '../plan/schema.js';
import { runBench } from './run-bench.js';

// What a level records about the server besides its requests, against the simulator: the vLLM flavour
// reports prefix-cache hits only as /metrics counters, so the observed hit rate of a shared-prefix level
// comes from their delta over the measured requests; a run without GPUs says so once.

const examples = join(import.meta.dirname, '..', '..', 'examples');

describe('level telemetry against the simulator', () => {
  it('vLLM: the observed prefix-cache hit rate comes from the counter delta over the measured phase, with its source', async () => {
    const plan = await loadPlanFile(join(examples, 'workload-shared-prefix.yaml'));
    plan.output = mkdtempSync(join(tmpdir(), 'bg-lt-'));
    plan.target.api = 'completions';
    plan.telemetry.gpus = false;
    const notes: string[] = [];
    const res = await runBench({
      plan,
      simulator: { timeScale: 1000, flavor: 'vllm' },
      simulatorInProcess: true,
      progress: { ...silentProgress, note: (s: string) => notes.push(s) },
    });
    const hit = JSON.parse(readFileSync(join(res.runDir, 'prefix-cache-level-00.json'), 'utf8'));
    expect(hit).toMatchObject({ source: 'metrics-counters', reporting: 0, measured: 16 });
    expect(hit.counters.source).toBe('vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total');
    // 16 measured prompts of 1024 shared + 128 unique tokens, each group primed before: every prefix hits
    expect(hit.counters.queryTokens).toBe(16 * (1024 + 128));
    expect(hit.observed).toBeGreaterThan(0.85);
    expect(
      notes.some((n) => /observed 8\d\.\d% \(from \/metrics counters vllm:prefix_cache_hits_total/.test(n)),
    ).toBe(true);
    expect(notes.filter((n) => /no GPU telemetry/.test(n))).toEqual([
      'benchgate: no GPU telemetry (energy per token unknown): telemetry.gpus is false in the plan.',
    ]);
    expect(res.summary.levels[0]).toMatchObject({ energyPerTokenJ: null });
    // the samples scraped while the level ran (the live dashboard's file) give way to the level's series
    expect(
      JSON.parse(readFileSync(join(res.runDir, 'telemetry-level-00.json'), 'utf8')).samples.length,
    ).toBeGreaterThan(0);
    expect(existsSync(join(res.runDir, 'telemetry-level-00.live.jsonl'))).toBe(false);
    // the level summary carries the same evidence for every report format, with the workload's expectation
    expect(res.summary.levels[0].cache).toMatchObject({
      source: 'metrics-counters',
      cachedTokens: hit.counters.hitTokens,
      promptTokens: hit.counters.queryTokens,
    });
    expect(res.summary.levels[0].cache?.expectedShare).toBeCloseTo(hit.configured, 9);
    const t = JSON.parse(readFileSync(join(res.runDir, 'telemetry-level-00.json'), 'utf8'));
    expect(t.sources.prefixCacheHitTokens).toBe('vllm:prefix_cache_hits_total');
  });
});

describe('the prefix-cache counters of a level', () => {
  // a server slow to answer /metrics (a busy engine) must not see a measured request before the
  // counters' "before" is read: the level's delta then holds every measured prompt and nothing else
  for (const workers of [1, 2])
    it(`count every measured prompt exactly when /metrics answers 300 ms late (${workers} thread${workers > 1 ? 's' : ''})`, async () => {
      const plan = planSchema.parse({
        name: 'slow-metrics',
        target: { api: 'completions' },
        workload: { dataset: 'random', input_tokens: { fixed: 48 }, output_tokens: { fixed: 4 } },
        load: { kind: 'concurrency', levels: [2], requests: 6, warmup: 2, workers },
        telemetry: { gpus: false },
        output: mkdtempSync(join(tmpdir(), 'bg-lt-')),
      });
      const res = await runBench({
        plan,
        simulator: { flavor: 'vllm', profile: 'fixed', faults: ['slow-metrics=300'] },
        simulatorInProcess: true,
        progress: silentProgress,
      });
      expect(res.summary.levels[0].cache).toMatchObject({
        source: 'metrics-counters',
        promptTokens: 6 * 48,
        cachedTokens: 0,
      });
    });
});
