// Engine-neutral log text handling: strip ANSI colour codes, re-join lines hard-wrapped by a
// terminal (keeping original line numbers), read line timestamps, and find crash signatures.

import type { LogReading } from './types.js';

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

/**
 * Splits log text into logical lines: strips ANSI, drops CRs, and re-joins lines a terminal
 * hard-wrapped at a fixed width (a line exactly as long as the detected width followed by a line
 * that does not start a new record continues onto it).
 */
export function logicalLines(text: string): LogLine[] {
  const physical = stripAnsi(text).replace(/\r\n?/g, '\n').split('\n');
  if (physical.length > 0 && physical[physical.length - 1] === '') physical.pop();
  const width = detectWrapWidth(physical);
  const out: LogLine[] = [];
  let current: LogLine | null = null;
  let prevLen = -1;
  physical.forEach((raw, i) => {
    const continues =
      current !== null && width !== null && prevLen === width && raw !== '' && !RECORD_START_RE.test(raw);
    if (continues && current) current.text += raw;
    else {
      current = { line: i + 1, text: raw };
      out.push(current);
    }
    prevLen = raw.length;
  });
  return out;
}

/**
 * The terminal width a log was wrapped at: the longest line length (a terminal never prints a line
 * longer than its width), at least 80 columns, seen at least twice followed by a line that does not
 * start a new record (a wrapped record leaves lines of exactly the width, each followed by its
 * continuation). Null when the log does not look wrapped.
 */
export function detectWrapWidth(lines: string[]): number | null {
  let maxLen = 0;
  for (const l of lines) maxLen = Math.max(maxLen, l.length);
  if (maxLen < 80) return null;
  let wraps = 0;
  for (let i = 0; i + 1 < lines.length; i++) {
    if (lines[i].length === maxLen && lines[i + 1] !== '' && !RECORD_START_RE.test(lines[i + 1])) wraps++;
  }
  return wraps >= 2 ? maxLen : null;
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

/** Removes a `(EngineCore pid=1)` style prefix some engines put before every line. */
function stripRecordPrefix(text: string): string {
  return text.replace(/^\(\w+ pid=\d+\) ?/, '');
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

/**
 * The LogReading every adapter fills alike from its start markers: their line numbers and times, the
 * first ready line and the crashes after the last start. `regionFirst` (indices) defaults to the markers.
 */
export function logReadingFromStarts(
  lines: LogLine[],
  starts: readonly number[],
  isReady: (text: string) => boolean,
  facts: LogReading['facts'],
  regionFirst: readonly number[] = starts,
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
  };
}
