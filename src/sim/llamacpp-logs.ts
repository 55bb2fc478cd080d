// The llamacpp flavour's log lines in llama.cpp's 2026 format (`0.00.073.302 I srv  load_model: ...`):
// start, ready, and the per-request timing and draft-acceptance lines, laid out as the real server does.

import { draftTokensOf, LLAMACPP_BUILD } from './llamacpp-args.js';
import type { SimRequest } from './request.js';
import type { ServedConfig } from './served-config.js';

/** `M.SS.mmm.uuu` elapsed since the process started, as common/log.cpp prints it. */
export function llamacppElapsed(elapsedMs: number): string {
  const us = Math.max(0, Math.round(elapsedMs * 1000));
  const p = (n: number, w: number) => String(n).padStart(w, '0');
  return `${Math.floor(us / 60_000_000)}.${p(Math.floor(us / 1_000_000) % 60, 2)}.${p(Math.floor(us / 1000) % 1000, 3)}.${p(us % 1000, 3)}`;
}

/** One log line: elapsed time, level letter, module tag (4 wide) and function (12 wide, right-aligned). */
export function llamacppLine(
  elapsedMs: number,
  level: 'I' | 'W' | 'E',
  tag: string,
  fn: string,
  text: string,
): string {
  const where = tag === '' ? `${fn}:` : `${tag.padEnd(4)} ${fn.slice(0, 12).padStart(12)}:`;
  return `${llamacppElapsed(elapsedMs)} ${level} ${where} ${text}`;
}

/** The lines a start prints before the model is loaded (verbosity 3; the build line only at -lv 4). */
export function llamacppStartLines(c: ServedConfig, elapsedMs: number): string[] {
  const verbosity = Number(c.engineArgs.verbosity ?? 3);
  const out: string[] = [];
  const info = (fn: string, text: string) => out.push(llamacppLine(elapsedMs, 'I', 'cmn', fn, text));
  if (verbosity >= 4)
    info(
      'common_param',
      `common_params_print_info: build ${LLAMACPP_BUILD.number} (${LLAMACPP_BUILD.commit}) with GNU 12.2.0 for Linux x86_64`,
    );
  info(
    'common_param',
    `common_params_print_info: verbosity = ${verbosity} (adjust with the \`-lv N\` CLI arg)`,
  );
  if (!c.apiKey) {
    const warn = (t: string) => out.push(llamacppLine(elapsedMs, 'W', 'srv', 'llama_server', t));
    warn('-----------------');
    warn("CORS is set to allow all origins ('*') and no API key is set");
    warn('this can be a security risk (cross-origin attacks)');
    warn('-----------------');
  }
  out.push(llamacppLine(elapsedMs, 'I', 'srv', 'load_model', `loading model '${c.modelPath}'`));
  return out;
}

/** Lines printed once the weights are loaded, up to listening. */
export function llamacppReadyLines(c: ServedConfig, elapsedMs: number, host: string, port: number): string[] {
  const out: string[] = [];
  const threads = Number(c.engineArgs.threads ?? 2);
  out.push(llamacppLine(elapsedMs, 'I', 'cmn', 'init', `llama threadpool init, n_threads = ${threads}`));
  if (c.specDraftModelPath !== null)
    out.push(
      llamacppLine(
        elapsedMs,
        'I',
        '',
        'common_speculative_init_result',
        `loading draft model '${c.specDraftModelPath}'`,
      ),
    );
  out.push(
    llamacppLine(
      elapsedMs,
      'I',
      'srv',
      'load_model',
      `initializing, n_slots = ${c.maxRunningRequests}, n_ctx_slot = ${c.contextLength}, kv_unified = 'false'`,
    ),
  );
  if (c.specDraftModelPath !== null && c.specAlgorithm === null && Number(c.engineArgs.verbosity) >= 4)
    out.push(
      llamacppLine(
        elapsedMs,
        'I',
        'spec',
        'common_specu',
        'no implementations specified for speculative decoding',
      ),
    );
  out.push(llamacppLine(elapsedMs, 'I', 'srv', 'llama_server', 'model loaded'));
  out.push(llamacppLine(elapsedMs, 'I', 'srv', 'llama_server', `listening on http://${host}:${port}`));
  return out;
}

function perToken(ms: number, n: number): string {
  return n > 0 ? (ms / n).toFixed(2).padStart(8) : '     inf';
}

function perSecond(ms: number, n: number): string {
  return (ms > 0 ? (1000 * n) / ms : 0).toFixed(2).padStart(8);
}

/** The per-request timing lines of a finished request (and its draft acceptance when it drafted). */
export function llamacppRequestLines(
  elapsedMs: number,
  slot: number,
  task: number,
  t: {
    promptN: number;
    promptMs: number;
    predictedN: number;
    predictedMs: number;
    draftN: number;
    draftAccepted: number;
    verifySteps: number;
  },
): string[] {
  const head = `id ${String(slot).padStart(2)} | task ${task} |`;
  const line = (fn: string, text: string) => llamacppLine(elapsedMs, 'I', 'slot', fn, `${head} ${text}`);
  const out = [
    line(
      'print_timing',
      `prompt eval time = ${t.promptMs.toFixed(2).padStart(10)} ms / ${String(t.promptN).padStart(5)} tokens (${perToken(t.promptMs, t.promptN)} ms per token, ${perSecond(t.promptMs, t.promptN)} tokens per second)`,
    ),
    line(
      'print_timing',
      `       eval time = ${t.predictedMs.toFixed(2).padStart(10)} ms / ${String(t.predictedN).padStart(5)} tokens (${perToken(t.predictedMs, t.predictedN)} ms per token, ${perSecond(t.predictedMs, t.predictedN)} tokens per second)`,
    ),
    line(
      'print_timing',
      `      total time = ${(t.promptMs + t.predictedMs).toFixed(2).padStart(10)} ms / ${String(t.promptN + t.predictedN).padStart(5)} tokens`,
    ),
  ];
  if (t.draftN > 0) {
    const meanLen = t.verifySteps > 0 ? 1 + t.draftAccepted / t.verifySteps : 1;
    out.push(
      line(
        'print_timing',
        `draft acceptance = ${(t.draftAccepted / t.draftN).toFixed(5)} (${String(t.draftAccepted).padStart(5)} accepted / ${String(t.draftN).padStart(5)} generated), mean len = ${meanLen.toFixed(2).padStart(5)}`,
      ),
    );
  }
  out.push(line('release', `stop processing: n_tokens = ${t.promptN + t.predictedN - 1}, truncated = 0`));
  return out;
}

/** Per-request log lines for a finished request, from the simulator's truth for it. */
export function llamacppFinishedLines(c: ServedConfig, r: SimRequest, elapsedMs: number): string[] {
  const first = r.chunkWriteMs[0] ?? r.arrivalMs;
  const last = r.chunkWriteMs[r.chunkWriteMs.length - 1] ?? first;
  const promptMs = first - r.arrivalMs;
  const predictedMs = last - first;
  return llamacppRequestLines(elapsedMs, (r.index - 1) % c.maxRunningRequests, r.index, {
    promptN: r.promptTokens,
    promptMs,
    predictedN: r.generated,
    predictedMs,
    draftN: draftTokensOf(c, r),
    draftAccepted: r.acceptedDraftTokens,
    verifySteps: r.verifyCt,
  });
}
