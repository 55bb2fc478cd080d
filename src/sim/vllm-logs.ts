// vLLM's log lines, as its current sources write them (see README.md for the commit): the start-up
// (logo with version and model, non-default args, async scheduling, the V1 engine config), the model
// load, the server start, and the periodic engine stats and SpecDecoding lines.

import { pyRepr, vllmTime } from './engine-logs.js';
import type { ServedConfig } from './served-config.js';

/** `(Proc pid=N) INFO MM-DD HH:MM:SS [file.py:line] text` (vllm/logger.py _FORMAT + process prefix). */
function vllmLine(now: Date, where: string, text: string, prefix: string): string {
  return `${prefix}INFO ${vllmTime(now)} [${where}] ${text}`;
}

function apiServer(pid: number): string {
  return `(APIServer pid=${pid}) `;
}

function engineCore(pid: number): string {
  return `(EngineCore_DP0 pid=${pid + 1}) `;
}

/**
 * The start-up logo (entrypoints/utils.py log_version_and_model, monochrome as in a log file): one
 * message over six lines, each carrying the log prefix (NewLineFormatter).
 */
function logoLines(now: Date, pid: number, version: string, model: string): string[] {
  const body = [
    '',
    '       █     █     █▄   ▄█',
    ` ▄▄ ▄█ █     █     █ ▀▄▀ █  version ${version}`,
    `  █▄█▀ █     █     █     █  model   ${model}`,
    '   ▀▀  ▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀',
    '',
  ];
  return body.map((l) => vllmLine(now, 'utils.py:344', l, apiServer(pid)).trimEnd());
}

function specConfigRepr(c: ServedConfig): string {
  const sc = c.engineArgs.speculative_config as Record<string, unknown> | null;
  if (!sc) return 'None';
  return `SpeculativeConfig(method='${String(sc.method ?? 'eagle')}', model='${String(sc.model ?? '')}', num_spec_tokens=${c.specNumSteps})`;
}

/** str(VllmConfig) (config/vllm.py __str__): the engine config line and dev-mode /server_info. */
export function vllmConfigText(c: ServedConfig): string {
  return [
    `model='${c.modelPath}'`,
    `speculative_config=${specConfigRepr(c)}`,
    `tokenizer='${c.modelPath}'`,
    'skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16',
    `max_seq_len=${c.contextLength}`,
    'download_dir=None, load_format=auto',
    `tensor_parallel_size=${c.tpSize}, pipeline_parallel_size=1, data_parallel_size=${c.dpSize}`,
    'decode_context_parallel_size=1, disable_custom_all_reduce=False',
    `quantization=${c.quantization ?? 'None'}, quantization_config=None`,
    'enforce_eager=False, enable_return_routed_experts=False, kv_cache_dtype=auto, device_config=cuda',
    `seed=${c.randomSeed}, served_model_name=${c.servedModelName}`,
    'enable_prefix_caching=True, enable_chunked_prefill=True, pooler_config=None',
  ].join(', ');
}

export function vllmStartLines(c: ServedConfig, now: Date, version: string, pid: number): string[] {
  const async = c.disableOverlapSchedule ? 'disabled' : 'enabled';
  return [
    ...logoLines(now, pid, version, c.modelPath),
    vllmLine(now, 'utils.py:278', `non-default args: ${pyRepr(c.givenArgs)}`, apiServer(pid)),
    vllmLine(now, 'vllm.py:993', `Asynchronous scheduling is ${async}.`, apiServer(pid)),
    vllmLine(
      now,
      'core.py:112',
      `Initializing a V1 LLM engine (v${version}) with config: ${vllmConfigText(c)}`,
      engineCore(pid),
    ),
  ];
}

/** Thousands separators, as Python's `f"{n:,}"`. */
function grouped(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The line vLLM prints as the weights begin to load. */
export function vllmLoadBeginLines(c: ServedConfig, now: Date, pid: number): string[] {
  return [
    vllmLine(now, 'gpu_model_runner.py:5099', `Starting to load model ${c.modelPath}...`, engineCore(pid)),
  ];
}

/** The lines vLLM prints once the weights are in (after vllmLoadBeginLines). */
export function vllmLoadLines(c: ServedConfig, now: Date, pid: number): string[] {
  const p = engineCore(pid);
  return [
    vllmLine(now, 'default_loader.py:397', 'Loading weights took 31.42 seconds', p),
    vllmLine(now, 'gpu_model_runner.py:5194', 'Model loading took 32.24 GiB memory and 33.081234 seconds', p),
    vllmLine(now, 'kv_cache_utils.py:1733', `GPU KV cache size: ${grouped(c.maxTotalNumTokens)} tokens`, p),
    vllmLine(
      now,
      'kv_cache_utils.py:1734',
      `Maximum concurrency for ${grouped(c.contextLength)} tokens per request: ${(c.maxTotalNumTokens / c.contextLength).toFixed(2)}x`,
      p,
    ),
  ];
}

export function vllmReadyLines(now: Date, host: string, port: number, pid: number): string[] {
  const p = apiServer(pid);
  return [
    vllmLine(now, 'api_server.py:592', "Supported tasks: ['generate']", p),
    vllmLine(now, 'api_server.py:596', `Starting vLLM server on http://${host}:${port}`, p),
    `${p}INFO:     Started server process [${pid}]`,
    `${p}INFO:     Waiting for application startup.`,
    `${p}INFO:     Application startup complete.`,
  ];
}

/** vllm's periodic engine stats line (v1/metrics/loggers.py LoggingStatLogger.log) over one window. */
export function vllmEngineStatsLine(
  now: Date,
  pid: number,
  f: { promptTokS: number; genTokS: number; running: number; waiting: number; kvUsagePct: number },
): string {
  return vllmLine(
    now,
    'loggers.py:271',
    `Engine 000: Avg prompt throughput: ${f.promptTokS.toFixed(1)} tokens/s, Avg generation throughput: ${f.genTokS.toFixed(1)} tokens/s, Running: ${f.running} reqs, Waiting: ${f.waiting} reqs, GPU KV cache usage: ${f.kvUsagePct.toFixed(1)}%, Prefix cache hit rate: 0.0%`,
    apiServer(pid),
  );
}

/** vllm's SpecDecoding metrics line over one logging window (`drafts` > 0). */
export function vllmSpecDecodingLine(
  now: Date,
  pid: number,
  f: { drafts: number; drafted: number; accepted: number; spanS: number; acceptedPerPos: number[] },
): string {
  const perPos = f.acceptedPerPos.map((a) => (a / f.drafts).toFixed(3));
  return vllmLine(
    now,
    'metrics.py:101',
    `SpecDecoding metrics: Mean acceptance length: ${(1 + f.accepted / f.drafts).toFixed(2)}, Accepted throughput: ${(f.accepted / f.spanS).toFixed(2)} tokens/s, Drafted throughput: ${(f.drafted / f.spanS).toFixed(2)} tokens/s, Accepted: ${f.accepted} tokens, Drafted: ${f.drafted} tokens, Per-position acceptance rate: ${perPos.join(', ')}, Avg Draft acceptance rate: ${((100 * f.accepted) / Math.max(1, f.drafted)).toFixed(1)}%`,
    apiServer(pid),
  );
}
