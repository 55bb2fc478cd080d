// Engine-style log lines (SGLang and vLLM start-up, batch statistics, the crash traceback) and the
// sink that writes them to the onLog callback and the --log-file. Texts follow the engines' own.

import { appendFileSync, writeFileSync } from 'node:fs';
import type { ServedConfig } from './served-config.js';

/** Python repr of a JSON-like value (None, True/False, 'str', dicts, lists). */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  }
  return String(v);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `YYYY-MM-DD HH:MM:SS` (sglang) in UTC. */
export function sglangTime(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `MM-DD HH:MM:SS` (vllm) in UTC. */
export function vllmTime(d: Date): string {
  return `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export class LogSink {
  private readonly file: string | undefined;
  private readonly onLog: ((line: string) => void) | undefined;
  /** Every line written since start (tests and the stale-log fault read it). */
  readonly lines: string[] = [];

  constructor(file: string | undefined, onLog: ((line: string) => void) | undefined, truncate: boolean) {
    this.file = file;
    this.onLog = onLog;
    if (file && truncate) writeFileSync(file, '');
  }

  write(line: string): void {
    this.lines.push(line);
    if (this.lines.length > 10000) this.lines.splice(0, 5000);
    if (this.file) appendFileSync(this.file, `${line}\n`);
    this.onLog?.(line);
  }
}

/** SGLang's start-up lines up to the scheduler being ready (before weights load). */
export function sglangStartLines(c: ServedConfig, now: Date): string[] {
  const t = sglangTime(now);
  const out: string[] = [];
  const fields = Object.entries(c.engineArgs)
    .map(([k, v]) => `${k}=${pyRepr(v)}`)
    .join(', ');
  out.push(`[${t}] server_args=ServerArgs(${fields})`);
  for (const w of c.warnings) out.push(`[${t}] ${w.level} ${w.where}: ${w.text}`);
  return out;
}

export function sglangLoadLines(c: ServedConfig, now: Date, architecture: string): string[] {
  const t = sglangTime(now);
  const tps = Array.from({ length: Math.max(1, c.tpSize) }, (_, i) => i);
  const out: string[] = [];
  for (const r of tps) out.push(`[${t} TP${r}] Init torch distributed begin.`);
  for (const r of tps) out.push(`[${t} TP${r}] Load weight begin. avail mem=44.31 GB`);
  for (const r of tps) {
    out.push(
      `[${t} TP${r}] Load weight end. type=${architecture}, dtype=torch.bfloat16, avail mem=12.07 GB, mem usage=32.24 GB.`,
    );
  }
  if (c.specAlgorithm)
    out.push(
      `[${t} TP0] Load weight end. type=LlamaForCausalLMEagle3, dtype=torch.bfloat16, avail mem=11.05 GB, mem usage=1.02 GB.`,
    );
  out.push(
    `[${t} TP0] KV Cache is allocated. #tokens: ${c.maxTotalNumTokens}, K size: 4.71 GB, V size: 4.71 GB`,
  );
  out.push(
    `[${t} TP0] max_total_num_tokens=${c.maxTotalNumTokens}, chunked_prefill_size=${c.chunkedPrefillSize}, max_prefill_tokens=${c.engineArgs.max_prefill_tokens}, max_running_requests=${c.maxRunningRequests}, context_len=${c.contextLength}, available_gpu_mem=1.89 GB`,
  );
  return out;
}

export function sglangReadyLines(now: Date, host: string, port: number, pid: number): string[] {
  const t = sglangTime(now);
  return [
    `[${t}] INFO:     Started server process [${pid}]`,
    `[${t}] INFO:     Waiting for application startup.`,
    `[${t}] INFO:     Application startup complete.`,
    `[${t}] INFO:     Uvicorn running on http://${host}:${port} (Press CTRL+C to quit)`,
    `[${t}] INFO:     127.0.0.1:40000 - "GET /get_model_info HTTP/1.1" 200 OK`,
    `[${t} TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, `,
    `[${t}] INFO:     127.0.0.1:40002 - "POST /generate HTTP/1.1" 200 OK`,
    `[${t}] The server is fired up and ready to roll!`,
  ];
}

export function sglangPrefillLine(now: Date, f: Record<string, number>): string {
  return `[${sglangTime(now)} TP0] Prefill batch. #new-seq: ${f.newSeq}, #new-token: ${f.newToken}, #cached-token: 0, token usage: ${f.tokenUsage.toFixed(2)}, #running-req: ${f.running}, #queue-req: ${f.queued}, `;
}

export function sglangDecodeLine(now: Date, f: Record<string, number>, spec: boolean): string {
  const accept = spec ? `accept len: ${f.acceptLen.toFixed(2)}, ` : '';
  return `[${sglangTime(now)} TP0] Decode batch. #running-req: ${f.running}, #token: ${f.tokens}, token usage: ${f.tokenUsage.toFixed(2)}, ${accept}cuda graph: True, gen throughput (token/s): ${f.genThroughput.toFixed(2)}, #queue-req: ${f.queued}, `;
}

/** The crash-on-first-decode traceback: a half-initialised draft worker. */
export function sglangCrashLines(now: Date): string[] {
  const t = sglangTime(now);
  const site = '/usr/local/lib/python3.12/dist-packages';
  return [
    `[${t} TP0] Scheduler hit an exception: Traceback (most recent call last):`,
    `  File "${site}/sglang/srt/managers/scheduler.py", line 2634, in run_scheduler_process`,
    '    scheduler.event_loop_overlap()',
    `  File "${site}/torch/utils/_contextlib.py", line 116, in decorate_context`,
    '    return func(*args, **kwargs)',
    `  File "${site}/sglang/srt/managers/scheduler.py", line 912, in event_loop_overlap`,
    '    batch_result = self.run_batch(batch)',
    `  File "${site}/sglang/srt/managers/scheduler.py", line 1789, in run_batch`,
    '    batch_output = self.draft_worker.forward_batch_generation(model_worker_batch)',
    "AttributeError: 'NoneType' object has no attribute 'forward_batch_generation'",
    '',
    `[${t}] Received sigquit from a child process. It usually means the child failed.`,
  ];
}

export function sglangStartErrorLines(err: { type: string; message: string }): string[] {
  const site = '/usr/local/lib/python3.12/dist-packages';
  return [
    'Traceback (most recent call last):',
    '  File "<frozen runpy>", line 198, in _run_module_as_main',
    `  File "${site}/sglang/launch_server.py", line 24, in <module>`,
    '    server_args = prepare_server_args(sys.argv[1:])',
    `  File "${site}/sglang/srt/server_args.py", line 4102, in prepare_server_args`,
    '    return ServerArgs.from_cli_args(raw_args)',
    `  File "${site}/sglang/srt/server_args.py", line 707, in __post_init__`,
    '    self._handle_speculative_decoding()',
    `  File "${site}/sglang/srt/server_args.py", line 2298, in _handle_speculative_decoding`,
    `    raise ${err.type}(`,
    `${err.type}: ${err.message}`,
  ];
}

function vllmLine(now: Date, where: string, text: string, prefix: string): string {
  return `${prefix}INFO ${vllmTime(now)} [${where}] ${text}`;
}

export function vllmStartLines(c: ServedConfig, now: Date, version: string, pid: number): string[] {
  const sc = c.engineArgs.speculative_config as Record<string, unknown> | null;
  const specRepr = sc
    ? `SpeculativeConfig(method='${String(sc.method ?? 'eagle')}', model='${String(sc.model ?? '')}', num_spec_tokens=${c.specNumSteps})`
    : 'None';
  return [
    vllmLine(now, 'api_server.py:1896', `vLLM API server version ${version}`, `(APIServer pid=${pid}) `),
    vllmLine(now, 'utils.py:328', `non-default args: ${pyRepr(c.givenArgs)}`, `(APIServer pid=${pid}) `),
    vllmLine(
      now,
      'core.py:77',
      `Initializing a V1 LLM engine (v${version}) with config: model='${c.modelPath}', speculative_config=${specRepr}, tokenizer='${c.modelPath}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=${c.contextLength}, download_dir=None, load_format=auto, tensor_parallel_size=${c.tpSize}, pipeline_parallel_size=1, data_parallel_size=${c.dpSize}, disable_custom_all_reduce=False, quantization=${c.quantization ?? 'None'}, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=${c.randomSeed}, served_model_name=${c.servedModelName}, enable_prefix_caching=True, chunked_prefill_enabled=True, async_scheduling=${c.disableOverlapSchedule ? 'False' : 'True'}`,
      `(EngineCore_DP0 pid=${pid + 1}) `,
    ),
  ];
}

export function vllmLoadLines(c: ServedConfig, now: Date, pid: number): string[] {
  const p = `(EngineCore_DP0 pid=${pid + 1}) `;
  return [
    vllmLine(now, 'gpu_model_runner.py:2602', `Starting to load model ${c.modelPath}...`, p),
    vllmLine(now, 'default_loader.py:267', 'Loading weights took 31.42 seconds', p),
    vllmLine(now, 'kv_cache_utils.py:1087', `GPU KV cache size: ${c.maxTotalNumTokens} tokens`, p),
    vllmLine(
      now,
      'kv_cache_utils.py:1091',
      `Maximum concurrency for ${c.contextLength} tokens per request: ${(c.maxTotalNumTokens / c.contextLength).toFixed(2)}x`,
      p,
    ),
  ];
}

export function vllmReadyLines(now: Date, host: string, port: number, pid: number): string[] {
  const p = `(APIServer pid=${pid}) `;
  return [
    vllmLine(now, 'api_server.py:1971', `Starting vLLM API server 0 on http://${host}:${port}`, p),
    `${p}INFO:     Started server process [${pid}]`,
    `${p}INFO:     Waiting for application startup.`,
    `${p}INFO:     Application startup complete.`,
  ];
}

/** vllm's periodic engine stats line (loggers.py) over one logging window. */
export function vllmEngineStatsLine(
  now: Date,
  pid: number,
  f: { promptTokS: number; genTokS: number; running: number; waiting: number; kvUsagePct: number },
): string {
  return vllmLine(
    now,
    'loggers.py:123',
    `Engine 000: Avg prompt throughput: ${f.promptTokS.toFixed(1)} tokens/s, Avg generation throughput: ${f.genTokS.toFixed(1)} tokens/s, Running: ${f.running} reqs, Waiting: ${f.waiting} reqs, GPU KV cache usage: ${f.kvUsagePct.toFixed(1)}%, Prefix cache hit rate: 0.0%`,
    `(APIServer pid=${pid}) `,
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
    'metrics.py:96',
    `SpecDecoding metrics: Mean acceptance length: ${(1 + f.accepted / f.drafts).toFixed(2)}, Accepted throughput: ${(f.accepted / f.spanS).toFixed(2)} tokens/s, Drafted throughput: ${(f.drafted / f.spanS).toFixed(2)} tokens/s, Accepted: ${f.accepted} tokens, Drafted: ${f.drafted} tokens, Per-position acceptance rate: ${perPos.join(', ')}, Avg Draft acceptance rate: ${((100 * f.accepted) / Math.max(1, f.drafted)).toFixed(1)}%`,
    `(APIServer pid=${pid}) `,
  );
}
