// The endpoint-body corpus: what engines of 2025–2026 answer on their configuration endpoints (bodies
// written after the handlers at each release), served by a real HTTP server on loopback, with the facts
// a correct reader extracts and the ones it must leave unknown (a body cut mid-value included).

import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { type FixtureServer, startFixtureServer } from './fixture-server.js';
import { llamacppAdapter } from './llamacpp.js';
import { sglangAdapter } from './sglang.js';
import { tgiAdapter } from './tgi.js';
import type { EngineAdapter } from './types.js';
import { vllmAdapter } from './vllm.js';

const corpus = (name: string) => readFileSync(new URL(`./corpus/${name}`, import.meta.url), 'utf8');
const json = (name: string): object => JSON.parse(corpus(name));

interface Case {
  name: string;
  adapter: EngineAdapter;
  routes: Record<string, object | string | { body: string; contentType: string }>;
  facts: Record<string, string | number | boolean | null>;
  unknown?: string[];
  /** Text that must not appear in any fact or raw document (secrets). */
  never?: string[];
}

const VLLM_METRICS = [
  '# TYPE vllm:spec_decode_num_drafts_total counter',
  'vllm:spec_decode_num_drafts_total{engine="0",model_name="Qwen/Qwen3-32B"} 1620.0',
  '# TYPE vllm:spec_decode_num_accepted_tokens_total counter',
  'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="Qwen/Qwen3-32B"} 2557.0',
  'vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",gpu_memory_utilization="0.9",num_gpu_blocks="20931"} 1.0',
  '',
].join('\n');

const CASES: Case[] = [
  {
    name: 'SGLang 0.4.6 /get_server_info (no /server_info yet), scheduler info and internal states',
    adapter: sglangAdapter,
    routes: { '/get_server_info': json('sglang-046-get-server-info.json') },
    facts: {
      engine_version: '0.4.6',
      'speculative.algorithm': 'EAGLE',
      'speculative.topk': 8,
      'speculative.num_draft_tokens': 64,
      overlap_schedule: false,
      'speculative.spec_v2': false,
      max_running_requests: 48,
      'sglang.max_total_num_tokens': 292160,
      'sglang.avg_spec_accept_length': 3.46,
      'speculative.active': true,
      'sglang.api_key': '<redacted>',
    },
    unknown: ['context_length'],
    never: ['sglang-key-do-not-store'],
  },
  {
    name: 'SGLang /server_info cut inside the speculative algorithm: unknown, never ""',
    adapter: sglangAdapter,
    routes: {
      '/server_info': {
        body: corpus('sglang-server-info-cut-mid-value.txt'),
        contentType: 'application/json',
      },
    },
    facts: { tp_size: 8, quantization: 'fp8', model: 'deepseek-ai/DeepSeek-V3' },
    unknown: ['speculative.algorithm', 'speculative.spec_v2', 'max_running_requests'],
  },
  {
    // SGLANG_RUST_SERVER=1 (2026-07-31 on): the Rust server's /server_info lists no ServerArgs fields
    // (rust/sglang-server/src/api_server/common.rs, main 2026-08-22): not a server without speculation
    name: 'SGLang Rust server /server_info (allow-listed): context length and acceptance, no ServerArgs fields',
    adapter: sglangAdapter,
    routes: { '/server_info': json('sglang-2026-08-rust-server-info.json') },
    facts: {
      engine: 'sglang',
      engine_version: '0.1.dev1546+g382343f86',
      model: 'Qwen/Qwen3-32B',
      served_model_name: 'qwen3-32b',
      context_length: 40960,
      'sglang.effective_max_running_requests_per_dp': 48,
      'sglang.avg_spec_accept_length': 2.71,
      'speculative.active': true,
    },
    // dp_size is not stated, so 48 per rank says nothing of the whole server's cap
    unknown: [
      'max_running_requests',
      'dp_size',
      'tp_size',
      'speculative.algorithm',
      'speculative.spec_v2',
      'overlap_schedule',
    ],
  },
  {
    name: 'vLLM 0.10.1: /version, /v1/models and spec-decode counters',
    adapter: vllmAdapter,
    routes: {
      '/version': { version: '0.10.1' },
      '/v1/models': {
        object: 'list',
        data: [
          { id: 'qwen3', object: 'model', owned_by: 'vllm', root: 'Qwen/Qwen3-32B', max_model_len: 32768 },
        ],
      },
      '/metrics': VLLM_METRICS,
    },
    facts: {
      engine_version: '0.10.1',
      served_model_name: 'qwen3',
      model: 'Qwen/Qwen3-32B',
      context_length: 32768,
      'vllm.cache_config.num_gpu_blocks': 20931,
      'speculative.active': true,
    },
    // no /server_info without VLLM_SERVER_DEV_MODE: the algorithm is read from the log or the command line
    unknown: ['speculative.algorithm', 'tp_size'],
  },
  {
    name: 'llama.cpp b7205 /props and /slots: the build, and every slot drafting',
    adapter: llamacppAdapter,
    routes: { '/props': json('llamacpp-b7205-props.json'), '/slots': json('llamacpp-b7205-slots.json') },
    facts: {
      engine_version: 'b7205-ab49f094d',
      model: '/models/Qwen2.5-7B-Instruct-Q4_K_M.gguf',
      max_running_requests: 4,
      context_length: 4096,
      'llamacpp.speculative': true,
      'speculative.active': true,
      'llamacpp.params.speculative.n_max': 16,
      'speculative.num_steps': 16,
    },
    unknown: ['speculative.algorithm'],
  },
  {
    name: 'TGI 3.3.6 /info: version and token limits, no dtype since v3',
    adapter: tgiAdapter,
    routes: { '/info': json('tgi-v336-info.json') },
    facts: {
      engine_version: '3.3.6',
      model: 'meta-llama/Llama-3.1-8B-Instruct',
      context_length: 8192,
      'tgi.max_input_tokens': 8191,
      'tgi.max_client_batch_size': 4,
    },
    unknown: ['dtype', 'tp_size'],
  },
];

describe('endpoint-body corpus', () => {
  let server: FixtureServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it.each(CASES)('$name', async (c) => {
    server = await startFixtureServer(c.routes);
    const { facts, raw } = await c.adapter.readLive(createTargetHttp(server.url));
    for (const [key, value] of Object.entries(c.facts))
      expect({ key, value: facts[key]?.value }).toEqual({ key, value });
    for (const key of c.unknown ?? []) expect({ key, fact: facts[key] }).toEqual({ key, fact: undefined });
    for (const secret of c.never ?? []) expect(JSON.stringify({ facts, raw })).not.toContain(secret);
  });
});
