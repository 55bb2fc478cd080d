// Engine-neutral log text handling: strip ANSI colour codes, re-join lines hard-wrapped by a
// terminal (keeping original line numbers), read line timestamps, and find crash signatures.

import { type ReadResult, readUnreadable, readValue } from '../core/read-result.js';
import type { AcceptanceReading, AcceptanceSample, FailedStart, LogReading } from './types.js';

export interface LogLine {
  /** 1-based line number of the line's first physical line in the file. */
  line: number;
  text: string;
}

// CSI sequences (colours, cursor moves) and OSC sequences (titles, links).
const ANSI_RE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_RE, '');
}

/** A line that begins a new log record (timestamped — llama.cpp 2026 `0.00.073.302 I ` included —, levelled or a known non-record marker). */
export const RECORD_START_RE =
  /^(?:\s*\(\w+ pid=\d+\)\s*)?(?:\[\d{4}-\d{2}-\d{2}[ T]\d|\d{4}-\d{2}-\d{2}[ T]\d|\d+\.\d{2}\.\d{3}\.\d{3} [A-Z] |(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b|Traceback \(most recent call last\)|\s*File "|[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)\b)/;

/** Longest physical line examined; longer lines (a binary blob, a 10 MB paste) are cut before any regex runs. */
export const MAX_PHYSICAL_LINE_CHARS = 64 * 1024;

/** Narrowest terminal width considered for hard wraps. */
const MIN_WRAP_WIDTH = 80;

/** A physical line that continues the record above it (not empty, not a new record). */
function looksLikeContinuation(raw: string | undefined): boolean {
  return raw !== undefined && raw !== '' && !RECORD_START_RE.test(raw);
}

/**
 * Splits log text into logical lines: strips ANSI, drops CRs, and re-joins lines a terminal
 * hard-wrapped, at one width or several (a log pasted from terminals of 80 and 120 columns): a line
 * exactly as long as a detected width, followed by a line that does not start a new record,
 * continues onto it. A line one shorter than a width (the terminal's trailing blank trimmed on copy)
 * continues too, with the blank put back.
 */
export function logicalLines(text: string): LogLine[] {
  const physical = stripAnsi(text)
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => (l.length > MAX_PHYSICAL_LINE_CHARS ? l.slice(0, MAX_PHYSICAL_LINE_CHARS) : l));
  if (physical.length > 0 && physical[physical.length - 1] === '') physical.pop();
  const widths = detectWrapWidths(physical);
  const out: LogLine[] = [];
  let current: LogLine | null = null;
  let prev = '';
  physical.forEach((raw, i) => {
    const exact = widths.has(prev.length);
    const trimmed = !exact && widths.has(prev.length + 1) && !prev.endsWith(' ');
    if (current !== null && (exact || trimmed) && looksLikeContinuation(raw)) {
      current.text += trimmed ? ` ${raw}` : raw;
    } else {
      current = { line: i + 1, text: raw };
      out.push(current);
    }
    prev = raw;
  });
  return out;
}

/**
 * The terminal widths a log was wrapped at: line lengths of at least 80 columns seen at least twice
 * each followed by a continuation line (a wrapped record leaves lines of exactly the width, each
 * followed by its continuation). Several widths are kept when a log mixes pastes from several
 * terminals. Empty when the log does not look wrapped.
 */
export function detectWrapWidths(lines: readonly string[]): Set<number> {
  const counts = new Map<number, number>();
  for (let i = 0; i + 1 < lines.length; i++) {
    const len = lines[i].length;
    if (len >= MIN_WRAP_WIDTH && looksLikeContinuation(lines[i + 1])) {
      counts.set(len, (counts.get(len) ?? 0) + 1);
    }
  }
  const widths = new Set<number>();
  for (const [len, n] of counts) if (n >= 2) widths.add(len);
  return widths;
}

/** The widest wrap width (kept for callers that want one number); null when the log does not look wrapped. */
export function detectWrapWidth(lines: string[]): number | null {
  const widths = detectWrapWidths(lines);
  return widths.size > 0 ? Math.max(...widths) : null;
}

/**
 * Wall time of a log line as ISO (UTC assumed when the line has no zone). Understands SGLang
 * `[2026-02-14 15:17:50]`, ISO `2026-02-14T15:17:50Z`, and vLLM `INFO 02-14 15:17:50` (no year:
 * `yearHint`, default the current UTC year).
 */
export function lineTimestamp(text: string, yearHint?: number): string | null {
  const full =
    /(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,6}))?(Z|[+-]\d{2}:?\d{2})?/.exec(
      text.slice(0, 80),
    );
  if (full) {
    const [, y, mo, d, h, mi, s, frac, zone] = full;
    const ms = frac ? `.${frac.padEnd(3, '0').slice(0, 3)}` : '';
    const z = zone
      ? zone === 'Z'
        ? 'Z'
        : zone.includes(':')
          ? zone
          : `${zone.slice(0, 3)}:${zone.slice(3)}`
      : 'Z';
    const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${ms}${z}`);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  const vllm = /(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s+(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})/.exec(
    text.slice(0, 80),
  );
  if (vllm) {
    const [, mo, d, h, mi, s] = vllm;
    const y = yearHint ?? new Date().getUTCFullYear();
    const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
    return Number.isNaN(date.getTime()) ? null : date.toISOString();
  }
  return null;
}

const CUDA_RE =
  /CUDA error|CUBLAS_STATUS_\w+|cudaError\w*|torch\.OutOfMemoryError|CUDA out of memory|NCCL error|illegal memory access/i;
// SGLang: "Scheduler watchdog timeout (self.watchdog_timeout=300, ...)", "Received sigquit from a child
// process. It usually means the child failed.", "SIGQUIT received."; plus generic fatal-signal lines.
const WATCHDOG_RE =
  /watchdog timeout \(|Received sigquit from a child process|SIGQUIT received|Fatal Python error|Segmentation fault|core dumped/i;
const EXCEPTION_LINE_RE =
  /^(?:\s*\(\w+ pid=\d+\)\s*)?(?:\[[^\]]*\]\s*)?([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)?)(?::\s?(.*))?$/;

/**
 * Crash signatures in `lines`: each Python traceback (reported at its `Traceback` line, with its
 * final exception line as the excerpt), CUDA errors and watchdog / fatal-signal lines.
 */
export function findCrashes(lines: LogLine[]): { line: number; excerpt: string }[] {
  const out: { line: number; excerpt: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].text;
    if (t.includes('Traceback (most recent call last):')) {
      let j = i + 1;
      let last: string | null = null;
      // The traceback body is indented frames; its end is the first non-indented line.
      while (j < lines.length) {
        const body = stripRecordPrefix(lines[j].text);
        if (/^\s/.test(body) || body === '') {
          j++;
          continue;
        }
        if (/^(?:During handling|The above exception)/.test(body)) {
          j++;
          continue;
        }
        if (body.startsWith('Traceback (most recent call last):')) {
          j++;
          continue;
        }
        if (EXCEPTION_LINE_RE.test(body)) last = body.trim();
        break;
      }
      out.push({
        line: lines[i].line,
        excerpt: last ?? 'Traceback (most recent call last): (no final exception line)',
      });
      i = Math.max(i, j);
      continue;
    }
    if (CUDA_RE.test(t) || WATCHDOG_RE.test(t)) {
      out.push({ line: lines[i].line, excerpt: t.trim().slice(0, 300) });
    }
  }
  return out;
}

/**
 * Removes the prefix engines repeat on every line of a multi-line record: `(EngineCore pid=1) ` and
 * vLLM's header `ERROR 11-20 14:02:46 [core.py:842] ` (its formatter prefixes each traceback line).
 */
function stripRecordPrefix(text: string): string {
  return text.replace(
    /^(?:\(\w+ pid=\d+\) ?)?(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \[[^\]]{0,200}\] )?/,
    '',
  );
}

/**
 * Index of the first line that belongs to the start whose marker is at `markerIdx`: walks back over
 * lines printed shortly before the marker (within `maxGapS` of its timestamp), stopping after
 * `floorIdx` and at any line `isForeign` says belongs to an earlier run (ready line, crash, traffic).
 */
export function startRegionFirst(
  lines: LogLine[],
  markerIdx: number,
  floorIdx: number,
  isForeign: (text: string) => boolean,
  maxGapS = 300,
): number {
  const markerIso = lineTimestamp(lines[markerIdx].text);
  const markerMs = markerIso ? Date.parse(markerIso) : null;
  let first = markerIdx;
  for (let i = markerIdx - 1; i > floorIdx; i--) {
    const text = lines[i].text;
    if (isForeign(text)) break;
    const iso = lineTimestamp(text);
    if (iso && markerMs !== null) {
      const gapMs = markerMs - Date.parse(iso);
      if (gapMs > maxGapS * 1000 || gapMs < 0) break;
    }
    first = i;
  }
  // Do not start a region on blank or unstamped lines that merely trail the previous run.
  while (first < markerIdx && lineTimestamp(lines[first].text) === null) first++;
  return first;
}

/** Indices of the lines `isStart` recognises as a server start marker. */
export function startIndices(lines: readonly LogLine[], isStart: (text: string) => boolean): number[] {
  const starts: number[] = [];
  lines.forEach((l, i) => {
    if (isStart(l.text)) starts.push(i);
  });
  return starts;
}

/** The lines after the last start marker; the whole log when it has none. */
export function linesAfterLastStart(lines: LogLine[], starts: readonly number[]): LogLine[] {
  return starts.length > 0 ? lines.slice(starts[starts.length - 1] + 1) : lines;
}

/** CUDA out-of-memory, the failed-start cause every engine shares (PyTorch's and the CUDA runtime's wording). */
export const CUDA_OOM_RE = /torch\.(?:cuda\.)?OutOfMemoryError|CUDA out of memory|CUDA error: out of memory/;

/** Lines a dying server still prints after its final traceback (shutdown notices, a sigquit, blanks). */
const TRAILING_LINES_AFTER_FATAL = 6;

/**
 * A start that died: the first line after the start marker (and before any ready line) matching one
 * of the engine's failed-start `signatures` or CUDA OOM; failing that, with no ready line at all, a
 * traceback the log ends on. The excerpt names the root cause when a traceback follows the line.
 */
export function findFailedStart(
  after: readonly LogLine[],
  signatures: readonly RegExp[],
  isReady: (text: string) => boolean,
): FailedStart | null {
  const readyIdx = after.findIndex((l) => isReady(l.text));
  const scan = readyIdx >= 0 ? after.slice(0, readyIdx) : after;
  const crashes = findCrashes([...scan]);
  const hit = scan.find((l) => CUDA_OOM_RE.test(l.text) || signatures.some((re) => re.test(l.text)));
  if (hit) {
    const cause = crashes.find((c) => c.line >= hit.line && !hit.text.includes(c.excerpt));
    const text = hit.text.trim().slice(0, 300);
    return { line: hit.line, excerpt: cause ? `${text} (cause: ${cause.excerpt})` : text };
  }
  if (readyIdx < 0 && crashes.length > 0) {
    // A traceback the log ends on (a start still loading may print a harmless one earlier).
    const last = crashes[crashes.length - 1];
    let endIdx = scan.length - 1;
    while (endIdx >= 0 && !scan[endIdx].text.includes(last.excerpt) && scan[endIdx].line > last.line)
      endIdx--;
    if (scan.length - 1 - endIdx <= TRAILING_LINES_AFTER_FATAL)
      return { line: last.line, excerpt: last.excerpt };
  }
  return null;
}

/** Reads one log line as a speculative-decoding acceptance sample, or null when it is not one. */
export type AcceptanceParser = (text: string) => AcceptanceSample | null;

/** Mean acceptance length at or below this (1.00 printed with two decimals) means nothing was accepted. */
const NEVER_ACCEPTED_MEAN_LENGTH = 1.005;

/** The acceptance lines in `lines` summed up; null when there are none. */
export function readAcceptance(lines: readonly LogLine[], parse: AcceptanceParser): AcceptanceReading | null {
  let out: AcceptanceReading | null = null;
  for (const l of lines) {
    const s = parse(l.text);
    if (!s) continue;
    if (!out) {
      out = {
        lines: 0,
        firstLine: l.line,
        lastLine: l.line,
        maxMeanLength: null,
        acceptedTokens: null,
        draftedTokens: null,
        neverAccepted: true,
        excerpt: '',
      };
    }
    out.lines++;
    out.lastLine = l.line;
    out.excerpt = l.text.trim().slice(0, 300);
    if (s.meanLength !== undefined) out.maxMeanLength = Math.max(out.maxMeanLength ?? 0, s.meanLength);
    if (s.accepted !== undefined) out.acceptedTokens = (out.acceptedTokens ?? 0) + s.accepted;
    if (s.drafted !== undefined) out.draftedTokens = (out.draftedTokens ?? 0) + s.drafted;
  }
  if (out) {
    const noneByCount = out.acceptedTokens === null || out.acceptedTokens === 0;
    const noneByLength = out.maxMeanLength === null || out.maxMeanLength <= NEVER_ACCEPTED_MEAN_LENGTH;
    out.neverAccepted = noneByCount && noneByLength;
  }
  return out;
}

/** What an adapter adds to the shared log reading: its failed-start signatures and acceptance lines. */
export interface LogSignatures {
  failedStart?: readonly RegExp[];
  acceptance?: AcceptanceParser;
}

/**
 * The LogReading every adapter fills alike from its start markers: their line numbers and times, the
 * first ready line, the crashes, a failed start and the acceptance lines after the last start.
 * `regionFirst` (indices) defaults to the markers.
 */
export function logReadingFromStarts(
  lines: LogLine[],
  starts: readonly number[],
  isReady: (text: string) => boolean,
  facts: LogReading['facts'],
  regionFirst: readonly number[] = starts,
  signatures: LogSignatures = {},
): LogReading {
  const after = linesAfterLastStart(lines, starts);
  const ready = after.find((l) => isReady(l.text));
  return {
    facts,
    startMarkerLines: starts.map((i) => lines[i].line),
    startRegionFirstLines: regionFirst.map((i) => lines[i].line),
    startMarkerTimes: starts.map((i) => lineTimestamp(lines[i].text)),
    readyLine: ready ? ready.line : null,
    crashes: findCrashes(after),
    failedStart: findFailedStart(after, signatures.failedStart ?? [], isReady),
    acceptance: signatures.acceptance ? readAcceptance(after, signatures.acceptance) : null,
  };
}

/** Share of control characters (NUL, C0 other than tab/newline/CR/ESC, U+FFFD) above which text is binary. */
const BINARY_CONTROL_SHARE = 0.01;

/** Why `text` cannot be a log at all (empty, binary), or null when it is text. */
function unreadableLogReason(text: string): string | null {
  if (text.trim() === '') return 'the file is empty';
  const head = text.slice(0, 64 * 1024);
  let control = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 27) || c === 127 || c === 0xfffd) control++;
  }
  return control / head.length > BINARY_CONTROL_SHARE
    ? `binary data (${control} control characters in the first ${head.length})`
    : null;
}

/** llama.cpp-style records: `0.00.073.302 I msg` (2026 builds) and `main: msg` / `llama_model_load: msg`. */
const OTHER_RECORD_RE = /^(?:\d+\.\d{2}\.\d{3}\.\d{3} [A-Z] |[a-z_][\w:]{0,60}: \S)/;

/** True when no logical line looks like a log record (timestamp, level, traceback): not a server log. */
export function hasNoLogRecords(lines: readonly LogLine[]): boolean {
  return !lines.some((l) => RECORD_START_RE.test(l.text) || OTHER_RECORD_RE.test(l.text));
}

/**
 * The logical lines of a server log, or unreadable (with an excerpt) when the text is empty or
 * binary: a reader never returns "no lines" for input it could not read.
 */
export function readLogLines(text: string): ReadResult<LogLine[]> {
  const reason = unreadableLogReason(text);
  return reason ? readUnreadable(reason, text) : readValue(logicalLines(text));
}
