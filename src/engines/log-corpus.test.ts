// The log format corpus: one fixture per real-world log shape (written for this project, after the
// engines' own log statements), with the facts a correct reader must extract from it.

import { describe, expect, it } from 'vitest';
import { llamacppAdapter } from './llamacpp.js';
import { sglangAdapter } from './sglang.js';
import { corpusText, expectLogCase, type LogCase } from './test-support/log-case.js';
import { tgiAdapter } from './tgi.js';
import { vllmAdapter } from './vllm.js';

const corpus = corpusText;

const CASES: LogCase[] = [
  {
    file: 'vllm-wrapped-80-and-120.txt',
    adapter: vllmAdapter,
    facts: {
      tp_size: 2,
      'vllm.gpu_memory_utilization': 0.85,
      context_length: 32768,
      dtype: 'bfloat16',
      'speculative.algorithm': 'EAGLE3',
      'speculative.num_steps': 3,
      'speculative.num_draft_tokens': 3,
      engine_version: '0.11.2',
    },
    ready: 17,
    failedStart: null,
    acceptance: null,
  },
  {
    file: 'vllm-workerproc-failed.txt',
    adapter: vllmAdapter,
    facts: { tp_size: 2 },
    ready: null,
    failedStart: { line: 6, contains: 'WorkerProc failed to start' },
  },
  {
    file: 'vllm-enginecore-failed.txt',
    adapter: vllmAdapter,
    ready: null,
    failedStart: { line: 4, contains: 'EngineCore failed to start' },
  },
  {
    file: 'vllm-traceback-after-drafter.txt',
    adapter: vllmAdapter,
    ready: null,
    failedStart: { line: 7, contains: 'RuntimeError: Error(s) in loading state_dict' },
  },
  {
    file: 'vllm-spec-never-accepted.txt',
    adapter: vllmAdapter,
    ready: 5,
    failedStart: null,
    acceptance: { neverAccepted: true, maxMeanLength: 1, lines: 2 },
  },
  {
    file: 'vllm-spec-accepted.txt',
    adapter: vllmAdapter,
    failedStart: null,
    acceptance: { neverAccepted: false, maxMeanLength: 2.31, lines: 1 },
  },
  {
    file: 'sglang-scheduler-exception.txt',
    adapter: sglangAdapter,
    facts: {
      'speculative.algorithm': 'EAGLE3',
      tp_size: 2,
      dtype: 'auto',
      'speculative.num_draft_tokens': 4,
    },
    ready: null,
    failedStart: { line: 3, contains: 'Scheduler hit an exception' },
  },
  {
    // a start-up warning that merely mentions CUDA errors, on two starts that reached their ready line
    file: 'paste-sglang-context-length-warning-two-starts.txt',
    adapter: sglangAdapter,
    facts: { context_length: 131072, served_model_name: 'qwen-small' },
    ready: 14,
    failedStart: null,
    crashes: 0,
  },
  {
    // docker compose logs: `llm0-1  | ` (coloured) before every line, the OOM inside a scheduler traceback
    file: 'paste-compose-sglang-cuda-oom.txt',
    adapter: sglangAdapter,
    facts: { served_model_name: 'llama-8b', tp_size: 1 },
    ready: null,
    failedStart: { line: 4, contains: 'torch.OutOfMemoryError: CUDA out of memory' },
  },
  {
    // kubectl logs --prefix: `[pod/<pod>/<container>] ` before every line
    file: 'paste-kubectl-prefix-vllm-oom.txt',
    adapter: vllmAdapter,
    facts: { tp_size: 2, context_length: 32768, engine_version: '0.11.2' },
    ready: null,
    failedStart: { line: 4, contains: 'CUDA out of memory' },
  },
  {
    // warnings stating an effective setting, in a paste without the ServerArgs line (2026 wording)
    file: 'paste-sglang-effective-setting-warnings.txt',
    adapter: sglangAdapter,
    facts: {
      overlap_schedule: false,
      'sglang.enable_mixed_chunk': false,
      'sglang.chunked_prefill_size': 1024,
    },
    ready: 6,
  },
  {
    // the 2025 wordings: "The chunked prefill size is adjusted to N to avoid …", ngram's combined line
    file: 'paste-sglang-2025-dp-attention-chunk-adjusted.txt',
    adapter: sglangAdapter,
    facts: {
      overlap_schedule: false,
      'sglang.enable_mixed_chunk': false,
      'sglang.chunked_prefill_size': 4096,
    },
  },
  {
    // the line cut inside the adjusted value: not read
    file: 'paste-sglang-chunk-adjusted-cut.txt',
    adapter: sglangAdapter,
    unknown: ['sglang.chunked_prefill_size'],
  },
  {
    // journalctl -u vllm: `Dec 06 01:58:10 host vllm[41877]: ` before every line
    file: 'paste-journalctl-vllm-oom.txt',
    adapter: vllmAdapter,
    facts: { tp_size: 4, context_length: 40960, engine_version: '0.11.2' },
    ready: null,
    failedStart: { line: 3, contains: 'CUDA out of memory' },
  },
  {
    file: 'sglang-cuda-oom.txt',
    adapter: sglangAdapter,
    ready: null,
    failedStart: { line: 4, contains: 'torch.OutOfMemoryError: CUDA out of memory' },
  },
  {
    file: 'sglang-accept-len-ones.txt',
    adapter: sglangAdapter,
    ready: 3,
    failedStart: null,
    acceptance: { neverAccepted: true, maxMeanLength: 1, lines: 2 },
  },
  {
    file: 'sglang-accept-len-good.txt',
    adapter: sglangAdapter,
    failedStart: null,
    acceptance: { neverAccepted: false, maxMeanLength: 2.84, lines: 2 },
  },
  {
    file: 'tgi-args-float16.txt',
    adapter: tgiAdapter,
    facts: {
      dtype: 'float16',
      tp_size: 2,
      context_length: 8192,
      model: 'mistralai/Mistral-7B-Instruct-v0.3',
    },
    ready: null,
    failedStart: { line: 4, contains: 'Shard 1 failed to start' },
  },
  // 2025–2026 releases, each written after the engine's own format strings at that release
  {
    file: 'vllm-v066-namespace-v0-spec.txt',
    adapter: vllmAdapter,
    facts: {
      engine_version: '0.6.6.post1',
      tp_size: 4,
      context_length: 16384,
      dtype: 'bfloat16',
      max_running_requests: 128,
      'speculative.draft_model': 'meta-llama/Llama-3.2-1B-Instruct',
      'speculative.num_steps': 5,
      'vllm.api_key': '<redacted>',
    },
    // V0 names no method for a draft path (EAGLE or Medusa would be told only by the draft's config)
    unknown: ['speculative.algorithm'],
    ready: 14,
    failedStart: null,
    acceptance: {
      neverAccepted: false,
      lines: 2,
      maxMeanLength: 2.73,
      acceptedTokens: 4846,
      draftedTokens: 8200,
    },
  },
  {
    file: 'vllm-v085-mean-without-bonus.txt',
    adapter: vllmAdapter,
    facts: {
      engine_version: '0.8.5',
      'speculative.algorithm': 'EAGLE',
      'speculative.draft_model': 'yuhuili/EAGLE-LLaMA3.1-Instruct-8B',
      'speculative.num_draft_tokens': 3,
      context_length: 8192,
      tp_size: 1,
    },
    ready: 10,
    failedStart: null,
    // v0.8.5 printed 1.34 without the bonus token; its per-position rates (sum 1.336) say so
    acceptance: {
      neverAccepted: false,
      lines: 2,
      maxMeanLength: 2.34,
      acceptedTokens: 1267,
      draftedTokens: 2916,
    },
  },
  {
    file: 'vllm-v0101-spec-metrics-bonus.txt',
    adapter: vllmAdapter,
    facts: {
      engine_version: '0.10.1',
      'speculative.algorithm': 'EAGLE3',
      'speculative.num_steps': 4,
      tp_size: 2,
      dp_size: 2,
      max_running_requests: 64,
      context_length: 32768,
      'vllm.max_num_batched_tokens': 16384,
      'vllm.api_key': '<redacted>',
    },
    ready: 12,
    failedStart: null,
    acceptance: {
      neverAccepted: false,
      lines: 2,
      maxMeanLength: 2.61,
      acceptedTokens: 2557,
      draftedTokens: 6480,
    },
  },
  {
    file: 'vllm-2026-logo-mtp.txt',
    adapter: vllmAdapter,
    facts: {
      engine_version: '0.19.1',
      served_model_name: 'glm-flash',
      tp_size: 4,
      context_length: 202752,
      'speculative.algorithm': 'MTP',
      'speculative.num_draft_tokens': 1,
      'vllm.enable_expert_parallel': true,
    },
    ready: 15,
    failedStart: null,
    acceptance: {
      neverAccepted: false,
      lines: 1,
      maxMeanLength: 1.81,
      acceptedTokens: 1443,
      draftedTokens: 1781,
    },
  },
  {
    file: 'vllm-dp-enginecore-traceback-long-tail.txt',
    adapter: vllmAdapter,
    facts: { dp_size: 2, 'speculative.algorithm': null, engine_version: '0.11.0' },
    ready: null,
    failedStart: { line: 25, contains: 'cause: torch.AcceleratorError: CUDA error: invalid device ordinal' },
  },
  {
    file: 'vllm-enginecore-fatal-first-decode.txt',
    adapter: vllmAdapter,
    facts: { 'speculative.algorithm': 'NGRAM', 'speculative.num_steps': 4, engine_version: '0.13.0' },
    ready: 8,
    failedStart: {
      line: 10,
      contains: 'EngineCore encountered a fatal error. (cause: IndexError: index 131072',
      afterReady: true,
    },
  },
  {
    // RayExecutorV2, the default of --distributed-executor-backend ray from 2026-05-05 (vLLM f04fd1677,
    // vllm/envs.py): its monitor names the dead worker by rank, not `Worker proc X died unexpectedly`
    file: 'vllm-2026-08-ray-v2-worker-died.txt',
    adapter: vllmAdapter,
    facts: {
      engine_version: '0.1.dev17180+gef47a897e',
      tp_size: 2,
      'speculative.algorithm': 'EAGLE3',
      'speculative.num_draft_tokens': 3,
      context_length: 40960,
    },
    ready: 14,
    failedStart: { line: 17, contains: 'RayWorkerProc rank=[1] died unexpectedly', afterReady: true },
  },
  {
    // a Ray worker's busy loop raised (vllm/v1/executor/ray_executor_v2.py, 2026-08-18): the first line of its
    // traceback ends the start, before the monitor's `died unexpectedly`
    file: 'vllm-2026-08-ray-v2-worker-failed.txt',
    adapter: vllmAdapter,
    facts: { engine_version: '0.1.dev17180+gef47a897e', tp_size: 4, 'speculative.algorithm': 'NGRAM' },
    ready: 5,
    failedStart: { line: 6, contains: 'cause: torch.AcceleratorError: CUDA error', afterReady: true },
  },
  {
    // the API server's monitor when its engine core process dies without a word (an OOM kill): from
    // 2026-06-04 (vLLM 41a4829f2, vllm/v1/engine/core_client.py); 2026-03-30 to then it logged nothing
    file: 'vllm-2026-08-engine-core-exited.txt',
    adapter: vllmAdapter,
    facts: {
      engine_version: '0.1.dev17180+gef47a897e',
      context_length: 65536,
      'speculative.algorithm': 'DRAFT_MODEL',
    },
    ready: 7,
    failedStart: { line: 9, contains: 'engine core exited unexpectedly', afterReady: true },
  },
  {
    // Ctrl-C reaches the engine core too: it exits on the signal before the API server closes its client,
    // which then warns the same way (vllm/v1/engine/core.py and core_client.py, main 2026-08-18)
    file: 'vllm-2026-08-stopped-engine-core-exited.txt',
    adapter: vllmAdapter,
    ready: 4,
    failedStart: null,
  },
  {
    file: 'vllm-non-default-args-cut-in-spec-config.txt',
    adapter: vllmAdapter,
    facts: {
      tp_size: 4,
      context_length: 65536,
      max_running_requests: 256,
      engine_version: '0.12.0',
      'vllm.non_default_args_truncated': true,
    },
    unknown: ['speculative.algorithm', 'speculative.num_steps'],
  },
  {
    file: 'sglang-046-decode-dot-limits.txt',
    adapter: sglangAdapter,
    facts: {
      'speculative.algorithm': 'EAGLE',
      'speculative.num_steps': 5,
      'speculative.topk': 8,
      'speculative.num_draft_tokens': 64,
      overlap_schedule: false,
      'speculative.spec_v2': false,
      context_length: 131072,
      max_running_requests: 48,
      'sglang.max_total_num_tokens': 292160,
    },
    ready: 14,
    failedStart: null,
    acceptance: { neverAccepted: false, lines: 2, maxMeanLength: 3.52 },
  },
  {
    file: 'sglang-054-decode-iter-died-after-ready.txt',
    adapter: sglangAdapter,
    facts: {
      served_model_name: 'qwen3-moe',
      tp_size: 2,
      'speculative.algorithm': 'EAGLE3',
      'speculative.topk': 1,
      'speculative.num_draft_tokens': 4,
      'speculative.spec_v2': false,
      context_length: 32768,
      // memory held the scheduler below the flag's 64
      max_running_requests: 48,
      'sglang.max_running_requests': 64,
      'sglang.api_key': '<redacted>',
    },
    ready: 13,
    failedStart: {
      line: 16,
      contains:
        'Scheduler hit an exception: Traceback (most recent call last): (cause: RuntimeError: CUDA error: an illegal memory access',
      afterReady: true,
    },
    acceptance: { neverAccepted: false, lines: 1, maxMeanLength: 2.93 },
  },
  {
    file: 'sglang-server-args-cut-mid-value.txt',
    adapter: sglangAdapter,
    facts: { tp_size: 8, quantization: 'fp8', 'sglang.server_args_truncated': true },
    unknown: ['speculative.algorithm', 'speculative.spec_v2', 'max_running_requests'],
  },
  {
    file: 'tgi-v33-args-pretty-defaults.txt',
    adapter: tgiAdapter,
    facts: {
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      tp_size: 2,
      quantization: 'fp8',
      'speculative.num_steps': 2,
      context_length: 8192,
      'tgi.max_input_tokens': 8191,
      'tgi.max_batch_prefill_tokens': 8192,
      'tgi.max_batch_total_tokens': 342144,
      'tgi.api_key': '<redacted>',
      'tgi.usage_stats': 'On',
    },
    unknown: ['dtype', 'max_running_requests'],
    ready: 81,
    failedStart: null,
  },
  {
    file: 'llamacpp-b7205-md-draft-acceptance-rate.txt',
    adapter: llamacppAdapter,
    facts: {
      engine_version: 'b7205-ab49f094d',
      model: '/models/Qwen2.5-7B-Instruct-Q4_K_M.gguf',
      'speculative.draft_model': '/models/Qwen2.5-0.5B-Instruct-Q8_0.gguf',
      max_running_requests: 4,
      context_length: 4096,
      'llamacpp.n_ctx': 16384,
      'llamacpp.log_draft_requests': 2,
    },
    // this build's log does not say which speculative types run: the command line and build do
    unknown: ['speculative.algorithm'],
    ready: 22,
    failedStart: null,
    acceptance: {
      neverAccepted: false,
      lines: 2,
      maxMeanLength: null,
      acceptedTokens: 94,
      draftedTokens: 136,
    },
  },
  {
    // b7501 at default verbosity has no timestamps: its padded metadata dump and prompt-cache listing
    // must not pass for terminal wraps (they swallowed the ready line and all but one acceptance line)
    file: 'llamacpp-b7501-draft-plain-format.txt',
    adapter: llamacppAdapter,
    facts: {
      engine_version: 'b7501-0e1ccf15c',
      'speculative.draft_model': 'models/draft.gguf',
      max_running_requests: 4,
      context_length: 512,
      'llamacpp.log_draft_requests': 4,
    },
    // -md alone at this build: the log names no speculative type
    unknown: ['speculative.algorithm'],
    ready: 332,
    failedStart: null,
    acceptance: {
      neverAccepted: false,
      lines: 4,
      maxMeanLength: null,
      acceptedTokens: 117,
      draftedTokens: 562,
    },
  },
  {
    file: 'llamacpp-b9232-auto-draft-statistics.txt',
    adapter: llamacppAdapter,
    facts: {
      'speculative.algorithm': 'DRAFT-SIMPLE',
      'speculative.draft_model': '/models/gemma-3-1b-it-Q4_K_M.gguf',
      max_running_requests: 4,
      context_length: 32768,
      'llamacpp.log_spec_stats.draft-simple.accepted_tokens': 190,
      'llamacpp.log_spec_stats.draft-simple.generated_tokens': 287,
    },
    unknown: ['engine_version'],
    ready: 14,
    failedStart: null,
    acceptance: {
      neverAccepted: false,
      lines: 2,
      maxMeanLength: null,
      acceptedTokens: 190,
      draftedTokens: 287,
    },
  },
  {
    file: 'llamacpp-b10573-draft-batch-failed.txt',
    adapter: llamacppAdapter,
    facts: { max_running_requests: 2, context_length: 8192 },
    ready: 6,
    failedStart: { line: 16, contains: 'failed to decode draft batch, ret = -3', afterReady: true },
    acceptance: {
      neverAccepted: false,
      lines: 1,
      maxMeanLength: 2.75,
      acceptedTokens: 147,
      draftedTokens: 252,
    },
  },
];

describe('log format corpus', () => {
  it.each(CASES)('$file gives the facts a correct reader extracts', (c) => {
    expectLogCase(c);
  });

  it('reads the same facts from an ANSI-coloured copy of a wrapped log', () => {
    const text = corpus('vllm-wrapped-80-and-120.txt').replace(/\b(INFO)\b/g, '\u001b[32m$1\u001b[0m');
    const r = vllmAdapter.readLog(text, 'x.log');
    expect(r.facts.tp_size?.value).toBe(2);
    expect(r.facts.context_length?.value).toBe(32768);
  });
});

describe('hostile log input', () => {
  it.each([
    ['nested brackets', `INFO 01-01 00:00:00 [x] non-default args: {${"'a': [".repeat(200_000)}`],
    ['nested calls', `[2026-01-01 00:00:00] server_args=ServerArgs(${'a=('.repeat(200_000)}`],
    ['one 10 MB line', `Traceback (most recent call last):\n${'a'.repeat(10_000_000)} b`],
  ])('reads %s without throwing', (_name, text) => {
    for (const adapter of [vllmAdapter, sglangAdapter, tgiAdapter]) {
      expect(() => adapter.readLog(text, 'x.log')).not.toThrow();
    }
  });
});

describe('a log pasted with its last line cut mid-value', () => {
  it.each([
    [
      sglangAdapter,
      '[2026-01-01 00:00:00 TP0] Decode batch, #running-req: 1, #token: 90, token usage: 0.00, accept len: 2',
    ],
    [vllmAdapter, 'INFO 01-01 00:00:00 [metrics.py:1] SpecDecoding metrics: Mean acceptance length: 2.3'],
    [
      vllmAdapter,
      'INFO 01-01 00:00:00 [metrics.py:1] SpecDecoding metrics: Draft acceptance rate: 42.3%, Mean acceptance length: 1.27, Accepted: 609 tokens, Drafted: 1440 tokens, Per-position acceptance rate: 0.667, 0.3',
    ],
    [
      llamacppAdapter,
      'slot print_timing: id  0 | task 0 | draft acceptance = 0.58 (  147 accepted /   252 generated), mean len =  2.7',
    ],
  ])('does not read a cut mean acceptance length (%#)', (adapter, text) => {
    const r = adapter.readLog(text, 'cut.log');
    expect(r.acceptance?.maxMeanLength ?? null).toBeNull();
  });
});
