// The command-line corpus: server command lines as users write them (argparse abbreviations,
// `--flag=value`, JSON-valued flags in both spellings), with the facts a correct reader extracts.

import { describe, expect, it } from 'vitest';
import { redactArgv, redactEnv } from '../hosts/redact-env.js';
import { llamacppAdapter } from './llamacpp.js';
import { sglangAdapter } from './sglang.js';
import { tgiAdapter } from './tgi.js';
import type { EngineAdapter } from './types.js';
import { vllmAdapter } from './vllm.js';

interface Case {
  name: string;
  adapter: EngineAdapter;
  argv: string[];
  env?: Record<string, string>;
  /** What the live endpoints said first (the engine build), for rules that hold only for some builds. */
  live?: Record<string, string | boolean>;
  facts: Record<string, string | number | boolean | null>;
  /** Keys a correct reader leaves unknown. */
  unknown?: string[];
}

const VLLM = ['/opt/venv/bin/python3', '/opt/venv/bin/vllm', 'serve', 'meta-llama/Llama-3.1-8B-Instruct'];
const SGL = ['python3', '-m', 'sglang.launch_server'];
const SPEC_JSON =
  '{"method":"eagle3","model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":4}';

const CASES: Case[] = [
  {
    name: 'vLLM: a unique argparse prefix (--tensor-parallel 2)',
    adapter: vllmAdapter,
    argv: [...VLLM, '--tensor-parallel', '2', '--max-model', '16384'],
    facts: {
      tp_size: 2,
      context_length: 16384,
      'vllm.abbreviated_flags': '--tensor-parallel → --tensor-parallel-size, --max-model → --max-model-len',
    },
  },
  {
    name: 'vLLM: an ambiguous prefix is not guessed (--max-num: max_num_seqs or max_num_batched_tokens)',
    adapter: vllmAdapter,
    argv: [...VLLM, '--max-num', '64'],
    facts: { 'vllm.max_num': 64 },
    unknown: ['max_running_requests'],
  },
  {
    // max_num_scheduled_tokens is in EngineArgs from 2026-07-08 (vLLM bd3bb4eb2, vllm/engine/arg_utils.py)
    name: 'vLLM: --max-num-s is ambiguous since 2026-07 (max_num_seqs or max_num_scheduled_tokens), not guessed',
    adapter: vllmAdapter,
    argv: [...VLLM, '--max-num-s', '64'],
    facts: { 'vllm.max_num_s': 64 },
    unknown: ['max_running_requests'],
  },
  {
    name: 'vLLM: --flag=value and the JSON speculative config, dashed spelling',
    adapter: vllmAdapter,
    argv: [...VLLM, '--tensor-parallel-size=4', `--speculative-config=${SPEC_JSON}`],
    facts: {
      tp_size: 4,
      'speculative.algorithm': 'EAGLE3',
      'speculative.draft_model': 'yuhuili/EAGLE3-LLaMA3.1-Instruct-8B',
      'speculative.num_steps': 4,
      'speculative.num_draft_tokens': 4,
      'vllm.speculative_config.method': 'eagle3',
    },
  },
  {
    name: 'vLLM: --speculative_config (underscore) with a Python-literal dict',
    adapter: vllmAdapter,
    argv: [
      ...VLLM,
      '--speculative_config',
      "{'method': 'ngram', 'num_speculative_tokens': 5, 'prompt_lookup_max': 4}",
    ],
    facts: {
      'speculative.algorithm': 'NGRAM',
      'speculative.num_draft_tokens': 5,
      'vllm.speculative_config.prompt_lookup_max': 4,
    },
  },
  {
    name: 'vLLM: other JSON-valued flags become nested keys, not a string',
    adapter: vllmAdapter,
    argv: [...VLLM, '--compilation-config', '{"level": 3, "pass_config": {"enable_fusion": true}}'],
    facts: { 'vllm.compilation_config.level': 3, 'vllm.compilation_config.pass_config.enable_fusion': true },
    unknown: ['vllm.compilation_config'],
  },
  {
    name: 'vLLM: no speculative flag is absent (null), not unknown',
    adapter: vllmAdapter,
    argv: [...VLLM, '-tp', '8', '--dtype', 'half'],
    facts: { 'speculative.algorithm': null, tp_size: 8, dtype: 'float16' },
  },
  {
    name: 'SGLang: abbreviations and aliases (--tp, --speculative-algo) with the algorithm in canonical case',
    adapter: sglangAdapter,
    argv: [
      ...SGL,
      '--model-path',
      'Qwen/Qwen3-8B',
      '--tp',
      '2',
      '--speculative-algo',
      'eagle3',
      '--speculative-num-steps=3',
    ],
    facts: {
      tp_size: 2,
      'speculative.algorithm': 'EAGLE3',
      'speculative.num_steps': 3,
      model: 'Qwen/Qwen3-8B',
    },
  },
  {
    name: 'SGLang: a JSON-valued flag (--json-model-override-args) becomes nested keys',
    adapter: sglangAdapter,
    argv: [...SGL, '--model-path', 'm', '--json-model-override-args', '{"rope_scaling": {"factor": 4.0}}'],
    facts: { 'sglang.json_model_override_args.rope_scaling.factor': 4 },
  },
  {
    name: 'TGI: launcher flags with the dtype in canonical form',
    adapter: tgiAdapter,
    argv: [
      'text-generation-launcher',
      '--model-id',
      'mistralai/Mistral-7B-Instruct-v0.3',
      '--num-shard',
      '2',
    ],
    env: { DTYPE: 'bfloat16' },
    facts: { tp_size: 2, dtype: 'bfloat16', model: 'mistralai/Mistral-7B-Instruct-v0.3' },
  },
  {
    name: 'vLLM before 0.8: --speculative-model [ngram] is n-gram lookup',
    adapter: vllmAdapter,
    argv: [
      ...VLLM,
      '--speculative-model',
      '[ngram]',
      '--num-speculative-tokens',
      '5',
      '--ngram-prompt-lookup-max',
      '4',
    ],
    facts: {
      'speculative.algorithm': 'NGRAM',
      'speculative.num_steps': 5,
      'vllm.ngram_prompt_lookup_max': 4,
    },
    unknown: ['speculative.draft_model'],
  },
  {
    name: 'vLLM before 0.8: a draft path names no method (EAGLE or plain draft is told by the model itself)',
    adapter: vllmAdapter,
    argv: [
      ...VLLM,
      '--speculative-model',
      'meta-llama/Llama-3.2-1B-Instruct',
      '--num-speculative-tokens',
      '3',
    ],
    facts: {
      'speculative.draft_model': 'meta-llama/Llama-3.2-1B-Instruct',
      'speculative.num_draft_tokens': 3,
    },
    unknown: ['speculative.algorithm'],
  },
  {
    name: 'vLLM: a --speculative-config pasted cut mid-value is unknown, not "" and not "none"',
    adapter: vllmAdapter,
    argv: [...VLLM, '--speculative-config', '{"method":"eag'],
    facts: { 'vllm.speculative_config_truncated': true },
    unknown: ['speculative.algorithm', 'speculative.num_steps'],
  },
  {
    name: 'vLLM: a --speculative-config cut after its method keeps the method only',
    adapter: vllmAdapter,
    argv: [...VLLM, '--speculative-config', '{"method": "eagle3", "num_speculative_tokens": 3'],
    facts: { 'speculative.algorithm': 'EAGLE3', 'vllm.speculative_config_truncated': true },
    unknown: ['speculative.num_steps'],
  },
  {
    name: 'vLLM: token-count flags stay readable through /proc redaction, the key and HF token do not',
    adapter: vllmAdapter,
    argv: [
      ...VLLM,
      '--max-num-batched-tokens',
      '16384',
      '--api-key',
      'sk-abcdefghij123',
      '--hf-token',
      'hf_abcdefghijkl',
    ],
    env: { HF_TOKEN: 'hf_abcdefghijkl', VLLM_SERVER_DEV_MODE: '1' },
    facts: {
      'vllm.max_num_batched_tokens': 16384,
      'vllm.api_key': '<redacted>',
      'vllm.hf_token': '<redacted>',
      'vllm.env.VLLM_SERVER_DEV_MODE': '1',
    },
  },
  {
    name: 'SGLang: --speculative-num-draft-tokens and --max-total-tokens survive redaction',
    adapter: sglangAdapter,
    argv: [
      ...SGL,
      '--model-path',
      'Qwen/Qwen3-8B',
      '--speculative-algorithm',
      'EAGLE3',
      '--speculative-num-draft-tokens',
      '4',
      '--max-total-tokens',
      '200000',
      '--api-key',
      'secret-123456',
    ],
    facts: {
      'speculative.num_draft_tokens': 4,
      'sglang.max_total_tokens': 200000,
      'sglang.api_key': '<redacted>',
    },
  },
  {
    name: 'llama.cpp b7205 (late 2025): -md with --draft-max speculates with the draft model',
    adapter: llamacppAdapter,
    argv: ['/app/llama-server', '-m', '/m/q.gguf', '-md', '/m/d.gguf', '--draft-max', '8', '-np', '2'],
    live: { engine_version: 'b7205-ab49f094d' },
    facts: { 'speculative.algorithm': 'DRAFT-SIMPLE', 'speculative.num_steps': 8, max_running_requests: 2 },
  },
  {
    name: 'llama.cpp b10587 (2026-08): -md alone loads the draft and does not speculate',
    adapter: llamacppAdapter,
    argv: ['llama-server', '-m', 'main.gguf', '-md', 'draft.gguf'],
    live: { engine_version: 'b10587-3f545becc' },
    facts: { 'speculative.algorithm': null, 'speculative.draft_model': 'draft.gguf' },
    unknown: ['speculative.num_steps'],
  },
  {
    name: 'llama.cpp of an unknown build: -md alone is unknown, with why',
    adapter: llamacppAdapter,
    argv: ['llama-server', '-m', 'main.gguf', '-md', 'draft.gguf', '--api-key', 'k-123456789'],
    live: { engine_version: 'b0-unknown' },
    facts: { 'speculative.algorithm_if_active': 'DRAFT-SIMPLE', 'llamacpp.api_key': '<redacted>' },
    unknown: ['speculative.algorithm'],
  },
  {
    name: 'llama.cpp: -c over -np slots, but the whole -c per slot with one unified KV buffer (-kvu)',
    adapter: llamacppAdapter,
    argv: ['llama-server', '-m', 'm.gguf', '-c', '32768', '-np', '4', '-kvu'],
    facts: { context_length: 32768, max_running_requests: 4, 'speculative.draft_model': null },
  },
  {
    name: 'TGI: --max-total-tokens and --max-batch-prefill-tokens survive redaction',
    adapter: tgiAdapter,
    argv: [
      'text-generation-launcher',
      '--model-id',
      'm',
      '--max-total-tokens',
      '8192',
      '--max-batch-prefill-tokens',
      '4096',
    ],
    env: { HF_TOKEN: 'hf_abcdefghijkl', MAX_INPUT_TOKENS: '4095' },
    facts: { context_length: 8192, 'tgi.max_batch_prefill_tokens': 4096, 'tgi.max_input_tokens': 4095 },
  },
];

describe('command-line corpus', () => {
  it.each(CASES)('$name', (c) => {
    // as the server-process check reads them: argv and environment redacted first
    const live = Object.fromEntries(
      Object.entries(c.live ?? {}).map(([k, value]) => [k, { value, source: 'GET /props' }]),
    );
    const env = c.env ? redactEnv(c.env) : null;
    const facts = c.adapter.readProcess(redactArgv(c.argv), env, '/proc/1/cmdline', live);
    for (const [key, value] of Object.entries(c.facts)) {
      expect({ key, value: facts[key]?.value }).toEqual({ key, value });
    }
    for (const key of c.unknown ?? []) expect({ key, fact: facts[key] }).toEqual({ key, fact: undefined });
  });
});
