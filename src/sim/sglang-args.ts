// SGLang's `launch_server.py` flags and its ServerArgs derivations (speculative decoding forcing overlap
// off, spec v2, top-k 1 draft-token adjustment, max running requests reset to 48).

import { REDACTED } from '../core/redact.js';
import { type FlagSpec, parseEngineArgv } from './argparse.js';
import type { SimProfile } from './profiles.js';
import {
  envFlagTrue,
  redactedGivenArgs,
  type ServedConfig,
  type SimEnv,
  type StartupLogEntry,
} from './served-config.js';

const SGLANG_FLAGS: FlagSpec[] = [
  { flags: ['--model-path', '--model'], dest: 'model_path', type: 'str' },
  { flags: ['--tokenizer-path'], dest: 'tokenizer_path', type: 'str' },
  { flags: ['--served-model-name'], dest: 'served_model_name', type: 'str' },
  { flags: ['--host'], dest: 'host', type: 'str' },
  { flags: ['--port'], dest: 'port', type: 'int' },
  { flags: ['--tp-size', '--tensor-parallel-size'], dest: 'tp_size', type: 'int' },
  { flags: ['--dp-size', '--data-parallel-size'], dest: 'dp_size', type: 'int' },
  { flags: ['--pp-size', '--pipeline-parallel-size'], dest: 'pp_size', type: 'int' },
  {
    flags: ['--dtype'],
    dest: 'dtype',
    type: 'str',
    choices: ['auto', 'half', 'float16', 'bfloat16', 'float', 'float32'],
  },
  { flags: ['--quantization'], dest: 'quantization', type: 'str' },
  { flags: ['--kv-cache-dtype'], dest: 'kv_cache_dtype', type: 'str' },
  { flags: ['--context-length'], dest: 'context_length', type: 'int' },
  { flags: ['--mem-fraction-static'], dest: 'mem_fraction_static', type: 'float' },
  { flags: ['--max-running-requests'], dest: 'max_running_requests', type: 'int' },
  { flags: ['--max-total-tokens'], dest: 'max_total_tokens', type: 'int' },
  { flags: ['--chunked-prefill-size'], dest: 'chunked_prefill_size', type: 'int' },
  { flags: ['--max-prefill-tokens'], dest: 'max_prefill_tokens', type: 'int' },
  { flags: ['--schedule-policy'], dest: 'schedule_policy', type: 'str' },
  { flags: ['--disable-overlap-schedule'], dest: 'disable_overlap_schedule', type: 'bool' },
  { flags: ['--disable-radix-cache'], dest: 'disable_radix_cache', type: 'bool' },
  { flags: ['--enable-metrics'], dest: 'enable_metrics', type: 'bool' },
  { flags: ['--trust-remote-code'], dest: 'trust_remote_code', type: 'bool' },
  { flags: ['--random-seed'], dest: 'random_seed', type: 'int' },
  { flags: ['--log-level'], dest: 'log_level', type: 'str' },
  { flags: ['--decode-log-interval'], dest: 'decode_log_interval', type: 'int' },
  { flags: ['--api-key'], dest: 'api_key', type: 'str' },
  { flags: ['--attention-backend'], dest: 'attention_backend', type: 'str' },
  { flags: ['--cuda-graph-max-bs'], dest: 'cuda_graph_max_bs', type: 'int' },
  { flags: ['--page-size'], dest: 'page_size', type: 'int' },
  {
    flags: ['--speculative-algorithm'],
    dest: 'speculative_algorithm',
    type: 'str',
    choices: ['DFLASH', 'EAGLE', 'EAGLE3', 'NEXTN', 'STANDALONE', 'NGRAM'],
  },
  {
    flags: ['--speculative-draft-model-path', '--speculative-draft-model'],
    dest: 'speculative_draft_model_path',
    type: 'str',
  },
  { flags: ['--speculative-num-steps'], dest: 'speculative_num_steps', type: 'int' },
  { flags: ['--speculative-eagle-topk'], dest: 'speculative_eagle_topk', type: 'int' },
  { flags: ['--speculative-num-draft-tokens'], dest: 'speculative_num_draft_tokens', type: 'int' },
];

/** What `_handle_speculative_decoding` leaves in ServerArgs, with its warnings and start-up error. */
interface SpecDerivation {
  algo: string | null;
  steps: number | null;
  topk: number | null;
  draftTokens: number | null;
  maxRunningRequests: number | null;
  disableOverlap: boolean;
  specV2: boolean;
  warnings: StartupLogEntry[];
  startError: ServedConfig['startError'];
}

type Values = Record<string, never>;

function specV2Overlap(d: SpecDerivation): void {
  d.disableOverlap = false;
  d.warnings.push({
    level: 'WARNING',
    where: 'server_args.py:3377',
    text: 'Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on.',
  });
  if (d.topk !== null && d.topk > 1) {
    d.startError = {
      type: 'ValueError',
      message: 'Spec v2 currently only supports topk = 1 for speculative decoding.',
    };
  }
}

function specV1Overlap(d: SpecDerivation): void {
  d.disableOverlap = true;
  d.warnings.push({
    level: 'WARNING',
    where: 'server_args.py:3389',
    text: 'Overlap scheduler is disabled when spec v2 is off or using unsupported speculative algorithm. You can set env SGLANG_ENABLE_SPEC_V2=True to enable the experimental overlap scheduler. ',
  });
}

/** Default steps/top-k/draft tokens, and draft tokens = steps + 1 when top-k is 1. */
function specShape(d: SpecDerivation): void {
  if (d.steps === null && d.topk === null && d.draftTokens === null) {
    d.steps = 3;
    d.topk = 1;
    d.draftTokens = 4;
  }
  const steps = d.steps ?? 3;
  d.steps = steps;
  d.topk ??= 1;
  d.draftTokens ??= steps + 1;
  if (d.topk === 1 && d.draftTokens !== steps + 1) {
    d.warnings.push({
      level: 'WARNING',
      where: 'server_args.py:3452',
      text: 'speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1',
    });
    d.draftTokens = steps + 1;
  }
}

function sglangSpeculative(v: Values, env: SimEnv): SpecDerivation {
  let algo: string | null = v.speculative_algorithm ?? null;
  if (algo === 'NEXTN') algo = 'EAGLE';
  const d: SpecDerivation = {
    algo,
    steps: v.speculative_num_steps ?? null,
    topk: v.speculative_eagle_topk ?? null,
    draftTokens: v.speculative_num_draft_tokens ?? null,
    maxRunningRequests: v.max_running_requests ?? null,
    disableOverlap: v.disable_overlap_schedule ?? false,
    specV2: envFlagTrue(env.SGLANG_ENABLE_SPEC_V2),
    warnings: [],
    startError: null,
  };
  if (algo === 'EAGLE' || algo === 'EAGLE3' || algo === 'STANDALONE') {
    if (d.maxRunningRequests === null) {
      d.maxRunningRequests = 48;
      d.warnings.push({
        level: 'WARNING',
        where: 'server_args.py:3368',
        text: 'Max running requests is reset to 48 for speculative decoding. You can override this by explicitly setting --max-running-requests.',
      });
    }
    if (d.specV2) specV2Overlap(d);
    else specV1Overlap(d);
    specShape(d);
  } else if (algo !== null) {
    d.startError = {
      type: 'ValueError',
      message: `The simulator models EAGLE, EAGLE3, NEXTN and STANDALONE speculative decoding; found ${algo}.`,
    };
  }
  return d;
}

/** ServerArgs as `server_args=ServerArgs(...)` logs it and /server_info returns it. */
function sglangEngineArgs(
  v: Values,
  profile: SimProfile,
  modelPath: string,
  d: SpecDerivation,
  maxRunning: number,
): Record<string, unknown> {
  return {
    model_path: modelPath,
    tokenizer_path: v.tokenizer_path ?? modelPath,
    tokenizer_mode: 'auto',
    load_format: 'auto',
    trust_remote_code: v.trust_remote_code ?? false,
    context_length: v.context_length ?? null,
    is_embedding: false,
    revision: null,
    host: v.host ?? '127.0.0.1',
    port: v.port ?? 30000,
    dtype: v.dtype ?? 'auto',
    kv_cache_dtype: v.kv_cache_dtype ?? 'auto',
    quantization: v.quantization ?? profile.quantization,
    served_model_name: v.served_model_name ?? modelPath,
    random_seed: v.random_seed ?? 0,
    mem_fraction_static: v.mem_fraction_static ?? 0.85,
    max_running_requests: maxRunning,
    max_total_tokens: v.max_total_tokens ?? null,
    chunked_prefill_size: v.chunked_prefill_size ?? profile.chunkedPrefillSize,
    max_prefill_tokens: v.max_prefill_tokens ?? 16384,
    schedule_policy: v.schedule_policy ?? 'fcfs',
    page_size: v.page_size ?? 1,
    tp_size: v.tp_size ?? profile.numGpus,
    pp_size: v.pp_size ?? 1,
    dp_size: v.dp_size ?? 1,
    log_level: v.log_level ?? 'info',
    decode_log_interval: v.decode_log_interval ?? 40,
    enable_metrics: v.enable_metrics ?? false,
    api_key: v.api_key === undefined ? null : REDACTED,
    attention_backend: v.attention_backend ?? null,
    cuda_graph_max_bs: v.cuda_graph_max_bs ?? null,
    disable_radix_cache: v.disable_radix_cache ?? false,
    disable_overlap_schedule: d.disableOverlap,
    enable_mixed_chunk: false,
    speculative_algorithm: d.algo,
    speculative_draft_model_path: v.speculative_draft_model_path ?? null,
    speculative_num_steps: d.steps,
    speculative_eagle_topk: d.topk,
    speculative_num_draft_tokens: d.draftTokens,
  };
}

export function sglangConfig(profile: SimProfile, argv: string[], env: SimEnv): ServedConfig {
  const { values, given } = parseEngineArgv('launch_server.py', SGLANG_FLAGS, argv, null);
  const v = values as Values;
  const modelPath: string = v.model_path ?? profile.modelPath;
  const d = sglangSpeculative(v, env);
  const maxRunning = d.maxRunningRequests ?? profile.defaultMaxRunningRequests;
  const engineArgs = sglangEngineArgs(v, profile, modelPath, d, maxRunning);
  return {
    flavor: 'sglang',
    modelPath,
    servedModelName: String(engineArgs.served_model_name),
    tpSize: Number(engineArgs.tp_size),
    dpSize: Number(engineArgs.dp_size),
    dtype: String(engineArgs.dtype),
    quantization: (engineArgs.quantization as string | null) ?? null,
    contextLength: v.context_length ?? profile.contextLength,
    maxRunningRequests: maxRunning,
    maxTotalNumTokens: v.max_total_tokens ?? profile.kvCapacityTokens,
    chunkedPrefillSize: Number(engineArgs.chunked_prefill_size),
    disableOverlapSchedule: d.disableOverlap,
    specAlgorithm: d.algo,
    specDraftModelPath: (engineArgs.speculative_draft_model_path as string | null) ?? null,
    specNumSteps: d.steps,
    specTopk: d.topk,
    specNumDraftTokens: d.draftTokens,
    specV2: d.specV2 && d.algo !== null,
    decodeLogInterval: Number(engineArgs.decode_log_interval),
    randomSeed: Number(engineArgs.random_seed),
    apiKey: (v.api_key as string | undefined) ?? null,
    engineArgs,
    givenArgs: redactedGivenArgs(given, values),
    warnings: d.warnings,
    startError: d.startError,
  };
}
