// Engine-style log lines of SGLang (start-up, batch statistics, the crash traceback), the helpers every
// engine's lines share, and the sink that writes them to the onLog callback and the --log-file. Texts
// follow the engines' own (vLLM's are in vllm-logs.ts).

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
  // server_args.py logs through `[%(asctime)s] %(message)s` (no level, no file)
  for (const w of c.warnings) out.push(`[${t}] ${w.text}`);
  return out;
}

const tpRanks = (c: ServedConfig) => Array.from({ length: Math.max(1, c.tpSize) }, (_, i) => i);

/** The lines SGLang prints as the weights begin to load, on every tensor-parallel rank. */
export function sglangLoadBeginLines(c: ServedConfig, now: Date): string[] {
  const t = sglangTime(now);
  const out: string[] = [];
  for (const r of tpRanks(c)) out.push(`[${t} TP${r}] Init torch distributed begin.`);
  for (const r of tpRanks(c)) out.push(`[${t} TP${r}] Load weight begin. avail mem=44.31 GB`);
  return out;
}

/** The lines SGLang prints once the weights are in (after sglangLoadBeginLines). */
export function sglangLoadLines(c: ServedConfig, now: Date, architecture: string): string[] {
  const t = sglangTime(now);
  const tps = tpRanks(c);
  const out: string[] = [];
  for (const r of tps) {
    out.push(
      `[${t} TP${r}] Load weight end. elapsed=31.42 s, type=${architecture}, avail mem=12.07 GB, mem usage=32.24 GB.`,
    );
  }
  if (c.specAlgorithm)
    out.push(
      `[${t} TP0] Load weight end. elapsed=1.12 s, type=LlamaForCausalLMEagle3, avail mem=11.05 GB, mem usage=1.02 GB.`,
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
    `[${t} TP0] Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00`,
    `[${t}] INFO:     127.0.0.1:40002 - "POST /generate HTTP/1.1" 200 OK`,
    `[${t}] The server is fired up and ready to roll!`,
  ];
}

/** `Prefill batch, ...` (report_prefill_stats); the simulator reports no input throughput (0.00). */
export function sglangPrefillLine(now: Date, f: Record<string, number>): string {
  return `[${sglangTime(now)} TP0] Prefill batch, #new-seq: ${f.newSeq}, #new-token: ${f.newToken}, #cached-token: 0, token usage: ${f.tokenUsage.toFixed(2)}, #running-req: ${f.running}, #queue-req: ${f.queued}, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00`;
}

/**
 * `Decode batch, ...` (scheduler_metrics_mixin.py report_decode_stats). Under speculative decoding
 * `accept len` is tokens per verify step (bonus included) and `accept rate` that over the draft tokens.
 */
export function sglangDecodeLine(
  now: Date,
  f: Record<string, number>,
  numDraftTokens: number | null,
): string {
  const accept =
    numDraftTokens === null
      ? ''
      : `accept len: ${f.acceptLen.toFixed(2)}, accept rate: ${(f.acceptLen / numDraftTokens).toFixed(2)}, `;
  return `[${sglangTime(now)} TP0] Decode batch, #running-req: ${f.running}, #token: ${f.tokens}, token usage: ${f.tokenUsage.toFixed(2)}, ${accept}cuda graph: True, gen throughput (token/s): ${f.genThroughput.toFixed(2)}, #queue-req: ${f.queued}`;
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
