// TGI's launcher and router log: the `Args { ... }` start-up dump (one line before 2024-04, then Rust's
// pretty Debug over many lines, launcher/src/main.rs `{:#?}`), the defaults the launcher and router
// settle on (`Default \`max_batch_prefill_tokens\` to N`, `Maximum total tokens defaulted to N`), the
// router's `Connected` ready line, and the lines that end a start.

import { setFact } from './facts.js';
import { logReadingFromStarts, startIndices } from './log-reading.js';
import { type LogLine, logicalLines, RECORD_START_RE } from './logtext.js';
import { type PyValue, parsePyKwargs } from './pyrepr.js';
import { factsFromTgiArgs } from './tgi-args.js';
import type { ConfigFacts, LogReading } from './types.js';

const ARGS_MARKER = 'Args {';
const READY_RE = /text_generation_router[^:]*:.*\bConnected\b/;
/** Launcher lines when a shard or the router could not start. */
const TGI_START_FAILURES: readonly RegExp[] = [/Shard \d+ failed to start/, /\bShardCannotStart\b/];
/** Launcher lines when a shard or the webserver died, before or after the ready line. */
const TGI_FATAL: readonly RegExp[] = [/Shard \d+ crashed/, /Webserver Crashed/, /\bShardFailed\b/];
/** Settled values the launcher and router print when an argument was left to its default. */
const DEFAULTED: readonly [RegExp, string][] = [
  [/Maximum total tokens defaulted to (\d+)/, 'context_length'],
  [/Maximum input tokens defaulted to (\d+)/, 'tgi.max_input_tokens'],
  [/Default `max_batch_prefill_tokens` to (\d+)/, 'tgi.max_batch_prefill_tokens'],
  [/Setting max batch total tokens to (\d+)/, 'tgi.max_batch_total_tokens'],
];

/** Unwraps Rust `Some(x)` → x recursively in parsed Debug output. */
function unwrapSome(v: PyValue): PyValue {
  if (Array.isArray(v)) return v.map(unwrapSome);
  if (v !== null && typeof v === 'object') {
    if (v.__call__ === 'Some' && Array.isArray(v.__args__) && v.__args__.length === 1)
      return unwrapSome(v.__args__[0]);
    const out: Record<string, PyValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = unwrapSome(x);
    return out;
  }
  return v;
}

/** Parses the body of Rust's `Args { a: 1, b: Some("x"), c: None }` Debug output, one line or pretty. */
export function parseRustDebugStruct(body: string): { value: Record<string, unknown>; complete: boolean } {
  // `field: value` → `field=value` for fields at any nesting depth (string contents are left alone).
  let converted = '';
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (inString) {
      converted += ch;
      if (ch === '\\') converted += body[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    const m = /^([A-Za-z_]\w*): /.exec(body.slice(i, i + 80));
    if (m && (i === 0 || /[{(,\s]/.test(body[i - 1]))) {
      converted += `${m[1]}=`;
      i += m[0].length - 1;
      continue;
    }
    // Rust's `true` / `false` are Python's True / False
    const bool = /^(true|false)(?![\w])/.exec(body.slice(i, i + 6));
    if (bool && /[=(\s,[]/.test(converted.slice(-1))) {
      converted += bool[1] === 'true' ? 'True' : 'False';
      i += bool[1].length - 1;
      continue;
    }
    converted += ch === '{' ? '(' : ch === '}' ? ')' : ch;
  }
  const parsed = parsePyKwargs(converted, 0, ')');
  return { value: unwrapSome(parsed.value) as Record<string, unknown>, complete: parsed.complete };
}

/**
 * The Args dump starting at `lines[i]`: the marker line alone when it closes there, else the marker line
 * with the following lines of the pretty dump up to its closing `}` (or the next log record, when cut).
 */
function argsBlock(lines: readonly LogLine[], i: number): string {
  const first = lines[i].text;
  const body = first.slice(first.indexOf(ARGS_MARKER) + ARGS_MARKER.length);
  if (body.trim() !== '') return body;
  const parts: string[] = [];
  for (let j = i + 1; j < lines.length && !RECORD_START_RE.test(lines[j].text); j++) {
    parts.push(lines[j].text.trim());
    if (/^}\s*$/.test(lines[j].text)) break;
  }
  return parts.join(' ');
}

/** The values the launcher and router settled on for arguments the Args dump left at None. */
function readDefaults(current: readonly LogLine[], path: string, facts: ConfigFacts): void {
  for (const l of current)
    for (const [re, key] of DEFAULTED) {
      const m = re.exec(l.text);
      if (m && (facts[key] === undefined || facts[key].value === null))
        setFact(facts, key, Number(m[1]), `${path}:${l.line}`);
    }
}

export function readTgiLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  const starts = startIndices(lines, (t) => t.includes(ARGS_MARKER) && /text_generation_launcher/.test(t));
  const last = starts.length > 0 ? starts[starts.length - 1] : -1;
  let facts: ConfigFacts = {};
  if (last >= 0) {
    const source = `${path}:${lines[last].line}`;
    const parsed = parseRustDebugStruct(argsBlock(lines, last));
    facts = factsFromTgiArgs(parsed.value, source);
    if (!parsed.complete) setFact(facts, 'tgi.args_truncated', true, source);
    readDefaults(lines.slice(last + 1), path, facts);
  }
  return logReadingFromStarts(lines, starts, (t) => READY_RE.test(t), facts, starts, {
    startOnly: TGI_START_FAILURES,
    fatal: TGI_FATAL,
  });
}
