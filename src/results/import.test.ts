// Imports of SGLang bench_serving JSONL and vLLM bench serve JSON, written here in the exact shapes those
// tools produce (their documented key sets), then read back and compared like any benchgate run.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchgateError } from '../core/errors.js';
import { parsePythonJson } from '../core/python-json.js';
import { compareRuns } from '../report/compare.js';
import { importSglang, importVllm } from './import-result.js';
import { writeImportedRun } from './import-run.js';
import { readRun } from './read-run.js';

const root = await mkdtemp(join(tmpdir(), 'bg-import-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** Per-request details for n requests of `tokens` tokens with ITL gaps of `itlS`, TTFT `ttftS`. */
function details(n: number, ttftS: number, itlS: number, tokens: number) {
  return {
    input_lens: Array(n).fill(1024),
    output_lens: Array(n).fill(tokens),
    ttfts: Array.from({ length: n }, (_, i) => ttftS * (0.9 + (0.2 * i) / n)),
    // one token per chunk: every gap differs (a per-token run of equal gaps would be one chunk)
    itls: Array.from({ length: n }, (_, i) =>
      Array.from({ length: tokens - 1 }, (_, k) => itlS * (0.9 + (0.2 * ((i * 7) % n)) / n) * (1 + k / 1000)),
    ),
    generated_texts: Array(n).fill('x'),
    errors: Array(n).fill(''),
  };
}

/** One line as SGLang's bench_serving json.dumps()es it: request_rate inf becomes bare Infinity. */
function sglangLine(maxConcurrency: number, outputThroughput: number, withDetails: boolean): string {
  const result = {
    backend: 'sglang',
    dataset_name: 'random',
    request_rate: '__INF__',
    max_concurrency: maxConcurrency,
    sharegpt_output_len: null,
    random_input_len: 1024,
    random_output_len: 32,
    random_range_ratio: 1.0,
    duration: 1280 / outputThroughput,
    completed: 40,
    total_input_tokens: 40960,
    total_output_tokens: 1280,
    total_output_tokens_retokenized: 1279,
    request_throughput: 1.95,
    input_throughput: 1998.0,
    output_throughput: outputThroughput,
    mean_e2e_latency_ms: 2000.1,
    median_e2e_latency_ms: 1990.2,
    std_e2e_latency_ms: 50.3,
    p99_e2e_latency_ms: 2100.4,
    mean_ttft_ms: 120.5,
    median_ttft_ms: 118.0,
    std_ttft_ms: 10.1,
    p99_ttft_ms: 150.9,
    mean_tpot_ms: 60.2,
    median_tpot_ms: 60.0,
    std_tpot_ms: 2.0,
    p99_tpot_ms: 66.0,
    mean_itl_ms: 60.1,
    median_itl_ms: 59.8,
    std_itl_ms: 3.0,
    p95_itl_ms: 64.0,
    p99_itl_ms: 70.0,
    concurrency: maxConcurrency * 0.98,
    accept_length: 2.71,
    ...(withDetails ? details(40, 0.12, 0.06 / (outputThroughput / 62.4), 32) : {}),
  };
  return JSON.stringify(result).replace('"__INF__"', 'Infinity');
}

function vllmResult(detailed: boolean) {
  return {
    date: '20260101-120000',
    endpoint_type: 'vllm',
    backend: 'vllm',
    label: null,
    model_id: 'meta-llama/Llama-3.1-8B-Instruct',
    tokenizer_id: 'meta-llama/Llama-3.1-8B-Instruct',
    num_prompts: 40,
    request_rate: 'inf',
    burstiness: 1.0,
    max_concurrency: 4,
    duration: 20.0,
    completed: 39,
    failed: 1,
    total_input_tokens: 39936,
    total_output_tokens: 1248,
    request_throughput: 1.95,
    request_goodput: null,
    output_throughput: 62.4,
    total_token_throughput: 2059.2,
    max_output_tokens_per_s: 80.0,
    max_concurrent_requests: 4,
    rtfx: 0.0,
    ...(detailed
      ? {
          ...details(40, 0.12, 0.06, 32),
          start_times: Array.from({ length: 40 }, (_, i) => 1000 + Math.floor(i / 4) * 2),
        }
      : {}),
    spec_decode_acceptance_rate: 55.0,
    spec_decode_acceptance_length: 2.65,
    spec_decode_num_drafts: 500,
    spec_decode_draft_tokens: 1500,
    spec_decode_accepted_tokens: 825,
    spec_decode_per_position_acceptance_rates: [0.7, 0.55, 0.4],
    mean_ttft_ms: 120.5,
    median_ttft_ms: 118.0,
    std_ttft_ms: 10.1,
    p99_ttft_ms: 150.9,
    mean_tpot_ms: 60.2,
    median_tpot_ms: 60.0,
    std_tpot_ms: 2.0,
    p99_tpot_ms: 66.0,
    mean_itl_ms: 60.1,
    median_itl_ms: 59.8,
    std_itl_ms: 3.0,
    p99_itl_ms: 70.0,
  };
}

function code(fn: () => unknown): [string, string] {
  try {
    fn();
  } catch (e) {
    return [(e as BenchgateError).code, (e as Error).message];
  }
  return ['none', ''];
}

describe('importSglang', () => {
  it('reads bench_serving JSONL with bare Infinity, one level per line, marked with its source', () => {
    const text = `${sglangLine(1, 62.4, false)}\n${sglangLine(4, 200.0, false)}\n`;
    const run = importSglang(text, '/data/sglang_1202_40_1024_32.jsonl');
    expect(run.summary.levels.map((l) => l.level)).toEqual([
      { kind: 'concurrency', value: 1 },
      { kind: 'concurrency', value: 4 },
    ]);
    const l = run.summary.levels[1];
    expect(l.throughput.outputTokensPerS).toBe(200);
    expect(l.ttftMs!.percentiles).toEqual({ p50: 118.0, p99: 150.9 });
    // backend sglang = the native client, whose ITL is per token (filed as token ITL, not chunk ITL)
    expect(l.tokenItlMs!.percentiles.p95).toBe(64.0);
    expect(l.chunkItlMs).toBeNull();
    expect(l.speculative).toMatchObject({ acceptanceLength: 2.71, source: 'metrics-gauge' });
    expect(run.manifest.source.tool).toBe('sglang-bench-serving');
    expect(run.manifest.source.itl).toBe('token');
    expect(run.manifest.source.definitions).toContain('token ITL');
    expect(run.records).toEqual([]);
    expect(run.warnings.join(' ')).toContain('--output-details');
  });

  it('files the OpenAI backends as chunk ITL without an acceptance length, token ITL with one', () => {
    const line = (accept: number | null) =>
      JSON.stringify({
        ...(parsePythonJson(sglangLine(1, 62.4, false)) as object),
        backend: 'sglang-oai',
        accept_length: accept,
      });
    const plain = importSglang(line(null), 'oai.jsonl');
    expect(plain.summary.levels[0].chunkItlMs!.percentiles.p95).toBe(64.0);
    expect(plain.summary.levels[0].tokenItlMs).toBeNull();
    expect(plain.manifest.source.itl).toBe('chunk');
    const spec = importSglang(line(2.5), 'oai-spec.jsonl');
    expect(spec.summary.levels[0].tokenItlMs!.percentiles.p95).toBe(64.0);
    expect(spec.manifest.source.definitions).toContain('retokenized');
  });

  it('reads an older bench_serving whose sglang backend wrote one ITL entry per chunk as chunk ITL', () => {
    const o = parsePythonJson(sglangLine(4, 62.4, true)) as { itls: number[][] };
    o.itls = o.itls.map((l: number[]) => l.filter((_: number, k: number) => k % 3 === 0));
    const run = importSglang(JSON.stringify(o), 'old.jsonl');
    expect(run.manifest.source.itl).toBe('chunk');
    expect(run.summary.levels[0].chunkItlMs).not.toBeNull();
  });

  it('rebuilds request records from --output-details so comparisons get CIs', async () => {
    const a = importSglang(sglangLine(4, 62.4, true), 'base.jsonl');
    const b = importSglang(sglangLine(4, 93.6, true), 'fast.jsonl');
    expect(a.records).toHaveLength(40);
    expect(a.records[0].chunkMs).toHaveLength(32);
    const dirA = await writeImportedRun(root, a);
    const dirB = await writeImportedRun(root, b);
    const cmp = compareRuns([await readRun(dirA), await readRun(dirB)], { iterations: 200 });
    const cell = cmp.levels[0].cells.output_throughput[1];
    expect(cell.ratio).toBeCloseTo(1.5, 9);
    expect(cell.ci).not.toBeNull();
    expect(cell.significant).toBe(true);
  });

  it('rejects a vLLM result and a non-JSON file with one sentence each', () => {
    const [c1, m1] = code(() => importSglang(JSON.stringify(vllmResult(false), null, 2), 'v.json'));
    expect(c1).toBe('BG_E_IMPORT');
    expect(m1).toContain('use --from vllm');
    const [c2, m2] = code(() => importSglang('level,value\n1,2\n', 'x.csv'));
    expect(c2).toBe('BG_E_IMPORT');
    expect(m2).toBe(
      'Expected SGLang bench_serving or vLLM bench serve results (their JSON or JSONL result file, or the result table they print) in x.csv; line 1 is neither a JSON object nor part of a result table.',
    );
    const [c3, m3] = code(() => importSglang('{"hello": 1}\n', 'h.jsonl'));
    expect(c3).toBe('BG_E_IMPORT');
    expect(m3).toContain('the result at line 1 lacks backend, duration, output_throughput, median_ttft_ms');
  });
});

describe('importVllm', () => {
  it('reads a --save-result JSON: level, percentiles, peak, spec-decode counters, failures', () => {
    const run = importVllm(
      JSON.stringify(vllmResult(false)),
      '/r/vllm-infqps-concurrency4-Llama-3.1-8B-Instruct-20260101-120000.json',
    );
    const l = run.summary.levels[0];
    expect(l.level).toEqual({ kind: 'concurrency', value: 4 });
    expect(l.requests).toMatchObject({ completed: 39, failed: 1 });
    expect(l.throughput.peakOutputTokensPerS).toBe(80);
    expect(l.tpotMs!.percentiles).toEqual({ p50: 60.0, p99: 66.0 });
    expect(l.e2eMs).toBeNull();
    // without --save-detailed the file has no latencies to sum: unknown, not a guess
    expect(l.achievedConcurrency).toBeNaN();
    expect(l.speculative).toMatchObject({
      acceptanceLength: 2.65,
      source: 'metrics-counters',
      draftTokens: 1500,
      acceptedTokens: 825,
    });
    expect(run.manifest.source.tool).toBe('vllm-bench-serve');
    expect(run.manifest.startedAt).toBe('2026-01-01T12:00:00.000Z');
  });

  it('reads --append-result files (several objects) and --save-detailed per-request data', () => {
    const a = { ...vllmResult(true), max_concurrency: 1 };
    const b = { ...vllmResult(true), max_concurrency: 8 };
    const run = importVllm(`${JSON.stringify(a)}\n${JSON.stringify(b)}`, 'append.json');
    expect(run.summary.levels.map((l) => l.level.value)).toEqual([1, 8]);
    expect(run.records).toHaveLength(80);
    expect(run.records[4].sentMs).toBe(2000);
  });

  it('takes the workload from the file, or records it as unknown, never the 1024/256 defaults', () => {
    const bare = importVllm(JSON.stringify(vllmResult(false)), 'bare.json');
    const w = bare.manifest.plan.workload as Record<string, unknown>;
    expect(w.input_tokens).toBeUndefined();
    expect(w.output_tokens).toBeUndefined();
    expect(w.dataset).toBeUndefined();
    expect(bare.warnings).toContain(
      "The file does not say the workload's dataset, input_tokens, output_tokens: recorded as unknown (its totals give mean 1024 in / 32 out tokens per request).",
    );
    const detailed = importVllm(
      JSON.stringify({ ...vllmResult(true), input_lens: Array(40).fill(300) }),
      'd.json',
    );
    expect(detailed.manifest.plan.workload.input_tokens).toEqual({ fixed: 300 });
    expect(detailed.manifest.plan.workload.output_tokens).toEqual({ fixed: 32 });
    const keyed = importVllm(
      JSON.stringify({
        ...vllmResult(false),
        dataset_name: 'random',
        random_input_len: 2048,
        random_output_len: 128,
      }),
      'k.json',
    );
    expect(keyed.manifest.plan.workload).toMatchObject({
      dataset: 'random',
      input_tokens: { fixed: 2048 },
      output_tokens: { fixed: 128 },
    });
    expect(keyed.warnings.join(' ')).not.toContain('does not say the workload');
  });

  it('rejects an SGLang line and a file that is not a result', () => {
    const [c1, m1] = code(() => importVllm(sglangLine(1, 62.4, false), 's.jsonl'));
    expect(c1).toBe('BG_E_IMPORT');
    expect(m1).toContain('use --from sglang');
    const [c2, m2] = code(() => importVllm('[1, 2]', 'n.json'));
    expect(c2).toBe('BG_E_IMPORT');
    expect(m2).toContain('holds no JSON object');
    const [c3, m3] = code(() => importVllm('{"duration": 1}', 'd.json'));
    expect(c3).toBe('BG_E_IMPORT');
    expect(m3).toBe(
      'Expected vLLM bench serve results in d.json; the result at line 1 lacks completed, output_throughput, request_throughput.',
    );
  });
});
