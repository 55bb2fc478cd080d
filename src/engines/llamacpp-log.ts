// llama-server's log across its 2025–2026 builds: start markers (`build: N (commit)` to b9160, then
// `common_params_print_info: build N` at -lv 4 and `log_info:` / `common_params_print_info: verbosity = N`),
// the 2026 line prefix (`0.00.073.302 I srv  …`), model, slots and draft lines of each era, the speculative
// types it added, per-request acceptance in its three spellings and the cumulative `statistics` lines,
// and the lines that end a start (a model that does not load, a draft path that fails to decode).

import { setFact, setFactIfAbsent } from './facts.js';
import { readLlamacppAcceptance } from './llamacpp-acceptance.js';
import { linesAfterLastStart, logReadingFromStarts, startIndices } from './log-reading.js';
import { type LogLine, logicalLines } from './logtext.js';
import type { ConfigFacts, LogReading } from './types.js';

/**
 * The line prefix of 2026 builds (and older ones run with --log-prefix --log-timestamps): `0.00.073.302 I `
 * (elapsed minutes.seconds.ms.µs, level letter), or the level letter alone (--log-prefix without
 * timestamps), then a module tag.
 */
const PREFIX_RE = /^(?:\d+\.\d{2}\.\d{3}\.\d{3} [A-Z] |[IWEDT] (?=\S))/;
/** Module tags after the prefix (`srv  `, `cmn  `, `slot `, `spec `), padded to width. */
const MODULE_RE = /^(?:srv|cmn|slot|spec|mtmd|que|res|log) +/;

/**
 * The first line of a start: `build: 4567 (abc1234) with cc …` (common_init, to b9160); from b9161
 * `common_params_print_info: build N (commit) …` at -lv 4 only, and the always printed verbosity line
 * (`log_info: verbosity = 3` to b9837, then `common_param: common_params_print_info: verbosity = 3`).
 */
const START_RE =
  /^build: \d+ \(|^(?:common_param: )?(?:common_params_print_info|log_info): (?:build \d+ \(|verbosity = )/;
const BUILD_RE = /(?:^build:|(?:common_params_print_info|log_info): build) (\d+) \(([^)]*)\)/;
const READY_RE =
  /(?:llama_server|main): (?:server is )?listening on http|server is listening on|main: model loaded/;
const N_CTX_RE = /llama_context: n_ctx(?:_per_seq|_seq)? += (\d+)/;
/** Slots: `initializing, n_slots = N, n_ctx_slot = N` (2026); `initializing slots, n_slots = N` before. */
const SLOTS_RE = /load_model: initializing(?: slots)?, n_slots = (\d+)(?:, n_ctx_slot = (\d+))?/;
/** Per-slot context: `new slot, n_ctx = N` (from b7xxx), `new slot n_ctx_slot = N` (before). */
const SLOT_CTX_RE = /new slot,? n_ctx(?:_slot)? = (\d+)/;
const MODEL_RE = /load_model: loading model '([^']*)'/;
const DRAFT_RE = /loading draft model '([^']*)'/;
const NO_SPEC_RE = /no implementations specified for speculative decoding/;
/** `common_speculative_init: adding speculative implementation 'draft-simple'` (b9115 on; trace level from b9838). */
const IMPL_RE = /adding speculative implementation '([^']+)'/;
/** b9115–b9463: a draft model with no draft type named turned draft-simple on by itself. */
const AUTO_DRAFT_RE =
  /draft model is specified but 'draft' speculative type is not explicitly enabled - enabling it/;
/** `starting server in router mode` (2025-12), `starting router server, no model will be loaded in this process` (2026). */
const ROUTER_RE = /starting server in router mode|starting router server/;
/**
 * The HTTP worker pool, which bounds the connections the server answers at once: `init: using 15 threads
 * for HTTP server` (2025-06 on), `HTTP server is listening, hostname: …, port: …, http threads: 7` before.
 */
const HTTP_THREADS_RE =
  /using (\d+) threads for HTTP server|HTTP server is listening, .*\bhttp threads: (\d+)/;
/** `n_parallel is set to auto, using n_parallel = 4 and kv_unified = true` (2025-12 on). */
const AUTO_PARALLEL_RE = /n_parallel is set to auto, using n_parallel = (\d+)/;
/** A start that fails before it serves: the model or the draft model does not load, the HTTP server cannot bind. */
const LOAD_FAIL_RE =
  /exiting due to model loading error|load_model: failed to load model|error loading model:/;
const LLAMACPP_START_FAILURES: readonly RegExp[] = [
  LOAD_FAIL_RE,
  /failed to load draft model/,
  /failed to create draft context/,
  /failed to initialize speculative decoding context/,
  /exiting due to HTTP server error/,
];
/**
 * The draft path failing to decode (server-context.cpp `failed to process speculative batch` from b9115;
 * common/speculative.cpp `failed to decode draft batch`, `llama_decode(ctx_dft) failed`,
 * `llama_encode(ctx_dft) failed`, EAGLE3/DFlash aborts) and ggml assertions end the start.
 */
const LLAMACPP_FATAL: readonly RegExp[] = [
  /failed to process speculative batch/,
  /failed to decode draft batch/,
  /llama_(?:de|en)code\(ctx_dft\)(?: head=\d+)? failed/,
  /(?:EAGLE3|DFlash): target layer/,
  /GGML_ASSERT\(.*\) failed/,
];

/** A line without its 2026 timestamp/level prefix and module tag; legacy lines unchanged. */
export function llamacppLineBody(text: string): string {
  const m = PREFIX_RE.exec(text);
  return m ? text.slice(m[0].length).replace(MODULE_RE, '') : text;
}

/**
 * Start-marker indices. At verbosity 4 the build line is directly followed by the verbosity line: one
 * start, marked at the build line.
 */
function startMarkers(lines: LogLine[]): number[] {
  const raw = startIndices(lines, (t) => START_RE.test(llamacppLineBody(t)));
  return raw.filter(
    (idx, k) => !(k > 0 && raw[k - 1] === idx - 1 && /verbosity = /.test(llamacppLineBody(lines[idx].text))),
  );
}

/** The speculative types the start added, in order (from its `adding speculative implementation` lines). */
function readImplementations(body: string, at: string, facts: ConfigFacts): void {
  const impl = IMPL_RE.exec(body);
  if (impl) {
    const known = facts['speculative.algorithm']?.value;
    const types = typeof known === 'string' ? known.toLowerCase().split(',') : [];
    if (!types.includes(impl[1])) setFact(facts, 'speculative.algorithm', [...types, impl[1]].join(','), at);
  }
  if (AUTO_DRAFT_RE.test(body)) setFactIfAbsent(facts, 'speculative.algorithm', 'draft-simple', at);
  if (NO_SPEC_RE.test(body)) setFactIfAbsent(facts, 'speculative.algorithm', null, at);
}

/** Facts of one line of the current start. */
function readLine(body: string, at: string, facts: ConfigFacts): void {
  const build = BUILD_RE.exec(body);
  if (build) setFactIfAbsent(facts, 'engine_version', `b${build[1]}-${build[2]}`, at);
  const model = MODEL_RE.exec(body);
  if (model) setFactIfAbsent(facts, 'model', model[1], at);
  const slots = SLOTS_RE.exec(body);
  if (slots) {
    setFactIfAbsent(facts, 'max_running_requests', Number(slots[1]), at);
    if (slots[2] !== undefined) setFactIfAbsent(facts, 'context_length', Number(slots[2]), at);
  }
  const slotCtx = SLOT_CTX_RE.exec(body);
  if (slotCtx) setFactIfAbsent(facts, 'context_length', Number(slotCtx[1]), at);
  const nCtx = N_CTX_RE.exec(body);
  if (nCtx) setFactIfAbsent(facts, 'llamacpp.n_ctx', Number(nCtx[1]), at);
  const draft = DRAFT_RE.exec(body);
  if (draft) setFactIfAbsent(facts, 'speculative.draft_model', draft[1], at);
  readImplementations(body, at, facts);
  if (ROUTER_RE.test(body)) setFactIfAbsent(facts, 'llamacpp.role', 'router', at);
  const threads = HTTP_THREADS_RE.exec(body);
  if (threads) setFactIfAbsent(facts, 'llamacpp.http_threads', Number(threads[1] ?? threads[2]), at);
  const parallel = AUTO_PARALLEL_RE.exec(body);
  if (parallel) setFactIfAbsent(facts, 'llamacpp.n_parallel', Number(parallel[1]), at);
}

export function readLlamacppLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  const starts = startMarkers(lines);
  const facts: ConfigFacts = {};
  const current = linesAfterLastStart(lines, starts);
  // a paste without a start marker (a few timing lines) is read whole
  const region = starts.length > 0 ? [lines[starts[starts.length - 1]], ...current] : current;
  if (starts.length > 0) setFact(facts, 'engine', 'llamacpp', `${path}:${region[0].line}`);
  for (const l of region) readLine(llamacppLineBody(l.text), `${path}:${l.line}`, facts);
  const isReady = (t: string) => READY_RE.test(llamacppLineBody(t));
  const reading = logReadingFromStarts(lines, starts, isReady, facts, starts, {
    startOnly: LLAMACPP_START_FAILURES,
    fatal: LLAMACPP_FATAL,
  });
  reading.acceptance = readLlamacppAcceptance(current, path, facts);
  // a model that fails to load ends the process without a traceback: list it with the crashes too
  const failed = current.find((l) => LOAD_FAIL_RE.test(l.text));
  if (failed && reading.readyLine === null)
    reading.crashes.push({ line: failed.line, excerpt: llamacppLineBody(failed.text).trim().slice(0, 300) });
  return reading;
}
