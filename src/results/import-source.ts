// Splits a file another tool wrote into its result objects, each with the line it was read from: SGLang
// bench_serving JSONL (one object per line), vLLM --save-result JSON (one object, maybe pretty-printed),
// --append-result files (objects one per line), or the result tables both tools print (import-printed.ts).
// Which tool wrote an object is guessed here from keys only that tool writes; the importers map it.

import { BenchgateError } from '../core/errors.js';
import { parsePythonJson } from '../core/python-json.js';
import { looksPrinted, readPrintedResults, sectionWithoutTable, unquoted } from './import-printed.js';

export type Obj = Record<string, unknown>;
export type ResultTool = 'sglang' | 'vllm';

/** One result object of the file, keyed as the tool's JSON writes it. */
export interface RawResult {
  fields: Obj;
  /** 1-based line of the result's first key (a one-line object: its line). */
  line: number;
  /** 1-based line a key was read from (the result's line when unknown). */
  lineOf(key: string): number;
  /** How the file names a key where that differs from the key (a printed table's label). */
  labelOf?(key: string): string | undefined;
  /** Read from a printed result table: a summary only, no per-request details. */
  printed: boolean;
  /** The tool whose keys or labels it carries; null when nothing tells. */
  tool: ResultTool | null;
}

const RESULTS_EXPECTED =
  'SGLang bench_serving or vLLM bench serve results (their JSON or JSONL result file, or the result table they print)';

export function importError(file: string, expected: string, found: string): BenchgateError {
  return new BenchgateError('BG_E_IMPORT', `Expected ${expected} in ${file}; ${found}.`);
}

/** Keys only vLLM writes (SGLang says e2e_latency, has no endpoint_type, model_id+date or total_token_throughput). */
function looksLikeVllm(o: Obj): boolean {
  return (
    'endpoint_type' in o ||
    ('model_id' in o && 'date' in o) ||
    'total_token_throughput' in o ||
    'mean_e2el_ms' in o
  );
}

/** Keys only SGLang writes, in every release since July 2024. */
function looksLikeSglang(o: Obj): boolean {
  return (
    'median_e2e_latency_ms' in o ||
    'median_e2e_latency' in o ||
    'accept_length' in o ||
    'total_output_tokens_retokenized' in o ||
    'total_output_retokenized' in o
  );
}

export function toolOf(o: Obj): ResultTool | null {
  if (looksLikeVllm(o)) return 'vllm';
  return looksLikeSglang(o) ? 'sglang' : null;
}

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Lines of the keys of each top-level object of a JSON text (the text's own objects, or those of a
 * top-level array): a scanner over strings and brackets, linear in the text.
 */
function keyLines(text: string): Map<string, number>[] {
  const out: Map<string, number>[] = [];
  const objectsDepth = text.trimStart().startsWith('[') ? 2 : 1;
  let depth = 0;
  let objectDepth = -1;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') line++;
    else if (ch === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text[j] === ':' && depth === objectDepth) {
        const key = JSON.parse(text.slice(start, i + 1)) as string;
        if (!out[out.length - 1].has(key)) out[out.length - 1].set(key, line);
      }
    } else if (ch === '{' || ch === '[') {
      depth++;
      if (ch === '{' && depth === objectsDepth) {
        objectDepth = depth;
        out.push(new Map());
      }
    } else if (ch === '}' || ch === ']') depth--;
  }
  return out;
}

function raw(fields: Obj, line: number, lines?: Map<string, number>): RawResult {
  return {
    fields,
    line,
    lineOf: (key) => lines?.get(key) ?? line,
    printed: false,
    tool: toolOf(fields),
  };
}

/** The objects of a text that parses as one JSON document, or null when it does not parse whole. */
function wholeDocument(text: string, file: string): RawResult[] | null {
  let whole: unknown;
  try {
    whole = parsePythonJson(text);
  } catch {
    return null;
  }
  const objects = Array.isArray(whole) ? whole : [whole];
  if (objects.length === 0 || !objects.every(isObject))
    throw importError(file, RESULTS_EXPECTED, 'it holds no JSON object');
  const lines = keyLines(text);
  return objects.map((o, i) => {
    const at = lines[i];
    const first = at?.values().next();
    return raw(o, first && !first.done ? first.value : 1, at);
  });
}

/** One JSON object per non-empty line (SGLang JSONL, vLLM --append-result). */
function objectPerLine(text: string, file: string): RawResult[] {
  const out: RawResult[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    if (!l) continue;
    let o: unknown;
    try {
      o = parsePythonJson(l);
    } catch {
      throw importError(
        file,
        RESULTS_EXPECTED,
        `line ${i + 1} is neither a JSON object nor part of a result table`,
      );
    }
    if (!isObject(o)) throw importError(file, RESULTS_EXPECTED, `line ${i + 1} is not a JSON object`);
    out.push(raw(o, i + 1));
  }
  return out;
}

/** Every result object of a file, in file order. */
export function readResultObjects(pasted: string, file: string): RawResult[] {
  if (pasted.trim() === '') throw importError(file, RESULTS_EXPECTED, 'the file is empty');
  const text = unquoted(pasted);
  if (looksPrinted(text)) return readPrintedResults(text, file);
  const section = sectionWithoutTable(text);
  if (section)
    throw importError(
      file,
      RESULTS_EXPECTED,
      `it holds only the "${section.name}" section of a printed result table (line ${section.line}), figures without the level, request counts and latencies they belong to; paste the whole table, from its "Serving Benchmark Result" line to the closing "=====" line`,
    );
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.trimStart().split('\n', 1)[0];
  const oneObjectPerLine = body.trim().includes('\n') && isJsonObjectLine(firstLine);
  return (oneObjectPerLine ? null : wholeDocument(body, file)) ?? objectPerLine(body, file);
}

function isJsonObjectLine(line: string): boolean {
  try {
    return isObject(parsePythonJson(line));
  } catch {
    return false;
  }
}
