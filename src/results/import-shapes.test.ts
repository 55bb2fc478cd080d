// Every SGLang bench_serving and vLLM benchmark_serving / bench serve output shape of 2024–2026, as a
// fixture in src/results/fixtures/import/ written the way each release wrote it (key sets and order per
// release, Python json.dumps formatting, the `{:<40} {:<10}` result tables), imported with --from auto;
// each test checks the facts the file states arrive in the run, and that what it does not state is
// unknown, not invented.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importResultText } from './import-result.js';

const FIXTURES = new URL('./fixtures/import/', import.meta.url).pathname;
const load = (name: string) => importResultText(readFileSync(FIXTURES + name, 'utf8'), name);

describe('SGLang bench_serving JSONL, release by release', () => {
  it('v0.2.0 (July 2024): the first key names, no request count', () => {
    const run = load('sglang-v0.2.0-2024-07.jsonl');
    // line 1 sent every request at once at rate inf, but this release wrote no request count
    const [b] = run.summary.levels;
    expect(run.summary.levels).toHaveLength(1);
    expect(run.warnings.join(' ')).toContain(
      'sglang-v0.2.0-2024-07.jsonl:1: left out: the result does not say which level it measured',
    );
    expect(run.manifest.source.tool).toBe('sglang-bench-serving');
    expect(b.level).toEqual({ kind: 'rate', value: 8, maxConcurrency: null });
    expect(b.windowS).toBeCloseTo(2.4083, 4);
    expect(b.throughput.outputTokensPerS).toBeCloseTo(212.5968, 4);
    expect(b.ttftMs!.percentiles.p50).toBeCloseTo(103.8055, 4);
    expect(b.e2eMs!.mean).toBeCloseTo(543.4242, 4);
    expect(b.throughput.inputTokensPerS).toBeCloseTo(16384 / 2.4083, 1);
    expect(b.requests.completed).toBeNaN();
    expect(run.warnings.join(' ')).toContain('does not say how many requests completed');
    expect(run.manifest.plan.workload).toMatchObject({
      input_tokens: { fixed: 1024 },
      output_tokens: { fixed: 32 },
    });
  });

  it('v0.3.0 (Sept 2024): _ms keys and completed, no request_throughput: derived as completed / duration', () => {
    const [inf, rate] = load('sglang-v0.3.0-2024-09.jsonl').summary.levels;
    expect(inf.level).toEqual({ kind: 'concurrency', value: 24 });
    expect(rate.level).toEqual({ kind: 'rate', value: 4, maxConcurrency: null });
    expect(inf.requests).toMatchObject({ completed: 24, failed: 0 });
    expect(inf.throughput.requestsPerS).toBeCloseTo(24 / 0.562, 1);
    expect(inf.tokenItlMs!.percentiles.p50).toBeCloseTo(13.9372, 4);
    expect(inf.tpotMs).toBeNull();
  });

  it('v0.4.0 (Dec 2024): max_concurrency gives concurrency levels; random lengths drawn below the stated ones are unknown', () => {
    const run = load('sglang-v0.4.0-2024-12.jsonl');
    expect(run.summary.levels.map((l) => l.level)).toEqual([
      { kind: 'concurrency', value: 1 },
      { kind: 'concurrency', value: 8 },
    ]);
    expect(run.summary.levels[1].throughput.outputTokensPerS).toBeCloseTo(470.0128, 4);
    // random_range_ratio 0.0: lengths vary, so 1024/32 are upper bounds, not the workload
    expect(run.manifest.plan.workload.input_tokens).toBeUndefined();
    expect(run.warnings.join(' ')).toContain('mean 1024 in / 32 out tokens per request');
  });

  it('v0.4.1.post5 (Jan 2025): full percentiles and input throughput', () => {
    const [l] = load('sglang-v0.4.1.post5-2025-01.jsonl').summary.levels;
    expect(l.ttftMs).toMatchObject({ mean: expect.closeTo(100.9823, 4), std: expect.closeTo(13.9466, 4) });
    expect(l.ttftMs!.percentiles.p99).toBeCloseTo(127.374, 3);
    expect(l.e2eMs!.percentiles.p99).toBeCloseTo(560.4145, 4);
    expect(l.throughput.inputTokensPerS).toBeCloseTo(7586.4474, 4);
  });

  it('v0.4.3.post3 (Mar 2025): sglang-oai with accept_length is token ITL, concurrency, p95 ITL', () => {
    const run = load('sglang-v0.4.3.post3-2025-03.jsonl');
    const [l] = run.summary.levels;
    expect(l.tokenItlMs!.percentiles.p95).toBeCloseTo(25.0708, 4);
    expect(l.achievedConcurrency).toBeCloseTo(3.9112, 4);
    expect(l.speculative).toMatchObject({ acceptanceLength: 2.38, source: 'metrics-gauge' });
    expect(run.manifest.source.definitions).toContain('retokenized');
  });

  it('v0.4.6.post5 (May 2025) --output-details: per-token ITL folded back into chunks, a failed request kept', () => {
    const run = load('sglang-v0.4.6.post5-2025-05-details.jsonl');
    const [l] = run.summary.levels;
    expect(l.requests).toMatchObject({ completed: 7, failed: 1 });
    expect(run.records).toHaveLength(8);
    expect(run.records.filter((r) => r.error !== null)).toHaveLength(1);
    const ok = run.records.find((r) => r.error === null)!;
    expect(ok.chunkTokens.reduce((a, b) => a + b, 0)).toBe(32);
    expect(ok.chunkMs.length).toBeLessThan(32);
    expect(run.manifest.source.itl).toBe('token');
    expect(run.manifest.source.summaryOnly).toBeUndefined();
  });

  it('v0.5.4.post3 (Nov 2025): tag and the nested server_info are read past, not refused', () => {
    const [l] = load('sglang-v0.5.4.post3-2025-11.jsonl').summary.levels;
    expect(l.level).toEqual({ kind: 'concurrency', value: 16 });
    expect(l.throughput.outputTokensPerS).toBeCloseTo(917.9424, 4);
  });

  it('v0.5.8 (Jan 2026): peak output throughput and p90 E2E latency', () => {
    const [, l] = load('sglang-v0.5.8-2026-01.jsonl').summary.levels;
    expect(l.throughput.peakOutputTokensPerS).toBe(412);
    expect(l.e2eMs!.percentiles).toMatchObject({
      p90: expect.closeTo(560.5241, 4),
      p99: expect.closeTo(565.2645, 4),
    });
    expect(l.speculative).toBeNull();
  });
});

describe('vLLM result JSON, 2024 to 2026', () => {
  it('benchmark_serving.py, June 2024: input_throughput, per-request lists always saved', () => {
    const run = load('vllm-2024-06-benchmark_serving.json');
    const [l] = run.summary.levels;
    expect(run.manifest.source.tool).toBe('vllm-bench-serve');
    expect(run.manifest.startedAt).toBe('2024-06-12T10:15:00.000Z');
    expect(l.level).toEqual({ kind: 'concurrency', value: 12 });
    expect(l.throughput.inputTokensPerS).toBeCloseTo(22400.4956, 4);
    expect(l.ttftMs!.percentiles).toMatchObject({
      p50: expect.closeTo(95.245, 3),
      p99: expect.closeTo(120.3451, 4),
    });
    expect(l.ttftMs!.std).toBeNaN();
    expect(run.records).toHaveLength(12);
    expect(l.achievedConcurrency).toBeCloseTo(11.5876, 3);
    expect(run.manifest.plan.workload).toMatchObject({
      input_tokens: { fixed: 1024 },
      output_tokens: { fixed: 32 },
    });
  });

  it('benchmark_serving.py, Oct 2024: chosen percentiles, E2EL, max_concurrency, "request_goodput:" as written', () => {
    const run = load('vllm-2024-10-benchmark_serving.json');
    const [l] = run.summary.levels;
    expect(l.level).toEqual({ kind: 'concurrency', value: 4 });
    expect(l.requests).toMatchObject({ completed: 11, failed: 1 });
    expect(l.e2eMs!.percentiles).toMatchObject({
      p50: expect.closeTo(539.0778, 4),
      p90: expect.closeTo(549.6717, 4),
    });
    expect(l.chunkItlMs!.percentiles.p90).toBeCloseTo(15.5816, 4);
    expect(l.goodput).toBeNull();
    expect(run.records.filter((r) => r.error !== null)).toHaveLength(1);
  });

  it('bench serve --append-result, June 2025: one level per object, the label as the run name, summary only', () => {
    const run = load('vllm-2025-06-bench-serve-append.json');
    expect(run.manifest.name).toBe('llama-tp1');
    expect(run.summary.levels.map((l) => l.level)).toEqual([
      { kind: 'rate', value: 2, maxConcurrency: 8 },
      { kind: 'rate', value: 4, maxConcurrency: 8 },
    ]);
    expect(run.records).toEqual([]);
    expect(run.manifest.source.summaryOnly).toBe('no-details');
    expect(run.warnings[0]).toContain('summary only');
  });

  it('bench serve, Oct 2025: failed, goodput and peak output throughput', () => {
    const [l] = load('vllm-2025-10-bench-serve.json').summary.levels;
    expect(l.requests).toMatchObject({ completed: 24, failed: 0 });
    expect(l.goodput!.requestsPerS).toBe(1.9);
    expect(l.throughput.peakOutputTokensPerS).toBe(655);
    expect(l.level).toEqual({ kind: 'concurrency', value: 16 });
  });

  it('bench serve --save-detailed, Feb 2026: start times, spec-decode counters, rtfx', () => {
    const run = load('vllm-2026-02-bench-serve-detailed.json');
    const [l] = run.summary.levels;
    expect(l.speculative).toMatchObject({
      acceptanceLength: 2.85,
      verifySteps: 120,
      draftTokens: 360,
      acceptedTokens: 222,
    });
    expect(run.records).toHaveLength(10);
    expect(run.records[2].sentMs).toBeCloseTo(393.07, 1);
    expect(l.requests).toMatchObject({ completed: 9, failed: 1 });
  });
});

describe('printed result tables (summary only)', () => {
  it('SGLang v0.3.0: one table, marked summary only in the manifest and the warnings', () => {
    const run = load('sglang-v0.3.0-printed.txt');
    const [l] = run.summary.levels;
    expect(run.manifest.source).toMatchObject({ tool: 'sglang-bench-serving', summaryOnly: 'printed-table' });
    expect(run.warnings[0]).toMatch(
      /^summary only: imported from the result table printed in sglang-v0.3.0-printed.txt/,
    );
    expect(l.level).toEqual({ kind: 'concurrency', value: 24 });
    expect(l.windowS).toBe(0.56);
    expect(l.throughput.outputTokensPerS).toBe(1377.11);
    expect(l.e2eMs!.mean).toBe(537.67);
    expect(l.tokenItlMs!.percentiles.p99).toBe(15.94);
    expect(run.records).toEqual([]);
  });

  it('SGLang v0.4.x: the "Max reqeuest concurrency" spelling, after the Namespace and #Input lines', () => {
    const [l] = load('sglang-v0.4.3-printed.txt').summary.levels;
    expect(l.level).toEqual({ kind: 'concurrency', value: 8 });
    expect(l.achievedConcurrency).toBe(7.92);
    expect(l.ttftMs!.percentiles.p50).toBe(98.32);
  });

  it('SGLang v0.5.8: a pasted sweep of three tables is three levels with their acceptance length', () => {
    const run = load('sglang-v0.5.8-printed-sweep.txt');
    expect(run.summary.levels.map((l) => l.level.value)).toEqual([1, 4, 16]);
    expect(run.summary.levels.map((l) => l.throughput.outputTokensPerS)).toEqual([76.52, 290.55, 893.77]);
    expect(run.summary.levels[2].speculative?.acceptanceLength).toBe(2.38);
  });

  it('vLLM benchmark_serving 2024: the level from the lines printed before the table', () => {
    const run = load('vllm-2024-10-printed.txt');
    const [l] = run.summary.levels;
    expect(run.manifest.source).toMatchObject({ tool: 'vllm-bench-serve', summaryOnly: 'printed-table' });
    expect(l.level).toEqual({ kind: 'concurrency', value: 4 });
    expect(l.throughput.outputTokensPerS).toBe(234.88);
    expect(l.chunkItlMs!.percentiles.p99).toBe(15.93);
  });

  it('vLLM benchmark_serving Aug 2025: "Traffic request rate: 4.0 RPS." and no cap', () => {
    const [l] = load('vllm-2025-08-benchmark_serving-printed-rate.txt').summary.levels;
    expect(l.level).toEqual({ kind: 'rate', value: 4, maxConcurrency: null });
    expect(l.ttftMs!.percentiles.p50).toBe(111.47);
  });

  it('vLLM bench serve 2026: failed requests and the speculative-decoding section', () => {
    const [l] = load('vllm-2026-02-printed.txt').summary.levels;
    expect(l.requests).toMatchObject({ completed: 9, failed: 1 });
    expect(l.level).toEqual({ kind: 'concurrency', value: 2 });
    expect(l.speculative).toMatchObject({ acceptanceLength: 2.85, acceptedTokens: 222, verifySteps: 120 });
    expect(l.ttftMs!.percentiles).toEqual({ p50: 95.82, p99: 121.73 });
  });

  it('a vLLM table pasted without the lines before it: the level is refused, naming what to paste', () => {
    const text = readFileSync(`${FIXTURES}vllm-2024-10-printed.txt`, 'utf8').split('\n').slice(3).join('\n');
    expect(() => importResultText(text, 'pasted.txt')).toThrow(
      /pasted.txt:1: left out: the result does not say which level it measured.*Traffic request rate:/,
    );
  });
});
