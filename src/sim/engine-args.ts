// Engine flags in the engines' own spelling, parsed the way their argparse does (unknown flags and bad
// values fail with argparse's wording), and the engines' start-up derivations (speculative decoding
// forcing overlap off, spec v2, top-k 1 draft-token adjustment, max running requests reset to 48).

import { BenchgateError } from '../core/errors.js';
import { isSecretKey, REDACTED } from '../core/redact.js';
import type { SimFlavor } from './api.js';
import type { SimProfile } from './profiles.js';

type ArgType = 'int' | 'float' | 'str' | 'bool' | 'json';

interface FlagSpec {
  flags: string[];
  dest: string;
  type: ArgType;
  choices?: string[];
}

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
    choices: ['EAGLE', 'EAGLE3', 'NEXTN', 'STANDALONE', 'NGRAM'],
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
  { flags: ['--async-scheduling'], dest: 'async_scheduling', type: 'bool' },
  { flags: ['--enable-prefix-caching'], dest: 'enable_prefix_caching', type: 'bool' },
  { flags: ['--enforce-eager'], dest: 'enforce_eager', type: 'bool' },
  { flags: ['--trust-remote-code'], dest: 'trust_remote_code', type: 'bool' },
  { flags: ['--seed'], dest: 'seed', type: 'int' },
  { flags: ['--api-key'], dest: 'api_key', type: 'str' },
  { flags: ['--disable-log-requests'], dest: 'disable_log_requests', type: 'bool' },
  { flags: ['--disable-log-stats'], dest: 'disable_log_stats', type: 'bool' },
];

function argparseError(prog: string, message: string): BenchgateError {
  return new BenchgateError('BG_E_USAGE', `${prog}: error: ${message}`);
}

function convert(prog: string, spec: FlagSpec, raw: string): unknown {
  const name = spec.flags.join('/');
  if (spec.type === 'int') {
    if (!/^[-+]?\d+$/.test(raw)) throw argparseError(prog, `argument ${name}: invalid int value: '${raw}'`);
    return Number(raw);
  }
  if (spec.type === 'float') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n))
      throw argparseError(prog, `argument ${name}: invalid float value: '${raw}'`);
    return n;
  }
  if (spec.type === 'json') {
    try {
      return JSON.parse(raw);
    } catch {
      throw argparseError(prog, `argument ${name}: invalid loads value: '${raw}'`);
    }
  }
  if (spec.choices && !spec.choices.includes(raw)) {
    throw argparseError(
      prog,
      `argument ${name}: invalid choice: '${raw}' (choose from ${spec.choices.map((c) => `'${c}'`).join(', ')})`,
    );
  }
  return raw;
}

/** Parses argv like argparse: `--flag value`, `--flag=value`, store_true flags; collects unknowns. */
export function parseEngineArgv(
  prog: string,
  specs: FlagSpec[],
  argv: string[],
  allowPositionalModel: string | null,
): { values: Record<string, unknown>; given: string[] } {
  const byFlag = new Map<string, FlagSpec>();
  for (const s of specs) for (const f of s.flags) byFlag.set(f, s);
  const values: Record<string, unknown> = {};
  const given: string[] = [];
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-')) {
      if (allowPositionalModel && values[allowPositionalModel] === undefined && i === 0) {
        values[allowPositionalModel] = a;
        given.push(allowPositionalModel);
      } else unknown.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const spec = byFlag.get(flag);
    if (!spec) {
      unknown.push(a);
      if (eq < 0 && i + 1 < argv.length && !argv[i + 1].startsWith('-')) unknown.push(argv[++i]);
      continue;
    }
    if (spec.type === 'bool') {
      if (eq > 0)
        throw argparseError(
          prog,
          `argument ${spec.flags.join('/')}: ignored explicit argument '${a.slice(eq + 1)}'`,
        );
      values[spec.dest] = true;
    } else {
      let raw: string | undefined;
      if (eq > 0) raw = a.slice(eq + 1);
      else if (i + 1 < argv.length && !(argv[i + 1].startsWith('--') && argv[i + 1].length > 2))
        raw = argv[++i];
      if (raw === undefined)
        throw argparseError(prog, `argument ${spec.flags.join('/')}: expected one argument`);
      values[spec.dest] = convert(prog, spec, raw);
    }
    given.push(spec.dest);
  }
  if (unknown.length > 0) throw argparseError(prog, `unrecognized arguments: ${unknown.join(' ')}`);
  return { values, given };
}

export interface StartupLogEntry {
  level: 'INFO' | 'WARNING';
  /** Python source the engine logs from, e.g. `server_args.py:2304`. */
  where: string;
  text: string;
}

/** The configuration the simulated engine serves, after the engine's own derivations. */
export interface ServedConfig {
  flavor: SimFlavor;
  modelPath: string;
  servedModelName: string;
  tpSize: number;
  dpSize: number;
  dtype: string;
  quantization: string | null;
  contextLength: number;
  maxRunningRequests: number;
  maxTotalNumTokens: number;
  chunkedPrefillSize: number;
  disableOverlapSchedule: boolean;
  specAlgorithm: string | null;
  specDraftModelPath: string | null;
  specNumSteps: number | null;
  specTopk: number | null;
  specNumDraftTokens: number | null;
  specV2: boolean;
  decodeLogInterval: number;
  randomSeed: number;
  apiKey: string | null;
  /** Engine-native argument values in the engine's names (ServerArgs fields / vllm args). */
  engineArgs: Record<string, unknown>;
  /** Engine-native names given on the command line (vllm `non-default args`). */
  givenArgs: Record<string, unknown>;
  warnings: StartupLogEntry[];
  /** Set when the engine would refuse to start (e.g. spec v2 with top-k > 1). */
  startError: { type: string; message: string } | null;
}

/** The flags given on the command line with their values, secret ones (`--api-key`) redacted. */
function redactedGivenArgs(given: string[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of given) out[k] = isSecretKey(k) ? REDACTED : values[k];
  return out;
}

export function envFlagTrue(v: string | undefined): boolean {
  return v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());
}

function sglangConfig(
  profile: SimProfile,
  argv: string[],
  env: Record<string, string | undefined>,
): ServedConfig {
  const { values, given } = parseEngineArgv('launch_server.py', SGLANG_FLAGS, argv, null);
  const warnings: StartupLogEntry[] = [];
  let startError: ServedConfig['startError'] = null;
  const v = values as Record<string, never>;
  const modelPath: string = v.model_path ?? profile.modelPath;
  let algo: string | null = v.speculative_algorithm ?? null;
  if (algo === 'NEXTN') algo = 'EAGLE';
  let steps: number | null = v.speculative_num_steps ?? null;
  let topk: number | null = v.speculative_eagle_topk ?? null;
  let draftTokens: number | null = v.speculative_num_draft_tokens ?? null;
  let mrr: number | null = v.max_running_requests ?? null;
  let disableOverlap: boolean = v.disable_overlap_schedule ?? false;
  const specV2 = envFlagTrue(env.SGLANG_ENABLE_SPEC_V2);
  if (algo === 'EAGLE' || algo === 'EAGLE3' || algo === 'STANDALONE') {
    if (mrr === null) {
      mrr = 48;
      warnings.push({
        level: 'WARNING',
        where: 'server_args.py:2271',
        text: 'Max running requests is reset to 48 for speculative decoding. You can override this by explicitly setting --max-running-requests.',
      });
    }
    if (specV2) {
      disableOverlap = false;
      warnings.push({
        level: 'WARNING',
        where: 'server_args.py:2292',
        text: 'Spec v2 is enabled for eagle/eagle3 speculative decoding and overlap schedule is turned on.',
      });
      if (topk !== null && topk > 1) {
        startError = {
          type: 'ValueError',
          message: 'Spec v2 currently only supports topk = 1 for speculative decoding.',
        };
      }
    } else {
      disableOverlap = true;
      warnings.push({
        level: 'WARNING',
        where: 'server_args.py:2304',
        text: 'Overlap scheduler is disabled when spec v2 is off or using unsupported speculative algorithm. You can set env SGLANG_ENABLE_SPEC_V2=True to enable the experimental overlap scheduler. ',
      });
    }
    if (steps === null && topk === null && draftTokens === null) {
      steps = 3;
      topk = 1;
      draftTokens = 4;
    }
    steps ??= 3;
    topk ??= 1;
    draftTokens ??= steps + 1;
    if (topk === 1 && draftTokens !== steps + 1) {
      warnings.push({
        level: 'WARNING',
        where: 'server_args.py:2350',
        text: 'speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1',
      });
      draftTokens = steps + 1;
    }
  } else if (algo !== null) {
    startError = {
      type: 'ValueError',
      message: `The simulator models EAGLE, EAGLE3, NEXTN and STANDALONE speculative decoding; found ${algo}.`,
    };
  }
  const maxRunning = mrr ?? profile.defaultMaxRunningRequests;
  const contextLength: number = v.context_length ?? profile.contextLength;
  const maxTotal: number = v.max_total_tokens ?? profile.kvCapacityTokens;
  const engineArgs: Record<string, unknown> = {
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
    disable_overlap_schedule: disableOverlap,
    enable_mixed_chunk: false,
    speculative_algorithm: algo,
    speculative_draft_model_path: v.speculative_draft_model_path ?? null,
    speculative_num_steps: steps,
    speculative_eagle_topk: topk,
    speculative_num_draft_tokens: draftTokens,
  };
  const givenArgs = redactedGivenArgs(given, values);
  return {
    flavor: 'sglang',
    modelPath,
    servedModelName: String(engineArgs.served_model_name),
    tpSize: Number(engineArgs.tp_size),
    dpSize: Number(engineArgs.dp_size),
    dtype: String(engineArgs.dtype),
    quantization: (engineArgs.quantization as string | null) ?? null,
    contextLength,
    maxRunningRequests: maxRunning,
    maxTotalNumTokens: maxTotal,
    chunkedPrefillSize: Number(engineArgs.chunked_prefill_size),
    disableOverlapSchedule: disableOverlap,
    specAlgorithm: algo,
    specDraftModelPath: (engineArgs.speculative_draft_model_path as string | null) ?? null,
    specNumSteps: steps,
    specTopk: topk,
    specNumDraftTokens: draftTokens,
    specV2: specV2 && algo !== null,
    decodeLogInterval: Number(engineArgs.decode_log_interval),
    randomSeed: Number(engineArgs.random_seed),
    apiKey: (v.api_key as string | undefined) ?? null,
    engineArgs,
    givenArgs,
    warnings,
    startError,
  };
}

function vllmConfig(profile: SimProfile, argv: string[]): ServedConfig {
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
    async_scheduling: v.async_scheduling ?? false,
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

function openaiConfig(profile: SimProfile, argv: string[]): ServedConfig {
  if (argv.length > 0) {
    throw new BenchgateError(
      'BG_E_USAGE',
      `The openai flavour takes no engine flags; found "${argv.join(' ')}".`,
    );
  }
  const c = vllmConfig(profile, []);
  return { ...c, flavor: 'openai', disableOverlapSchedule: false };
}

/** Parses engine flags for a flavour and applies that engine's derivations. */
export function deriveServedConfig(
  flavor: SimFlavor,
  profile: SimProfile,
  argv: string[],
  env: Record<string, string | undefined>,
): ServedConfig {
  if (flavor === 'sglang') return sglangConfig(profile, argv, env);
  if (flavor === 'vllm') return vllmConfig(profile, argv);
  return openaiConfig(profile, argv);
}
