// The command-line corpus: server command lines as users write them (argparse abbreviations,
// `--flag=value`, JSON-valued flags in both spellings), with the facts a correct reader extracts.

import { describe, expect, it } from 'vitest';
import { sglangAdapter } from './sglang.js';
import { tgiAdapter } from './tgi.js';
import type { EngineAdapter } from './types.js';
import { vllmAdapter } from './vllm.js';

interface Case {
  name: string;
  adapter: EngineAdapter;
  argv: string[];
  env?: Record<string, string>;
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
];

describe('command-line corpus', () => {
  it.each(CASES)('$name', (c) => {
    const facts = c.adapter.readProcess(c.argv, c.env ?? null, '/proc/1/cmdline');
    for (const [key, value] of Object.entries(c.facts)) {
      expect({ key, value: facts[key]?.value }).toEqual({ key, value });
    }
    for (const key of c.unknown ?? []) expect({ key, fact: facts[key] }).toEqual({ key, fact: undefined });
  });
});
