// SGLang's start-up and serving log (2025–2026 releases): the `server_args=ServerArgs(...)` start marker
// and its fields, the scheduler's effective limits line, the spec v2 / overlap warnings printed just
// before the marker, `Decode batch` acceptance lines in every spelling, and the lines that end a start.

import { setFact, setFactIfAbsent } from './facts.js';
import {
  type AcceptanceParser,
  linesAfterLastStart,
  logReadingFromStarts,
  startIndices,
  startRegionFirst,
} from './log-reading.js';
import { type LogLine, logicalLines } from './logtext.js';
import { parsePyKwargs } from './pyrepr.js';
import { factsFromServerArgs, inferSpecV2 } from './sglang-args.js';
import type { ConfigFacts, LogReading } from './types.js';

export const SGLANG_START_MARKER = 'server_args=ServerArgs(';
export const SGLANG_READY_LINE = 'The server is fired up and ready to roll!';
const SPEC_V2_ON_RE = /Spec v2 is enabled/;
/** From 2026-04-29 (spec v2 the default): `Spec v1 is used for eagle/eagle3/standalone speculative decoding because …`. */
const SPEC_V1_USED_RE = /Spec v1 is used for \S+ speculative decoding because/;
/** From 2026-06-11 the variable is ignored and the start says so. */
const SPEC_V2_ENV_REMOVED_RE = /SGLANG_ENABLE_SPEC_V2 has been removed/;
const OVERLAP_OFF_RE = /Overlap scheduler is disabled/;
/** A hybrid model's state cache admits fewer requests than asked (0.5.19): `max_running_requests is capped to 9 by …`. */
const CAPPED_RE = /max_running_requests is capped to (\d+) by /;
/** Lines that can only come from an earlier, running (or crashed) server. */
const EARLIER_RUN_RE =
  /The server is fired up and ready to roll!|Decode batch|Prefill batch|Traceback \(most recent call last\)|Received sigquit|Uvicorn running on|"(?:GET|POST) \//;
/**
 * Lines that end a start before or after its ready line: a subprocess raised (`Scheduler`,
 * `TpModelWorker`, `DataParallelController`, `DetokenizerManager`, `TokenizerManager`,
 * `MultiTokenizerRouter` … "hit an exception"), or the launcher or tokenizer manager got the SIGQUIT a
 * dying child sends (engine.py launch phase, tokenizer_manager.py running phase).
 */
const SGLANG_FATAL: readonly RegExp[] = [
  /\b[A-Z]\w* hit an exception/,
  /Received sigquit from a child process/,
  /SIGQUIT received\. .*child failed/,
];
/**
 * The scheduler's effective limits (scheduler.py, every release of 2025–2026): `max_total_num_tokens=N,
 * chunked_prefill_size=N, max_prefill_tokens=N, max_running_requests=N, context_len=N, available_gpu_mem=…`.
 */
const LIMITS_RE = /max_total_num_tokens=(\d+), .*?max_running_requests=(\d+), context_len=(\d+)/;

/**
 * A `Decode batch` line's mean acceptance length (printed only under speculative decoding), in every
 * spelling of 2025–2026: `Decode batch. #running-req: …` (to 0.5.3), `Decode batch [N], …` (0.5.4),
 * `Decode batch, …` (0.5.4.post1 on, `[N]` again with SGLANG_LOG_FORWARD_ITERS); `accept len: 2.80`,
 * followed from 0.5.4 by `accept rate: 0.61`.
 */
export const parseSglangAcceptanceLine: AcceptanceParser = (text) => {
  if (!text.includes('Decode batch')) return null;
  // `{x:.2f}, ` always: a number without its two decimals and comma is a line cut mid-value
  const m = /\baccept len: (\d+\.\d\d),/.exec(text);
  return m ? { meanLength: Number(m[1]) } : null;
};

/** Facts of the last start's ServerArgs line; a cut line keeps its complete fields and says it was cut. */
function serverArgsFacts(l: LogLine, path: string): ConfigFacts {
  const at = l.text.indexOf(SGLANG_START_MARKER) + SGLANG_START_MARKER.length;
  const parsed = parsePyKwargs(l.text, at, ')');
  const source = `${path}:${l.line}`;
  const facts = factsFromServerArgs(parsed.value, source);
  if (!parsed.complete) setFact(facts, 'sglang.server_args_truncated', true, source);
  return facts;
}

/**
 * The scheduler's effective limits: the context length, and (with one data-parallel rank) the running
 * requests it really admits, which memory can hold below the flag (the flag stays `sglang.max_running_requests`).
 */
function readLimits(current: readonly LogLine[], path: string, facts: ConfigFacts): void {
  const capped = current.find((l) => CAPPED_RE.test(l.text));
  const dp = facts.dp_size?.value;
  if (capped && !(typeof dp === 'number' && dp > 1)) {
    const n = Number(CAPPED_RE.exec(capped.text)![1]);
    setFact(
      facts,
      'max_running_requests',
      n,
      `${path}:${capped.line} (the flag stays sglang.max_running_requests)`,
    );
  }
  for (const l of current) {
    const m = LIMITS_RE.exec(l.text);
    if (!m) continue;
    const at = `${path}:${l.line}`;
    setFact(facts, 'sglang.max_total_num_tokens', Number(m[1]), at);
    setFact(facts, 'sglang.effective_max_running_requests_per_dp', Number(m[2]), at);
    setFactIfAbsent(facts, 'context_length', Number(m[3]), at);
    if (facts.dp_size?.value === 1) setFact(facts, 'max_running_requests', Number(m[2]), at);
    return;
  }
}

/**
 * Warnings ServerArgs prints as it changes a setting (2025–2026 wordings): the overlap scheduler off
 * ("Overlap scheduler is disabled because of using eagle3 or standalone speculative decoding.", "… when
 * spec v2 is off …", "The overlap scheduler and mixed chunked prefill are disabled because of using ngram
 * …"), mixed chunked prefill off, and DP attention's per-rank chunk ("The chunked prefill size is adjusted
 * to 4096 to avoid MoE kernel issues." to 2025, "chunked prefill size is adjusted from 16384 to 1024."
 * after): a value not followed by its sentence's end is a cut line and is not read.
 */
const OVERLAP_DISABLED_RE =
  /\b(?:Overlap scheduler is|[Oo]verlap scheduler and mixed chunked prefill are) disabled\b/;
const MIXED_DISABLED_RE = /\b(?:Mixed chunked prefill is|and mixed chunked prefill are) disabled\b/;
const CHUNK_ADJUSTED_RE = /chunked prefill size is adjusted (?:from \d+ )?to (\d+)(?:\.| to avoid)/;

/** Settings the warnings of the current start state; the ServerArgs line, when read, stays first. */
function readSettingWarnings(
  lines: readonly LogLine[],
  from: number,
  path: string,
  facts: ConfigFacts,
): void {
  for (let i = from; i < lines.length; i++) {
    const { text, line } = lines[i];
    const at = `${path}:${line}`;
    if (OVERLAP_DISABLED_RE.test(text)) setFactIfAbsent(facts, 'overlap_schedule', false, at);
    if (MIXED_DISABLED_RE.test(text)) setFactIfAbsent(facts, 'sglang.enable_mixed_chunk', false, at);
    const chunk = CHUNK_ADJUSTED_RE.exec(text);
    if (chunk) setFactIfAbsent(facts, 'sglang.chunked_prefill_size', Number(chunk[1]), at);
  }
}

/** Spec v2 from the warnings of the current start (printed before its marker). */
function readSpecV2(lines: readonly LogLine[], from: number, path: string, facts: ConfigFacts): void {
  for (let i = from; i < lines.length; i++) {
    const l = lines[i];
    const at = `${path}:${l.line}`;
    if (SPEC_V2_ON_RE.test(l.text)) setFact(facts, 'speculative.spec_v2', true, at);
    else if (SPEC_V1_USED_RE.test(l.text)) setFact(facts, 'speculative.spec_v2', false, at);
    else if (OVERLAP_OFF_RE.test(l.text) && /spec v2 is off/i.test(l.text))
      setFactIfAbsent(facts, 'speculative.spec_v2', false, at);
    if (SPEC_V2_ENV_REMOVED_RE.test(l.text))
      setFact(facts, 'sglang.spec_v2_env_ignored', true, `${at} (the variable is removed on this build)`);
  }
}

export function readSglangLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  const markerIdx = startIndices(lines, (t) => t.includes(SGLANG_START_MARKER));
  const last = markerIdx.length > 0 ? markerIdx[markerIdx.length - 1] : -1;
  // SGLang prints its config warnings (spec v2, overlap) just before the ServerArgs line, so each
  // start's region reaches back over the lines printed shortly before its marker.
  const regionFirst = markerIdx.map((m, k) =>
    startRegionFirst(lines, m, k > 0 ? markerIdx[k - 1] : -1, (t) => EARLIER_RUN_RE.test(t)),
  );
  const isReady = (t: string) => t.includes(SGLANG_READY_LINE);
  const reading = logReadingFromStarts(lines, markerIdx, isReady, {}, regionFirst, {
    fatal: SGLANG_FATAL,
    acceptance: parseSglangAcceptanceLine,
  });
  if (last >= 0) {
    reading.facts = serverArgsFacts(lines[last], path);
  }
  // a paste without the ServerArgs line is read whole
  readLimits(linesAfterLastStart(lines, markerIdx), path, reading.facts);
  const currentFirst = last >= 0 ? regionFirst[regionFirst.length - 1] : 0;
  readSpecV2(lines, currentFirst, path, reading.facts);
  readSettingWarnings(lines, currentFirst, path, reading.facts);
  inferSpecV2(reading.facts);
  return reading;
}
