// Crash and failure signatures in a server log: Python tracebacks (with their final exception), CUDA
// and watchdog lines, and whether the current start died: an engine's fatal line anywhere in the start
// (before or after its ready line), a failed-start line before it, or a traceback the start never got
// past. Judged over the whole current start, not its last few lines.

import type { LogLine } from './logtext.js';
import type { FailedStart } from './types.js';

// `CUDA error` singular: "may lead to … CUDA errors" is a warning's hedge, not an error
const CUDA_RE =
  /CUDA error(?!s)|CUBLAS_STATUS_\w+|cudaError\w*|torch\.OutOfMemoryError|CUDA out of memory|NCCL error|illegal memory access/i;
/**
 * A record at warning level: a logger's `WARNING`/`WARN` level (vLLM, TGI, Python's default format),
 * SGLang's `Warning: ` messages (after its `[time TP0] ` stamp), llama.cpp's `W ` level and PyTorch's
 * `[W …]`, and a Python `warnings.warn` line (`file.py:12: UserWarning: `). A warning is never a crash,
 * whatever error it mentions (SGLang: "… may lead to incorrect model outputs or CUDA errors").
 */
const WARNING_RECORD_RE =
  /^(?:\s*\(\w+ pid=\d+(?:, ip=[\w.:-]+)?\)\s*)?(?:\[[^\]]{0,80}\]\s*)?(?:WARNING|WARN|Warning)\b|^\d+\.\d{2}\.\d{3}\.\d{3} W |^\[W[\d ]|\.py:\d+: [A-Z]\w*Warning: /;
// SGLang: "Scheduler watchdog timeout (self.watchdog_timeout=300, ...)", "Received sigquit from a child
// process. It usually means the child failed.", "SIGQUIT received."; plus generic fatal-signal lines.
const WATCHDOG_RE =
  /watchdog timeout \(|Received sigquit from a child process|SIGQUIT received|Fatal Python error|Segmentation fault|core dumped|terminate called after throwing/i;
/**
 * The process itself died, whatever the engine: CPython's fatal error (an abort, a segfault in a
 * kernel), a C++ exception nobody caught (NCCL's watchdog "terminate called after throwing an instance
 * of 'std::runtime_error'"), or a crash the shell reports. Such a line ends the start wherever it is.
 */
const PROCESS_DEATH: readonly RegExp[] = [
  /Fatal Python error: /,
  /\bSegmentation fault\b/,
  /\(core dumped\)/,
  /terminate called after throwing an instance of/,
  /we are taking the entire process down/,
];
const EXCEPTION_LINE_RE =
  /^(?:\s*\(\w+ pid=\d+(?:, ip=[\w.:-]+)?\)\s*)?(?:\[[^\]]*\]\s*)?([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)?)(?::\s?(.*))?$/;

/** CUDA out-of-memory, the failed-start cause every engine shares (PyTorch's and the CUDA runtime's wording). */
export const CUDA_OOM_RE = /torch\.(?:cuda\.)?OutOfMemoryError|CUDA out of memory|CUDA error: out of memory/;

export interface Crash {
  line: number;
  excerpt: string;
}

/** A crash and, for a traceback, the index (in the scanned lines) of its last line. */
interface ScannedCrash extends Crash {
  endIndex?: number;
}

/**
 * Removes the prefix engines repeat on every line of a multi-line record: `(EngineCore pid=1) ` (a Ray
 * actor's `(RayWorkerProc pid=1, ip=10.0.0.1) `) and
 * vLLM's header `ERROR 11-20 14:02:46 [core.py:842] ` (before 2025-02-24 `core.py:842] `), which its
 * formatter puts on each traceback line.
 */
function stripRecordPrefix(text: string): string {
  return stripOuterPrefixes(text).replace(
    /^(?:\(\w+ pid=\d+(?:, ip=[\w.:-]+)?\) ?)?(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? (?:\[[^\]]{0,200}\]|[\w./-]{1,200}:\d+\]) )?/,
    '',
  );
}

/**
 * Prefixes a process manager or a log shipper puts before the engine's own record: a timestamp
 * (`2026-06-09 14:01:52.982 `, docker's `2023-12-28T13:17:07.318Z `), a bracketed level (`[Error] `) and a
 * parenthesised source (`(Process) `), in any order, at most a few.
 */
function stripOuterPrefixes(text: string): string {
  let out = text;
  for (let k = 0; k < 4; k++) {
    const m =
      /^(?:\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})? |\[[A-Za-z]{3,8}\] |\([A-Za-z]+\) )/.exec(
        out,
      );
    if (!m) return out;
    out = out.slice(m[0].length);
  }
  return out;
}

/** A stack frame line of a Python traceback (indented `File "…", line N`), prefixes removed. */
const FRAME_RE = /^\s+File "[^"]*", line \d+/;

/**
 * The traceback whose body starts after line `i` (its `Traceback` header, or the line before the first
 * frame of a paste that begins mid-traceback): its final exception line (null when none) and the index
 * of its last line.
 */
function readTraceback(lines: readonly LogLine[], i: number): { last: string | null; end: number } {
  let j = i + 1;
  // The traceback body is indented frames; its end is the first non-indented line.
  while (j < lines.length) {
    const body = stripRecordPrefix(lines[j].text);
    if (/^\s/.test(body) || body === '') j++;
    else if (/^(?:During handling|The above exception)/.test(body)) j++;
    else if (body.startsWith('Traceback (most recent call last):')) j++;
    else return { last: EXCEPTION_LINE_RE.test(body) ? body.trim() : null, end: j };
  }
  return { last: null, end: lines.length - 1 };
}

/**
 * Crash signatures in `lines`: each Python traceback (reported at its `Traceback` line, with its
 * final exception line as the excerpt), CUDA errors and watchdog / fatal-signal lines.
 */
export function findCrashes(lines: LogLine[]): Crash[] {
  return scanCrashes(lines).map(({ line, excerpt }) => ({ line, excerpt }));
}

function scanCrashes(lines: readonly LogLine[]): ScannedCrash[] {
  const out: ScannedCrash[] = [];
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].text;
    const headless = !t.includes('Traceback (most recent call last):') && FRAME_RE.test(stripRecordPrefix(t));
    if (t.includes('Traceback (most recent call last):') || headless) {
      // a paste that starts mid-traceback: its first frame stands for the missing header
      const { last, end } = readTraceback(lines, headless ? i - 1 : i);
      out.push({
        line: lines[i].line,
        excerpt: last ?? 'Traceback (most recent call last): (no final exception line)',
        endIndex: end,
      });
      i = Math.max(i, end);
      continue;
    }
    if ((CUDA_RE.test(t) || WATCHDOG_RE.test(t)) && !WARNING_RECORD_RE.test(stripOuterPrefixes(t))) {
      out.push({ line: lines[i].line, excerpt: t.trim().slice(0, 300) });
    }
  }
  return out;
}

/** An engine's failure lines, by how much of a start they end. */
export interface FailureSignatures {
  /** Lines that end the start wherever they appear in it, before or after the ready line. */
  fatal?: readonly RegExp[];
  /** Lines that mean a failed start only before the ready line (a shard or a worker could not start). */
  startOnly?: readonly RegExp[];
}

/** Words of a dying or stopping process: such a line after a traceback is not progress of the start. */
const WINDING_DOWN_RE =
  /shut(?:ting)? ?down|\bexit|terminat|\bkill|abort|\bstop|died|clean(?:ing)? ?up|finaliz|interrupt|signal|leaked/i;
/** A log record at warning level or worse (vLLM/Python names, TGI's, llama.cpp's level letter). */
const NOT_PROGRESS_LEVEL_RE =
  /^(?:\s*\(\w+ pid=\d+(?:, ip=[\w.:-]+)?\)\s*)?(?:\S+\s+)?(?:WARNING|WARN|ERROR|CRITICAL|FATAL)\b|^\d+\.\d{2}\.\d{3}\.\d{3} [WE] /;
/** A record that starts with a timestamp or an INFO level (vLLM, SGLang, TGI, llama.cpp 2026). */
const RECORD_RE =
  /^(?:\s*\(\w+ pid=\d+(?:, ip=[\w.:-]+)?\)\s*)?(?:\[\d{4}-\d{2}-\d{2}[ T]\d|\d{4}-\d{2}-\d{2}[ T]\d|\d+\.\d{2}\.\d{3}\.\d{3} [A-Z] |INFO\b)/;

/** A line showing the start went on working (an informational record that is not the process winding down). */
function isProgress(text: string): boolean {
  if (!RECORD_RE.test(text) || NOT_PROGRESS_LEVEL_RE.test(text)) return false;
  if (text.includes('Traceback (most recent call last)') || WINDING_DOWN_RE.test(text)) return false;
  return !CUDA_RE.test(text) && !WATCHDOG_RE.test(text);
}

/**
 * The excerpt of a failure line, naming the root cause: the traceback that follows it, or, for a line
 * that points back at it (vLLM's "See root cause above"), the last one before it.
 */
function failureExcerpt(hit: LogLine, crashes: readonly ScannedCrash[]): string {
  const other = (c: ScannedCrash) => !hit.text.includes(c.excerpt) && !c.excerpt.includes(hit.text.trim());
  const after = crashes.find((c) => c.line >= hit.line && other(c));
  const before = /root cause above/i.test(hit.text)
    ? crashes.filter((c) => c.line < hit.line && other(c) && !/root cause above/i.test(c.excerpt)).pop()
    : undefined;
  const cause = after ?? before;
  const text = hit.text.trim().slice(0, 300);
  return cause ? `${text} (cause: ${cause.excerpt})` : text;
}

/** The first traceback the start did not get past: no progress line follows it. */
function fatalTraceback(scan: readonly LogLine[], crashes: readonly ScannedCrash[]): ScannedCrash | null {
  for (const c of crashes) {
    if (c.endIndex === undefined) continue;
    if (!scan.slice(c.endIndex + 1).some((l) => isProgress(l.text))) return c;
  }
  return null;
}

/**
 * How the current start died (`after` = its lines), or null when it did not: an engine's fatal line
 * anywhere in it (an engine core or scheduler that died at its first decodes ends the start too), a
 * failed-start line or CUDA OOM before the ready line, or (with no ready line) a traceback after which
 * the start made no more progress, however long the log goes on with shutdown noise.
 */
export function findFailedStart(
  after: readonly LogLine[],
  signatures: FailureSignatures,
  isReady: (text: string) => boolean,
): FailedStart | null {
  const readyIdx = after.findIndex((l) => isReady(l.text));
  const scan = readyIdx >= 0 ? after.slice(0, readyIdx) : after;
  const crashes = scanCrashes(after);
  const startOnly = [CUDA_OOM_RE, ...(signatures.startOnly ?? [])];
  const fatal = [...PROCESS_DEATH, ...(signatures.fatal ?? [])];
  const hit = scan.find((l) => [...fatal, ...startOnly].some((re) => re.test(l.text)));
  if (hit) return { line: hit.line, excerpt: failureExcerpt(hit, crashes) };
  const late =
    readyIdx >= 0 ? after.slice(readyIdx + 1).find((l) => fatal.some((re) => re.test(l.text))) : null;
  if (late) return { line: late.line, excerpt: failureExcerpt(late, crashes), afterReady: true };
  if (readyIdx >= 0) return null;
  const dead = fatalTraceback(scan, crashes);
  return dead ? { line: dead.line, excerpt: dead.excerpt } : null;
}
