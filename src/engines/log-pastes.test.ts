// Logs as users paste them into issues (fixtures written for this project after the shapes seen in real
// pastes): a configuration dump broken mid-token by the paste, a fragment with no start marker, a
// traceback pasted from its middle behind a log shipper's prefixes, a process that died outside Python,
// launcher arguments left to their defaults. Each with the facts a correct reader extracts and the ones
// it must leave unknown.

import { describe, expect, it } from 'vitest';
import { logicalLines } from './logtext.js';
import { sglangAdapter } from './sglang.js';
import { expectLogCase, type LogCase } from './test-support/log-case.js';
import { tgiAdapter } from './tgi.js';
import { vllmAdapter } from './vllm.js';

const CASES: LogCase[] = [
  {
    file: 'paste-sglang-server-args-broken-mid-number.txt',
    adapter: sglangAdapter,
    // `max_prefill_tokens=3276` / `8, …`: one number, never 3276
    facts: {
      model: 'acme/Orca-9B-Chat',
      tp_size: 2,
      'sglang.max_prefill_tokens': 32768,
      'sglang.schedule_policy': 'lpm',
      overlap_schedule: true,
      'speculative.algorithm': null,
    },
    unknown: ['context_length', 'sglang.server_args_truncated'],
    ready: 4,
    failedStart: null,
  },
  {
    file: 'paste-vllm-engine-config-broken-mid-name.txt',
    adapter: vllmAdapter,
    facts: {
      engine_version: '0.9.1',
      tp_size: 2,
      context_length: 16384,
      dtype: 'float16',
      served_model_name: 'orca',
      'vllm.enable_prefix_caching': false,
      'vllm.chunked_prefill_enabled': true,
    },
    ready: 4,
    failedStart: null,
  },
  {
    file: 'paste-vllm-v04-engine-config-no-version.txt',
    adapter: vllmAdapter,
    // a complete line followed by a flush line of another writer: not joined
    facts: {
      model: '/data/orca-7b',
      tp_size: 2,
      context_length: 8192,
      quantization: 'awq',
      dtype: 'float16',
    },
    unknown: ['engine_version'],
    ready: null,
    failedStart: null,
  },
  {
    file: 'paste-vllm-max-concurrency-no-marker.txt',
    adapter: vllmAdapter,
    facts: { context_length: 32768 },
    unknown: ['engine_version', 'tp_size'],
    failedStart: null,
  },
  {
    file: 'paste-vllm-headless-traceback-journal.txt',
    adapter: vllmAdapter,
    ready: null,
    failedStart: { line: 1, contains: 'ValueError: To serve at least one request' },
  },
  {
    file: 'paste-sglang-fatal-python-aborted.txt',
    adapter: sglangAdapter,
    failedStart: { line: 3, contains: 'Fatal Python error: Aborted' },
  },
  {
    file: 'paste-tgi-nccl-terminate-after-ready.txt',
    adapter: tgiAdapter,
    ready: 1,
    failedStart: { line: 3, contains: 'taking the entire process down', afterReady: true },
  },
  {
    file: 'paste-tgi-args-none-is-unset.txt',
    adapter: tgiAdapter,
    // None is "not given": every visible GPU, the model's own quantization, its own Medusa heads
    facts: {
      model: 'acme/orca-13b-awq',
      context_length: 4096,
      'tgi.max_input_tokens': 3000,
      'tgi.disable_grammar_support': false,
      'tgi.trust_remote_code': false,
    },
    unknown: ['tp_size', 'quantization', 'speculative.num_steps', 'dtype', 'max_running_requests'],
  },
  {
    file: 'paste-sglang-2026-spec-v1-capped.txt',
    adapter: sglangAdapter,
    // topk 4 runs spec v1 even with spec v2 the default; the state cache admits 12 of the 32 asked
    facts: {
      'speculative.spec_v2': false,
      overlap_schedule: false,
      max_running_requests: 12,
      'sglang.max_running_requests': 32,
      context_length: 131072,
    },
    ready: 5,
    failedStart: null,
  },
  {
    file: 'paste-sglang-2026-spec-v2-env-removed.txt',
    adapter: sglangAdapter,
    facts: { 'speculative.spec_v2': true, overlap_schedule: true, 'sglang.spec_v2_env_ignored': true },
    ready: 3,
  },
];

describe('logs as pasted into issues', () => {
  it.each(CASES)('$file gives the facts a correct reader extracts', (c) => {
    expectLogCase(c);
  });
});

describe('a configuration dump broken by the paste', () => {
  it('is joined only while it leaves a bracket open or stops inside a name or value', () => {
    const dump = `[2026-01-01 00:00:00] server_args=ServerArgs(${"model_path='m', ".repeat(20)}tp_si`;
    expect(logicalLines(`${dump}\nze=4)\nnext line`).map((l) => l.text)).toEqual([
      `${dump}ze=4)`,
      'next line',
    ]);
    // a short line, an indented continuation and a closed dump are left alone
    expect(logicalLines('x = f(a,\nb)')).toHaveLength(2);
    expect(logicalLines(`${dump}\n    ze=4)`)).toHaveLength(2);
    const closed = `INFO 01-01 00:00:00 llm_engine.py:70] Initializing an LLM engine with config: ${'a=1, '.repeat(50)}seed=0)`;
    expect(logicalLines(`${closed}\nSpecial tokens have been added`)).toHaveLength(2);
  });
});
