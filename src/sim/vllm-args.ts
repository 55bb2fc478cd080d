// vLLM's `vllm serve` flags and the served configuration they give (speculative config JSON, chain
// drafting); the plain OpenAI flavour is vLLM's defaults with no flags.

import { BenchgateError } from '../core/errors.js';
import { type FlagSpec, parseEngineArgv } from './argparse.js';
import type { SimProfile } from './profiles.js';
import { redactedGivenArgs, type ServedConfig } from './served-config.js';

const VLLM_FLAGS: FlagSpec[] = [
  { flags: ['--model'], dest: 'model', type: 'str' },
  { flags: ['--served-model-name'], dest: 'served_model_name', type: 'str' },
  { flags: ['--host'], dest: 'host', type: 'str' },
  { flags: ['--port'], dest: 'port', type: 'int' },
  { flags: ['--tensor-parallel-size', '-tp'], dest: 'tensor_parallel_size', type: 'int' },
  { flags: ['--data-parallel-size', '-dp'], dest: 'data_parallel_size', type: 'int' },
  { flags: ['--pipeline-parallel-size', '-pp'], dest: 'pipeline_parallel_size', type: 'int' },
  {
    flags: ['--dtype'],
    dest: 'dtype',
    type: 'str',
    choices: ['auto', 'half', 'float16', 'bfloat16', 'float', 'float32'],
  },
  { flags: ['--quantization', '-q'], dest: 'quantization', type: 'str' },
  { flags: ['--kv-cache-dtype'], dest: 'kv_cache_dtype', type: 'str' },
  { flags: ['--max-model-len'], dest: 'max_model_len', type: 'int' },
  { flags: ['--max-num-seqs'], dest: 'max_num_seqs', type: 'int' },
  { flags: ['--max-num-batched-tokens'], dest: 'max_num_batched_tokens', type: 'int' },
  { flags: ['--gpu-memory-utilization'], dest: 'gpu_memory_utilization', type: 'float' },
  { flags: ['--speculative-config'], dest: 'speculative_config', type: 'json' },
  { flags: ['--async-scheduling'], dest: 'async_scheduling', type: 'bool', negatable: true },
  { flags: ['--enable-prefix-caching'], dest: 'enable_prefix_caching', type: 'bool', negatable: true },
  { flags: ['--enforce-eager'], dest: 'enforce_eager', type: 'bool', negatable: true },
  { flags: ['--trust-remote-code'], dest: 'trust_remote_code', type: 'bool', negatable: true },
  { flags: ['--seed'], dest: 'seed', type: 'int' },
  { flags: ['--api-key'], dest: 'api_key', type: 'str' },
  { flags: ['--enable-log-requests'], dest: 'enable_log_requests', type: 'bool', negatable: true },
  { flags: ['--disable-log-stats'], dest: 'disable_log_stats', type: 'bool', negatable: true },
];

/**
 * Async scheduling when not given (config/vllm.py): on, unless a speculative method other than the
 * EAGLE family (eagle, eagle3, MTP, dflash) or ngram_gpu is configured.
 */
function asyncSchedulingDefault(method: string | null): boolean {
  if (method === null) return true;
  return (
    ['eagle', 'eagle3', 'extract_hidden_states', 'dflash', 'ngram_gpu'].includes(method) ||
    method.endsWith('_mtp')
  );
}

export function vllmConfig(profile: SimProfile, argv: string[]): ServedConfig {
  const { values, given } = parseEngineArgv('vllm serve', VLLM_FLAGS, argv, 'model');
  const v = values as Record<string, never>;
  const modelPath: string = v.model ?? profile.modelPath;
  const sc = (v.speculative_config ?? null) as Record<string, unknown> | null;
  let algo: string | null = null;
  let steps: number | null = null;
  let startError: ServedConfig['startError'] = null;
  if (sc !== null) {
    if (typeof sc !== 'object' || typeof sc.num_speculative_tokens !== 'number') {
      startError = {
        type: 'ValueError',
        message: 'num_speculative_tokens must be provided with speculative model.',
      };
    } else {
      algo = String(sc.method ?? 'eagle');
      steps = sc.num_speculative_tokens;
    }
  }
  const maxNumSeqs: number = v.max_num_seqs ?? 256;
  const contextLength: number = v.max_model_len ?? profile.contextLength;
  const tp: number = v.tensor_parallel_size ?? 1;
  const givenArgs = redactedGivenArgs(given, values);
  const engineArgs: Record<string, unknown> = {
    model: modelPath,
    served_model_name: v.served_model_name ?? modelPath,
    tensor_parallel_size: tp,
    data_parallel_size: v.data_parallel_size ?? 1,
    pipeline_parallel_size: v.pipeline_parallel_size ?? 1,
    dtype: v.dtype ?? 'auto',
    quantization: v.quantization ?? profile.quantization,
    max_model_len: contextLength,
    max_num_seqs: maxNumSeqs,
    max_num_batched_tokens: v.max_num_batched_tokens ?? profile.chunkedPrefillSize,
    gpu_memory_utilization: v.gpu_memory_utilization ?? 0.9,
    kv_cache_dtype: v.kv_cache_dtype ?? 'auto',
    async_scheduling: v.async_scheduling ?? asyncSchedulingDefault(algo),
    enable_prefix_caching: v.enable_prefix_caching ?? true,
    speculative_config: sc,
    seed: v.seed ?? 0,
  };
  return {
    flavor: 'vllm',
    modelPath,
    servedModelName: String(engineArgs.served_model_name),
    tpSize: tp,
    dpSize: Number(engineArgs.data_parallel_size),
    dtype: String(engineArgs.dtype),
    quantization: (engineArgs.quantization as string | null) ?? null,
    contextLength,
    maxRunningRequests: maxNumSeqs,
    maxTotalNumTokens: profile.kvCapacityTokens,
    chunkedPrefillSize: Number(engineArgs.max_num_batched_tokens),
    disableOverlapSchedule: !engineArgs.async_scheduling,
    specAlgorithm: algo,
    specDraftModelPath: sc && typeof sc.model === 'string' ? sc.model : null,
    specNumSteps: steps,
    specTopk: steps === null ? null : 1,
    specNumDraftTokens: steps === null ? null : steps + 1,
    specV2: false,
    decodeLogInterval: 40,
    randomSeed: Number(engineArgs.seed),
    apiKey: (v.api_key as string | undefined) ?? null,
    engineArgs,
    givenArgs,
    warnings: [],
    startError,
  };
}

export function openaiConfig(profile: SimProfile, argv: string[]): ServedConfig {
  if (argv.length > 0) {
    throw new BenchgateError(
      'BG_E_USAGE',
      `The openai flavour takes no engine flags; found "${argv.join(' ')}".`,
    );
  }
  const c = vllmConfig(profile, []);
  return { ...c, flavor: 'openai', disableOverlapSchedule: false };
}
