// Imports vLLM `vllm bench serve --save-result` JSON (one object; `--append-result` files hold several,
// one per line) as a benchgate run, one level per result object.
// Key names are those vllm/benchmarks/serve.py writes (facts only).

import { extent } from '../core/extent.js';
import { parsePythonJson } from '../core/python-json.js';
import type { LevelKey, LevelSummary } from '../metrics/summary.js';
import {
  appendRecordsFromDetails,
  assembleImportedRun,
  defaultImportName,
  distFromKeys,
  type ImportedRun,
  importError,
  levelSummaryFrom,
  looksLikeSglang,
  num,
  numArray,
  type Obj,
} from './import-common.js';

export const VLLM_DEFINITIONS =
  'vLLM bench serve: TTFT = send to first token chunk; ITL = gaps between chunks (chunk ITL); TPOT = (latency - TTFT) / ' +
  '(output tokens - 1); E2EL = send to end of response; output tokens from usage, else re-tokenised text; throughputs = ' +
  'totals / benchmark duration; spec_decode_acceptance_length = 1 + accepted / drafts from /metrics counter deltas over the ' +
  'whole benchmark; numpy percentiles.';

const REQUIRED = ['duration', 'completed', 'output_throughput', 'request_throughput'];

function parseObjects(text: string, file: string): Obj[] {
  const expected = 'a vLLM bench serve result (JSON object written by --save-result)';
  let whole: unknown;
  try {
    whole = parsePythonJson(text);
  } catch {
    // --append-result: objects separated by newlines
    const objs: Obj[] = [];
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].trim()) continue;
      let o: unknown;
      try {
        o = parsePythonJson(lines[i]);
      } catch {
        throw importError(file, expected, `line ${i + 1} is not JSON`);
      }
      if (!o || typeof o !== 'object' || Array.isArray(o))
        throw importError(file, expected, `line ${i + 1} is not a JSON object`);
      objs.push(o as Obj);
    }
    if (objs.length === 0) throw importError(file, expected, 'the file is empty');
    return objs;
  }
  if (Array.isArray(whole) && whole.every((o) => o && typeof o === 'object' && !Array.isArray(o)))
    return whole as Obj[];
  if (!whole || typeof whole !== 'object' || Array.isArray(whole))
    throw importError(file, expected, 'it holds no JSON object');
  return [whole as Obj];
}

function rateOf(v: unknown): number | null {
  if (v === 'inf' || v === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  return num(v);
}

export function importVllm(
  text: string,
  file: string,
  opts: { name?: string; startedAt?: string } = {},
): ImportedRun {
  const objs = parseObjects(text, file);
  const warnings: string[] = [];
  const levels: LevelSummary[] = [];
  const records: ImportedRun['records'] = [];
  objs.forEach((o, i) => {
    const where = objs.length > 1 ? `result ${i + 1}` : 'the result';
    if (looksLikeSglang(o)) {
      throw importError(
        file,
        'a vLLM bench serve JSON result',
        `${where} is an SGLang bench_serving result (use --from sglang)`,
      );
    }
    const missing = REQUIRED.filter((k) => !(k in o));
    if (missing.length)
      throw importError(file, 'a vLLM bench serve JSON result', `${where} lacks ${missing.join(', ')}`);
    const rate = rateOf(o.request_rate);
    const cap = num(o.max_concurrency);
    const completed = num(o.completed) ?? 0;
    const failed = num(o.failed) ?? 0;
    const level: LevelKey =
      rate !== null && Number.isFinite(rate)
        ? { kind: 'rate', value: rate, maxConcurrency: cap }
        : { kind: 'concurrency', value: cap ?? num(o.num_prompts) ?? completed + failed };
    const durationS = num(o.duration) ?? Number.NaN;
    const latencies = numArray(o.latencies);
    const ttfts = numArray(o.ttfts);
    const outputLens = numArray(o.output_lens);
    const itls = Array.isArray(o.itls) ? (o.itls as number[][]) : null;
    const errors = Array.isArray(o.errors) ? (o.errors as string[]) : null;
    const drafts = num(o.spec_decode_num_drafts);
    const accLen = num(o.spec_decode_acceptance_length);
    const totalInput = num(o.total_input_tokens);
    levels.push(
      levelSummaryFrom({
        levelIndex: i,
        level,
        durationS,
        completed,
        failed,
        ttftMs: distFromKeys(
          o,
          'ttft',
          completed,
          ttfts?.map((t) => t * 1000),
        ),
        tpotMs: distFromKeys(o, 'tpot', completed),
        chunkItlMs: distFromKeys(o, 'itl', completed),
        e2eMs: distFromKeys(
          o,
          'e2el',
          completed,
          latencies?.map((t) => t * 1000),
        ),
        requestsPerS: num(o.request_throughput) ?? 0,
        inputTokensPerS: totalInput !== null ? totalInput / durationS : 0,
        outputTokensPerS: num(o.output_throughput) ?? 0,
        peakOutputTokensPerS: num(o.max_output_tokens_per_s),
        achievedConcurrency: latencies ? latencies.reduce((a, b) => a + b, 0) / durationS : null,
        goodputRequestsPerS: num(o.request_goodput),
        speculative:
          accLen === null
            ? null
            : {
                acceptanceLength: accLen,
                source: 'metrics-counters',
                note: 'vLLM: 1 + accepted / drafts from spec_decode counter deltas over the whole benchmark',
                verifySteps: drafts ?? undefined,
                draftTokens: num(o.spec_decode_draft_tokens) ?? undefined,
                acceptedTokens: num(o.spec_decode_accepted_tokens) ?? undefined,
              },
      }),
    );
    if (ttfts && itls && outputLens) {
      // appended one by one: push(...records) overflows the call stack near 100k requests
      appendRecordsFromDetails(records, i, {
        ttftsS: ttfts,
        itlsS: itls,
        outputLens,
        inputLens: numArray(o.input_lens),
        errors,
        startsS: numArray(o.start_times),
        latenciesS: latencies,
      });
    }
  });
  const first = objs[0];
  const run = assembleImportedRun({
    tool: 'vllm-bench-serve',
    file,
    definitions: VLLM_DEFINITIONS,
    name:
      opts.name ?? (typeof first.label === 'string' && first.label ? first.label : defaultImportName(file)),
    levels,
    records,
    warnings,
    detailsHow: 'vllm bench serve with --save-detailed',
    workload: { dataset: null },
    startedAt: opts.startedAt ?? vllmDate(first.date) ?? new Date(0).toISOString(),
  });
  applyWorkloadFacts(run, objs);
  return run;
}

type TokenLength = ImportedRun['manifest']['plan']['workload']['input_tokens'];

/** The first key of `keys` every object carries with the same value; null when absent or disagreeing. */
function agreed<T>(objs: readonly Obj[], keys: readonly string[], read: (v: unknown) => T | null): T | null {
  for (const k of keys) {
    const vals = objs.map((o) => read(o[k]));
    if (vals.every((v) => v !== null && v === vals[0])) return vals[0];
  }
  return null;
}

/** A length from an explicit key, else from per-request lengths (fixed when all equal, else their range). */
function lengthFact(objs: readonly Obj[], keys: readonly string[], lensKey: string): TokenLength | null {
  const fixed = agreed(objs, keys, num);
  if (fixed !== null && Number.isInteger(fixed) && fixed > 0) return { fixed };
  const lens = objs.flatMap((o) => numArray(o[lensKey]) ?? []).filter((n) => n > 0);
  if (lens.length === 0 || objs.some((o) => !numArray(o[lensKey]))) return null;
  const { min: lo, max: hi } = extent(lens);
  return lo === hi ? { fixed: lo } : { uniform: [lo, hi] };
}

/**
 * Workload facts from the file (vLLM writes no workload section: lengths come from explicit keys when a
 * caller added them, or from --save-detailed per-request lengths). What the file does not say is deleted
 * from the manifest's plan (unknown), never left at the plan defaults (1024/256), and named in a warning.
 */
function applyWorkloadFacts(run: ImportedRun, objs: readonly Obj[]): void {
  const w = run.manifest.plan.workload as Partial<typeof run.manifest.plan.workload>;
  const dataset = agreed(objs, ['dataset_name', 'dataset'], (v) => (typeof v === 'string' && v ? v : null));
  const input = lengthFact(objs, ['random_input_len', 'input_len'], 'input_lens');
  const output = lengthFact(objs, ['random_output_len', 'output_len'], 'output_lens');
  const unknown: string[] = [];
  if (dataset) w.dataset = dataset;
  else {
    delete w.dataset;
    unknown.push('dataset');
  }
  for (const [key, fact] of [
    ['input_tokens', input],
    ['output_tokens', output],
  ] as const) {
    if (fact) w[key] = fact;
    else {
      delete w[key];
      unknown.push(key);
    }
  }
  if (unknown.length > 0) {
    const totals = objs.map((o) => {
      const n = num(o.completed);
      const i = num(o.total_input_tokens);
      const out = num(o.total_output_tokens);
      return n
        ? `mean ${i !== null ? Math.round(i / n) : '?'} in / ${out !== null ? Math.round(out / n) : '?'} out tokens per request`
        : null;
    });
    const hint = totals.find(Boolean);
    run.warnings.push(
      `The file does not say the workload's ${unknown.join(', ')}: recorded as unknown${hint ? ` (its totals give ${hint})` : ''}.`,
    );
  }
}

/** vLLM writes `date` as %Y%m%d-%H%M%S local time; read it as UTC (the zone is not recorded). */
function vllmDate(v: unknown): string | null {
  const m = typeof v === 'string' ? /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(v) : null;
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z` : null;
}
