// Reads the result tables SGLang bench_serving and vLLM benchmark_serving.py / `vllm bench serve` print
// ("============ Serving Benchmark Result ============", then `{:<40} {:<10}` label/value lines) into the
// keys their JSON files use, so one importer maps both. A pasted terminal log may hold several tables
// (a sweep) and the lines vLLM prints before each ("Traffic request rate: …", "Maximum request
// concurrency: …"), which give the level the table itself may not state. Labels are those of the
// releases of 2024–2026 (read at source: python/sglang/bench_serving.py, benchmarks/benchmark_serving.py,
// vllm/benchmarks/serve.py).

import { BenchgateError } from '../core/errors.js';
import { applyCommandLevel, levelFromCommand } from './import-printed-command.js';
import type { Obj, RawResult, ResultTool } from './import-source.js';

const HEADER = /^=+ Serving Benchmark Result =+$/;
/** The header at the end of a line: tqdm's bar ends without a newline, so the header is glued to it. */
const HEADER_AT_END = /=+ Serving Benchmark Result =+$/;
const FOOTER = /^=+$/;
const SECTION = /^-+[^-].*-+$/;

/** Labels both tools print with the same meaning. */
const COMMON: Record<string, string> = {
  'Successful requests:': 'completed',
  'Benchmark duration (s):': 'duration',
  'Total input tokens:': 'total_input_tokens',
  'Total generated tokens:': 'total_output_tokens',
  'Request throughput (req/s):': 'request_throughput',
  'Input token throughput (tok/s):': 'input_throughput',
  'Output token throughput (tok/s):': 'output_throughput',
  'Peak output token throughput (tok/s):': 'max_output_tokens_per_s',
  'Peak concurrent requests:': 'max_concurrent_requests',
};

const SGLANG: Record<string, string> = {
  'Backend:': 'backend',
  'Traffic request rate:': 'request_rate',
  'Max request concurrency:': 'max_concurrency',
  // the v0.4.x spelling
  'Max reqeuest concurrency:': 'max_concurrency',
  'Total input text tokens:': 'total_input_text_tokens',
  'Total input vision tokens:': 'total_input_vision_tokens',
  'Total generated tokens (retokenized):': 'total_output_tokens_retokenized',
  'Total token throughput (tok/s):': 'total_throughput',
  'Concurrency:': 'concurrency',
  'Accept length:': 'accept_length',
};

const VLLM: Record<string, string> = {
  'Failed requests:': 'failed',
  'Maximum request concurrency:': 'max_concurrency',
  'Request rate configured (RPS):': 'request_rate',
  'Request goodput (req/s):': 'request_goodput',
  'RTFx (Inverse Real-Time Factor):': 'rtfx',
  'Total Token throughput (tok/s):': 'total_token_throughput',
  'Total token throughput (tok/s):': 'total_token_throughput',
  'Acceptance rate (%):': 'spec_decode_acceptance_rate',
  'Acceptance length:': 'spec_decode_acceptance_length',
  'Drafts:': 'spec_decode_num_drafts',
  'Draft tokens:': 'spec_decode_draft_tokens',
  'Accepted tokens:': 'spec_decode_accepted_tokens',
};

/** Metric names in the latency lines ("Mean TTFT (ms):", "P99 E2E Latency (ms):", "P90 E2EL (ms):"). */
const METRIC: Record<string, string> = {
  TTFT: 'ttft',
  TPOT: 'tpot',
  ITL: 'itl',
  E2EL: 'e2el',
  'E2E Latency': 'e2e_latency',
};
const LATENCY = /^(Mean|Median|Max|P(\d+(?:\.\d+)?)) (TTFT|TPOT|ITL|E2EL|E2E Latency) \(ms\):$/;
const POSITION = /^Position (\d+):$/;

/** Longer lines are no table line (and never reach a regular expression). */
const MAX_LINE = 300;
/** Lines before a table (a benchmark command line, a Namespace echo) are read up to this length. */
const MAX_BEFORE_LINE = 8000;

/** A Markdown quote's markers ("> ", "> > ") at the start of a line, with the blanks before them. */
const QUOTE = /^[ \t]*(?:>[ \t]?)+/;

/**
 * The text with Markdown quote markers taken off every quoted line (a table pasted into an issue or a
 * chat as `> ` lines); no table or JSON line starts with `>`, so nothing else changes, and line numbers
 * stay those of the paste.
 */
export function unquoted(text: string): string {
  if (!/^[ \t]*>/m.test(text)) return text;
  return text
    .split('\n')
    .map((l) => l.replace(QUOTE, ''))
    .join('\n');
}

/**
 * A section of a result table pasted without the table (its first "---- Name ----" line, when the text
 * has no table header): its figures belong to a level, counts and latencies the paste does not hold.
 */
export function sectionWithoutTable(text: string): { name: string; line: number } | null {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t.length <= MAX_LINE && SECTION.test(t)) return { name: t.replace(/^-+|-+$/g, ''), line: i + 1 };
  }
  return null;
}

export function looksPrinted(text: string): boolean {
  return text.split('\n').some((l) => HEADER_AT_END.test(l.trim().slice(-MAX_LINE)));
}

/** "12.50" → 12.5, "inf" → Infinity, "not set"/"None" → null; anything else stays text. */
function printedValue(v: string): unknown {
  if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(v)) return Number(v);
  if (/^inf$/i.test(v)) return Number.POSITIVE_INFINITY;
  if (/^nan$/i.test(v)) return Number.NaN;
  if (v === 'not set' || v === 'None') return null;
  return v;
}

/** A label/value line: the label ends at its colon, the value is what follows (trailing padding dropped). */
function labelled(line: string): { label: string; value: string } | null {
  const m = /^\s*(.*?:)\s+(\S(?:.*\S)?)\s*$/.exec(line);
  if (!m) return null;
  // the tools pad a value to 10 columns: text two blanks past a number is a note added to the paste
  const noted = /^([-+]?\d[\d.]*(?:e[-+]?\d+)?)\s{2,}\S/i.exec(m[2]);
  return { label: m[1], value: noted ? noted[1] : m[2] };
}

function keyOf(label: string, tool: ResultTool): string | null {
  const lat = LATENCY.exec(label);
  if (lat) {
    const stat = lat[2] ? `p${lat[2]}` : lat[1].toLowerCase();
    return `${stat}_${METRIC[lat[3]]}_ms`;
  }
  return COMMON[label] ?? (tool === 'sglang' ? SGLANG[label] : VLLM[label]) ?? null;
}

interface Block {
  headerLine: number;
  lines: { text: string; n: number }[];
  /** Lines printed since the previous table (vLLM's level lines). */
  before: { text: string; n: number }[];
}

function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  let before: Block['before'] = [];
  let open: Block | null = null;
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const t = line.trim();
    const header = t.length <= MAX_LINE ? HEADER.test(t) : false;
    const glued = !header && HEADER_AT_END.test(t.slice(-MAX_LINE));
    // a command line before a table may be long; nothing longer is read
    if (!header && !glued && raw.length > (open ? MAX_LINE : MAX_BEFORE_LINE)) return;
    if (header || glued) {
      open = { headerLine: i + 1, lines: [], before };
      blocks.push(open);
      before = [];
    } else if (open && FOOTER.test(t)) open = null;
    else if (open) open.lines.push({ text: line, n: i + 1 });
    else before.push({ text: line, n: i + 1 });
  });
  return blocks;
}

/** SGLang tables start with "Backend:" and say "E2E Latency"; vLLM's do neither. */
function blockTool(b: Block): ResultTool {
  return b.lines.some((l) => /^\s*(Backend:|Concurrency:|Mean E2E Latency)/.test(l.text)) ? 'sglang' : 'vllm';
}

/** vLLM's "Traffic request rate: 4.0 RPS." and "Maximum request concurrency: None" before the table. */
function levelLinesBefore(b: Block, fields: Obj, at: Map<string, number>): void {
  for (const { text, n } of b.before) {
    const rate = /^Traffic request rate: (\S+?)(?: RPS\.)?\s*$/.exec(text.trim());
    const cap = /^Maximum request concurrency: (\S+)\s*$/.exec(text.trim());
    const ramp = /^Traffic ramp-up strategy:/.test(text.trim());
    if (rate && !('request_rate' in fields)) set(fields, at, 'request_rate', printedValue(rate[1]), n);
    if (cap && !('max_concurrency' in fields)) set(fields, at, 'max_concurrency', printedValue(cap[1]), n);
    if (ramp) set(fields, at, 'ramp_up_strategy', text.trim(), n);
  }
}

function set(fields: Obj, at: Map<string, number>, key: string, value: unknown, line: number): void {
  fields[key] = value;
  at.set(key, line);
}

/** A label printed twice in one table with two values: which one the level measured cannot be told. */
function twice(
  file: string,
  b: Block,
  label: string,
  a: [number, unknown],
  c: [number, unknown],
): BenchgateError {
  return new BenchgateError(
    'BG_E_IMPORT',
    `${file}:${c[0]}: "${label}" is printed twice in the table at line ${b.headerLine}, ${String(a[1])} at line ${a[0]} and ${String(c[1])} at line ${c[0]}; refusing the table (which one it measured cannot be told).`,
  );
}

function blockResult(b: Block, file: string): RawResult {
  const tool = blockTool(b);
  const fields: Obj = {};
  const at = new Map<string, number>();
  const labels = new Map<string, string>();
  const positions: number[] = [];
  for (const { text, n } of b.lines) {
    if (SECTION.test(text.trim())) continue;
    const lv = labelled(text);
    if (!lv) continue;
    const pos = POSITION.exec(lv.label);
    if (pos) {
      positions[Number(pos[1])] = (printedValue(lv.value) as number) / 100;
      at.set('spec_decode_per_position_acceptance_rates', n);
      continue;
    }
    const key = keyOf(lv.label, tool);
    if (key) {
      const value = printedValue(lv.value);
      if (key in fields && !Object.is(fields[key], value))
        throw twice(file, b, lv.label, [at.get(key)!, fields[key]], [n, value]);
      set(fields, at, key, value, n);
      labels.set(key, lv.label);
    }
  }
  if (positions.length) fields.spec_decode_per_position_acceptance_rates = positions;
  // the level lines printed before a table count only when the table does not state its own
  for (const k of ['request_rate', 'max_concurrency']) if (!(k in fields)) at.delete(k);
  levelLinesBefore(b, fields, at);
  if (!('request_rate' in fields) && !('max_concurrency' in fields)) {
    const level = levelFromCommand(b.before);
    if (level) applyCommandLevel(level, fields, at);
  }
  return {
    fields,
    line: b.headerLine,
    lineOf: (key) => at.get(key) ?? b.headerLine,
    labelOf: (key) => labels.get(key),
    printed: true,
    tool,
  };
}

/** Every result table of a pasted terminal log, in order. */
export function readPrintedResults(text: string, file: string): RawResult[] {
  return blocksOf(text).map((b) => blockResult(b, file));
}
