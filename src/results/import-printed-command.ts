// The load level of a printed result table that does not state it, from what the user pasted above it:
// the benchmark's own command line (`vllm bench serve …`, `python benchmarks/benchmark_serving.py …`,
// `python -m sglang.bench_serving …`) or the `Namespace(…)` both tools echo at start. A flag the command
// line leaves out has the tool's default: request rate inf, no concurrency cap, 1000 prompts (SGLang
// bench_serving and vLLM benchmark_serving.py / bench serve alike, 2024–2026).

import type { Obj } from './import-source.js';

/** A benchmark tool's own command line, not a server's (`vllm serve`) or another program's. */
const BENCH_COMMAND_RE =
  /(?:^|[\s/$#>])(?:vllm bench serve|benchmark_serving\.py|sglang\.bench_serving|bench_serving\.py)(?:\s|$)/;
const NAMESPACE_RE = /(?:^|benchmark_args=)Namespace\(/;

/** The tools' defaults for the level flags. */
const DEFAULTS = { request_rate: Number.POSITIVE_INFINITY, max_concurrency: null, num_prompts: 1000 };

function number(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (/^inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (text === 'None') return null;
  return /^\d+(\.\d+)?$/.test(text) ? Number(text) : undefined;
}

/** `--request-rate 4`, `--request-rate=4`, `--num-prompts=10`; undefined when the flag is absent or odd. */
function flagOf(line: string, flag: string): number | null | undefined {
  const m = new RegExp(`\\s--${flag}(?:=|\\s+)(\\S+)`).exec(line);
  return m ? number(m[1].replace(/^['"]|['"]$/g, '')) : undefined;
}

/** `request_rate=inf` in a Namespace echo. */
function fieldOf(line: string, field: string): number | null | undefined {
  const m = new RegExp(`[(\\s]${field}=([^,)]+)`).exec(line);
  return m ? number(m[1].trim()) : undefined;
}

export interface CommandLevel {
  fields: Partial<Record<keyof typeof DEFAULTS, number | null>>;
  line: number;
  /** What was read: the command line or the echo, with the defaults it relied on. */
  note: string;
}

/**
 * The level flags of the last benchmark command line or Namespace echo among `lines` (what was printed
 * since the previous table), with the tool's defaults for the flags it leaves out; null when there is none.
 */
export function levelFromCommand(lines: readonly { text: string; n: number }[]): CommandLevel | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const { text, n } = lines[i];
    const namespace = NAMESPACE_RE.test(text);
    if (!namespace && !BENCH_COMMAND_RE.test(text)) continue;
    const read = namespace ? fieldOf : flagOf;
    const names = ['request_rate', 'max_concurrency', 'num_prompts'] as const;
    const fields: CommandLevel['fields'] = {};
    const defaulted: string[] = [];
    for (const name of names) {
      const v = read(text, namespace ? name : name.replace(/_/g, '-'));
      if (v !== undefined) fields[name] = v;
      else if (!namespace) {
        fields[name] = DEFAULTS[name];
        defaulted.push(name);
      }
    }
    const what = namespace ? 'the Namespace(…) the tool echoed' : 'the benchmark command line';
    const note = defaulted.length
      ? `${what} (defaults for ${defaulted.join(', ')}, which it leaves out)`
      : what;
    return { fields, line: n, note };
  }
  return null;
}

/** Copies the command line's level fields into a table's fields where the table does not state them. */
export function applyCommandLevel(level: CommandLevel, fields: Obj, at: Map<string, number>): void {
  for (const [k, v] of Object.entries(level.fields)) {
    if (k in fields) continue;
    fields[k] = v;
    at.set(k, level.line);
  }
}
