// Engine-neutral log text handling: strip ANSI colour codes, re-join lines hard-wrapped by a
// terminal (keeping original line numbers), read line timestamps, and say when a text is not a log.
// Crash and failure signatures: log-crashes.ts; starts, ready lines and acceptance: log-reading.ts.

import { type ReadResult, readUnreadable, readValue } from '../core/read-result.js';
import { oneSourceText } from './log-sources.js';

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

/**
 * A line that begins a new log record: timestamped (llama.cpp 2026 `0.00.073.302 I ` included),
 * levelled, a known non-record marker, or one of llama.cpp's plain records (b7501 and earlier at default
 * verbosity: a function-name prefix, `srv    load_model: `, `slot update_slots: `, `llama_model_loader: `,
 * `main: `). Without the last, llama.cpp's fixed-width lines (the padded metadata dump, the prompt-cache
 * listing) pass for terminal wraps and are joined, and the truncated chat template in that dump leaves a
 * bracket open that swallows the rest of the log.
 */
export const RECORD_START_RE =
  /^(?:\s*\(\w+ pid=\d+(?:, ip=[\w.:-]+)?\)\s*)?(?:\[\d{4}-\d{2}-\d{2}[ T]\d|\d{4}-\d{2}-\d{2}[ T]\d|\d+\.\d{2}\.\d{3}\.\d{3} [A-Z] |(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b|Traceback \(most recent call last\)|\s*File "|[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)\b|(?:srv|slot|que|res)\s+\w+: |(?:llama|llm|ggml|gguf|common|print_info|load|main|init|start|build|system[ _]info|sched|graph|clip|mtmd)\w*: )/;

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
  const physical = oneSourceText(stripAnsi(text))
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
    } else if (current !== null && continuesOpenDump(current.text, raw)) {
      current.text += raw;
    } else {
      current = { line: i + 1, text: raw };
      out.push(current);
    }
    prev = raw;
  });
  return out;
}

/** Shortest line taken for a configuration dump (ServerArgs, Namespace, engine config, one-line Args). */
const MIN_DUMP_CHARS = 200;
/** Lines that carry a whole configuration dump (vLLM engine config and arguments, SGLang, TGI). */
const DUMP_LINE_RE = /with config: |non-default args: |args: Namespace\(|ServerArgs\(|Args \{ /;
/** Longest logical line a broken dump is re-joined into. */
const MAX_JOINED_CHARS = 512 * 1024;

/** Brackets `(`, `[`, `{` left open at the end of `text`, outside quoted strings. */
export function openBrackets(text: string): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return depth;
}

/**
 * A long configuration dump broken mid-token at no fixed width (a paste or an excerpt that split one
 * record, `max_total_token` / `s=None, …`): the line leaves a bracket open and the next physical line
 * starts flush, without a record prefix. Joined without a blank, as the break fell inside the text.
 */
function continuesOpenDump(current: string, next: string | undefined): boolean {
  if (next === undefined || next === '' || /^\s/.test(next) || !looksLikeContinuation(next)) return false;
  if (current.length < MIN_DUMP_CHARS || current.length > MAX_JOINED_CHARS) return false;
  if (openBrackets(current) > 0) return true;
  // vLLM's engine-config line is a bare `k=v, k=v` list: cut when it stops inside a name or a value
  return DUMP_LINE_RE.test(current) && /[\w=,.'"/-]$/.test(current);
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
