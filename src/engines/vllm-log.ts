// vLLM's start-up and serving log, 2024–2026: the version line (`vLLM API server version X` to 0.13,
// `vLLM server version X, serving model M` or the start-up logo's `version X` from 2026-01), `non-default
// args:`, the engine-config line (`Initializing an LLM engine` / `a V0` / `a V1 LLM engine (vX) with
// config:`), the speculative acceptance lines of V0 and V1, and the lines that end a start.

import { addMissingFacts, isRecord, setFact, setFactIfAbsent } from './facts.js';
import { type AcceptanceParser, logReadingFromStarts } from './log-reading.js';
import { type LogLine, logicalLines } from './logtext.js';
import { type PyObject, parsePyKwargs, parsePyValue } from './pyrepr.js';
import type { AcceptanceSample, ConfigFacts, LogReading } from './types.js';
import { factsFromVllmArgs, withLegacySpeculativeConfig } from './vllm-args.js';

const VERSION_LINE_RE = /(?:vLLM (?:API |gRPC )?server version|█\s+version)\s+([^\s,]+)/;
/** The server's arguments: `non-default args: {...}` (2025-05 on) or the whole `args: Namespace(...)` before. */
const NON_DEFAULT_RE = /non-default args: |\] args: Namespace\(/;
/** The engine-config line; before 2024-06 (v0.4) it named no version: `Initializing an LLM engine with config:`. */
const ENGINE_CONFIG_RE = /Initializing (?:a V\d|an) LLM engine (?:\(v([^)]*)\) )?with config: /;
const MAX_MODEL_LEN_RE = /\] Using max model len (\d+)/;
/** `Maximum concurrency for 40,000 tokens per request: 23.06x` (v1/core/kv_cache_utils.py): the model length. */
const MAX_CONCURRENCY_RE = /Maximum concurrency for ([\d,]+) tokens per request: /;
export const VLLM_READY_LINE = 'Application startup complete.';
/** Lines that mean the start failed before it was ready (a worker or the engine core could not start). */
const VLLM_START_FAILURES: readonly RegExp[] = [
  /WorkerProc failed to start/,
  /WorkerProc initialization failed/,
  /EngineCore failed to start/,
  /Engine core initialization failed/,
  /Engine process failed to start/,
];
/**
 * Lines that end a start wherever they appear, its first decodes included (v1/engine/core.py,
 * core_client.py, executor/multiproc_executor.py, v1/utils.py of 2025–2026; V0's AsyncEngineDeadError;
 * executor/ray_executor_v2.py, the Ray backend's default from 2026-05-05: `RayWorkerProc failed: …` from
 * the worker, `RayWorkerProc rank=[1] died unexpectedly, …` from the monitor).
 */
const VLLM_FATAL: readonly RegExp[] = [
  /EngineCore encountered a fatal error/,
  /Engine core proc(?:ess)? \S+ died unexpectedly/,
  // the API server's engine monitor from 2026-06-04 (v1/engine/core_client.py)
  /MPClient: engine core exited unexpectedly/,
  /Worker proc \S+ died unexpectedly/,
  /WorkerProc hit an exception/,
  /RayWorkerProc (?:failed: |rank=\[[\d, ]*\] died unexpectedly)/,
  /\b(?:Async)?EngineDeadError\b/,
  /AsyncLLM output_handler failed/,
];

const num = (re: RegExp, text: string): number | undefined => {
  const m = re.exec(text);
  return m ? Number(m[1]) : undefined;
};

/**
 * V1's mean acceptance length, with the bonus token. v0.8.5 printed it without (accepted / drafts),
 * v0.9.0 on with it, in the same words: the per-position rates on the line (which sum to accepted /
 * drafts) say which. Without them, only the current form (which starts with the mean) is certain.
 */
function v1MeanLength(body: string): number | undefined {
  const printed = num(/Mean acceptance length: (\d+\.\d\d),/, body);
  if (printed === undefined) return undefined;
  const rates = /Per-position acceptance rate: ((?:\d\.\d{3}, )*\d\.\d{3})(?:, [A-Z]|\s*$)/.exec(body);
  if (rates) {
    const sum = rates[1].split(', ').reduce((a, r) => a + Number(r), 0);
    // each rate is rounded to 3 decimals: a sum far from both readings is a cut or odd line, not a guess
    const tolerance = 0.01 + 0.0005 * rates[1].split(', ').length;
    if (Math.abs(printed - sum) <= tolerance) return printed + 1;
    if (Math.abs(printed - 1 - sum) <= tolerance) return printed;
    return undefined;
  }
  return /^SpecDecoding metrics: Mean acceptance length/.test(body) ? printed : undefined;
}

/** V0 `Speculative metrics:`: counts since the server started; mean length = emitted tokens per verify step. */
function v0Sample(body: string): AcceptanceSample | null {
  const accepted = num(/Number of accepted tokens: (\d+)/, body);
  const drafted = num(/Number of draft tokens: (\d+)/, body);
  const emitted = num(/Number of emitted tokens: (\d+)/, body);
  const k = num(/Number of speculative tokens: (\d+)/, body);
  if (accepted === undefined && drafted === undefined) return null;
  const sample: AcceptanceSample = { accepted, drafted, cumulative: true };
  if (emitted !== undefined && k !== undefined && drafted !== undefined && drafted > 0)
    sample.meanLength = (emitted * k) / drafted;
  return sample;
}

/**
 * One acceptance line: V1 `SpecDecoding metrics:` (counts per logging interval) in its three forms
 * (2025-04 `Draft acceptance rate: …, Accepted: N tokens, Drafted: N tokens`; 2025-04-24 on with `Mean
 * acceptance length` and per-position rates; 2025-09 on leading with the mean, with throughputs), and
 * V0 `Speculative metrics:` (cumulative counts).
 */
export const parseVllmAcceptanceLine: AcceptanceParser = (text) => {
  const v0 = text.indexOf('Speculative metrics:');
  if (v0 >= 0) return v0Sample(text.slice(v0, v0 + 2000));
  const at = text.indexOf('SpecDecoding metrics:');
  if (at < 0) return null;
  const body = text.slice(at, at + 2000);
  const sample: AcceptanceSample = {
    meanLength: v1MeanLength(body),
    accepted: num(/Accepted: (\d+) tokens/, body) ?? num(/Number of accepted tokens: (\d+)/, body),
    drafted: num(/Drafted: (\d+) tokens/, body) ?? num(/Number of draft tokens: (\d+)/, body),
  };
  return Object.values(sample).some((v) => v !== undefined) ? sample : null;
};

type MarkerKind = 'version' | 'args' | 'engine';

/**
 * Start markers: a version line, or a `non-default args:` line not directly following one (older
 * versions and other entry points print only the latter); the engine-config line only when neither appears.
 */
function startMarkers(lines: readonly LogLine[]): number[] {
  const starts: number[] = [];
  let lastKind: MarkerKind | null = null;
  let argsSeen = false;
  lines.forEach((l, i) => {
    if (VERSION_LINE_RE.test(l.text)) {
      starts.push(i);
      lastKind = 'version';
      argsSeen = false;
    } else if (NON_DEFAULT_RE.test(l.text)) {
      if (!(lastKind === 'version' && !argsSeen)) starts.push(i);
      lastKind = 'args';
      argsSeen = true;
    } else if (ENGINE_CONFIG_RE.test(l.text) && starts.length === 0) {
      starts.push(i);
      lastKind = 'engine';
    }
  });
  return starts;
}

/** Facts of a `non-default args: {...}` or `args: Namespace(...)` line; a cut line says so. */
function argsLineFacts(l: LogLine, path: string): ConfigFacts {
  const m = NON_DEFAULT_RE.exec(l.text)!;
  const at = m.index + m[0].length;
  const namespace = m[0].endsWith('(');
  const parsed = namespace ? parsePyKwargs(l.text, at, ')') : parsePyValue(l.text, at);
  const source = `${path}:${l.line}`;
  const args = isRecord(parsed.value) ? withLegacySpeculativeConfig(parsed.value as PyObject) : null;
  const facts = args ? factsFromVllmArgs(args, source) : {};
  if (!parsed.complete) setFact(facts, 'vllm.non_default_args_truncated', true, source);
  return facts;
}

/** The engine config line (effective values) wins; non-default args fill in the rest. */
function factsFromLogRegion(region: LogLine[], path: string): ConfigFacts {
  const facts: ConfigFacts = {};
  const engineLine = region.find((l) => ENGINE_CONFIG_RE.test(l.text));
  if (engineLine) {
    const m = ENGINE_CONFIG_RE.exec(engineLine.text)!;
    const source = `${path}:${engineLine.line}`;
    const parsed = parsePyKwargs(engineLine.text, m.index + m[0].length);
    addMissingFacts(facts, factsFromVllmArgs(parsed.value, source));
    if (m[1] !== undefined) setFact(facts, 'engine_version', m[1], source);
  }
  const argsLine = region.find((l) => NON_DEFAULT_RE.test(l.text));
  if (argsLine) addMissingFacts(facts, argsLineFacts(argsLine, path));
  // `Using max model len N` (config/model.py, from 2025-06): the context length when no config line says it
  for (const re of [MAX_MODEL_LEN_RE, MAX_CONCURRENCY_RE]) {
    const lenLine = region.find((l) => re.test(l.text));
    if (!lenLine) continue;
    const len = Number(re.exec(lenLine.text)![1].replace(/,/g, ''));
    setFactIfAbsent(facts, 'context_length', len, `${path}:${lenLine.line}`);
  }
  const versionLine = region.find((l) => VERSION_LINE_RE.test(l.text));
  if (versionLine) {
    const v = VERSION_LINE_RE.exec(versionLine.text)![1];
    setFactIfAbsent(facts, 'engine_version', v, `${path}:${versionLine.line}`);
  }
  return facts;
}

export function readVllmLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  const starts = startMarkers(lines);
  const lastStart = starts.length > 0 ? starts[starts.length - 1] : -1;
  // a paste without a start marker (lines from the middle of a start) is read whole
  const facts = factsFromLogRegion(lastStart >= 0 ? lines.slice(lastStart) : lines, path);
  const reading = logReadingFromStarts(lines, starts, (t) => t.includes(VLLM_READY_LINE), facts, starts, {
    startOnly: VLLM_START_FAILURES,
    fatal: VLLM_FATAL,
    acceptance: parseVllmAcceptanceLine,
  });
  if (stoppedOnPurpose(lines, lastStart, reading)) reading.failedStart = null;
  return reading;
}

/** A stop signal the engine core or API server logged (2026-06-04 on) before the client's exit warning. */
const STOP_SIGNAL_RE = /\[shutdown\] (?:EngineCore: trigger received signal=|API server: shutdown triggered)/;

/**
 * The client's `engine core exited unexpectedly` after a logged stop signal is an orderly stop (the engine
 * core drained and exited on the signal before the API server closed its client), not a failure.
 */
function stoppedOnPurpose(lines: readonly LogLine[], lastStart: number, reading: LogReading): boolean {
  const failed = reading.failedStart;
  if (!failed?.excerpt.includes('MPClient: engine core exited unexpectedly')) return false;
  return lines.some((l, i) => i >= lastStart && l.line < failed.line && STOP_SIGNAL_RE.test(l.text));
}
