// Imports SGLang bench_serving results (its --output-file JSONL: one JSON object per benchmark
// invocation, bare `Infinity` for an unlimited request rate) as a benchgate run, one level per line.
// Key names are those bench_serving writes (facts read from python/sglang/bench_serving.py).

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
  looksLikeVllm,
  num,
  numArray,
  type Obj,
} from './import-common.js';

const SGLANG_COMMON_DEFINITIONS =
  'TPOT = (latency - TTFT) / (output tokens - 1); E2E latency = send to last chunk; throughputs = totals / ' +
  'whole benchmark duration; concurrency = sum of latencies / duration; accept_length = the server-wide ' +
  'avg_spec_accept_length from /get_server_info (not per level); numpy percentiles.';

/** How bench_serving's ITL was measured, by backend (python/sglang/bench_serving.py at 8471c9e). */
const ITL_DEFINITIONS: Record<ItlOrigin, string> = {
  'native-per-token':
    'ITL = per token: the native backend spreads each chunk gap over the tokens the chunk carried ' +
    '(meta_info.completion_tokens delta), one itls entry per token (token ITL)',
  'oai-retokenized':
    'ITL = per token in the aggregate figures: with an acceptance length the sglang-oai backends divide each ' +
    'chunk gap by the retokenized chunk text (token ITL); per-request itls are chunk gaps',
  chunk: 'ITL = gaps between text chunks (chunk ITL, not per token under speculative decoding)',
};

type ItlOrigin = 'native-per-token' | 'oai-retokenized' | 'chunk';

/** Backends served by async_request_sglang_generate, whose ITL is per token. */
const NATIVE_BACKENDS = new Set(['sglang', 'sglang-native']);
const OAI_BACKENDS = new Set(['sglang-oai', 'sglang-oai-chat']);

/**
 * Which ITL a result line carries. The native backend records one entry per token; an older
 * bench_serving ran 'sglang' through the OpenAI client (one entry per chunk): with per-request details
 * that shows as far fewer entries than tokens, and the line is then read as chunk ITL.
 */
function itlOrigin(o: Obj, itls: number[][] | null, outputLens: number[] | null): ItlOrigin {
  const backend = typeof o.backend === 'string' ? o.backend : '';
  const accept = num(o.accept_length);
  if (OAI_BACKENDS.has(backend)) return accept !== null && accept > 0 ? 'oai-retokenized' : 'chunk';
  if (!NATIVE_BACKENDS.has(backend)) return 'chunk';
  if (itls && outputLens) {
    let entries = 0;
    let gaps = 0;
    itls.forEach((l, i) => {
      if (Array.isArray(l) && l.length > 0) {
        entries += l.length;
        gaps += Math.max(0, (outputLens[i] ?? 0) - 1);
      }
    });
    if (gaps > 0 && entries < 0.9 * gaps) return 'chunk';
  }
  return 'native-per-token';
}

/**
 * Per-token ITL entries back into chunk gaps: the native backend writes a chunk of k tokens as k equal
 * entries (gap / k), so each run of equal consecutive entries is one chunk.
 */
export function chunksFromPerTokenItls(perToken: number[]): { gapsS: number[]; tokens: number[] } {
  const gapsS: number[] = [];
  const tokens: number[] = [];
  for (let i = 0; i < perToken.length; ) {
    let j = i + 1;
    while (j < perToken.length && perToken[j] === perToken[i]) j++;
    gapsS.push(perToken[i] * (j - i));
    tokens.push(j - i);
    i = j;
  }
  return { gapsS, tokens };
}

const JSONL_EXPECTED = 'SGLang bench_serving JSONL (one result object per line)';

const REQUIRED = [
  'backend',
  'completed',
  'duration',
  'output_throughput',
  'request_throughput',
  'median_ttft_ms',
];

/** Which level a result line measured: a concurrency cap with unlimited rate is closed-loop-like. */
function levelOf(o: Obj, fallbackCount: number): LevelKey {
  const rate =
    num(o.request_rate) ?? (o.request_rate === Number.POSITIVE_INFINITY ? Number.POSITIVE_INFINITY : null);
  const cap = num(o.max_concurrency);
  if (rate !== null && Number.isFinite(rate)) return { kind: 'rate', value: rate, maxConcurrency: cap };
  if (cap !== null) return { kind: 'concurrency', value: cap };
  // unlimited rate and no cap: every request sent at once
  return { kind: 'concurrency', value: fallbackCount };
}

export function importSglang(
  text: string,
  file: string,
  opts: { name?: string; startedAt?: string } = {},
): ImportedRun {
  const lines = text
    .split('\n')
    .map((l, i) => ({ l: l.trim(), n: i + 1 }))
    .filter((x) => x.l);
  if (lines.length === 0) throw importError(file, JSONL_EXPECTED, 'the file is empty');
  const objs: { o: Obj; n: number }[] = [];
  for (const { l, n } of lines) {
    let o: unknown;
    try {
      o = parsePythonJson(l);
    } catch {
      const whole = (() => {
        try {
          return parsePythonJson(text);
        } catch {
          return null;
        }
      })();
      if (whole && typeof whole === 'object' && !Array.isArray(whole) && looksLikeVllm(whole as Obj)) {
        throw importError(
          file,
          'SGLang bench_serving JSONL',
          'it is a vLLM bench serve JSON result (use --from vllm)',
        );
      }
      throw importError(file, JSONL_EXPECTED, `line ${n} is not a JSON object`);
    }
    if (!o || typeof o !== 'object' || Array.isArray(o))
      throw importError(file, JSONL_EXPECTED, `line ${n} is not a JSON object`);
    const obj = o as Obj;
    if (looksLikeVllm(obj))
      throw importError(
        file,
        'SGLang bench_serving JSONL',
        `line ${n} is a vLLM bench serve result (use --from vllm)`,
      );
    const missing = REQUIRED.filter((k) => !(k in obj));
    if (missing.length)
      throw importError(file, 'SGLang bench_serving JSONL', `line ${n} lacks ${missing.join(', ')}`);
    objs.push({ o: obj, n });
  }

  const warnings: string[] = [];
  const levels: LevelSummary[] = [];
  const records: ImportedRun['records'] = [];
  const seen = new Map<string, number>();
  const origins = new Set<ItlOrigin>();
  for (const { o, n } of objs) {
    const inputLens = numArray(o.input_lens);
    const outputLens = numArray(o.output_lens);
    const ttfts = numArray(o.ttfts);
    const itls = Array.isArray(o.itls) ? (o.itls as number[][]) : null;
    const errors = Array.isArray(o.errors) ? (o.errors as string[]) : null;
    const completed = num(o.completed) ?? 0;
    const total = inputLens?.length ?? completed;
    const level = levelOf(o, total);
    const key = `${level.kind}:${level.value}:${level.maxConcurrency ?? ''}`;
    const levelIndex = n - 1;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      warnings.push(`${file}: line ${n} measured the same level as line ${earlier}; keeping the later one.`);
      levels.splice(
        levels.findIndex((l) => l.levelIndex === earlier - 1),
        1,
      );
    }
    seen.set(key, n);
    const durationS = num(o.duration) ?? Number.NaN;
    const okTtftMs = ttfts && errors ? ttfts.filter((_, i) => errors[i] === '').map((t) => t * 1000) : null;
    const accept = num(o.accept_length);
    const origin = itlOrigin(o, itls, outputLens);
    origins.add(origin);
    const itlDist = distFromKeys(o, 'itl', completed);
    levels.push(
      levelSummaryFrom({
        levelIndex,
        level,
        durationS,
        completed,
        failed: Math.max(0, total - completed),
        ttftMs: distFromKeys(o, 'ttft', completed, okTtftMs),
        tpotMs: distFromKeys(o, 'tpot', completed),
        chunkItlMs: origin === 'chunk' ? itlDist : null,
        tokenItlMs: origin === 'chunk' ? null : itlDist,
        e2eMs: distFromKeys(o, 'e2e_latency', completed),
        requestsPerS: num(o.request_throughput) ?? 0,
        inputTokensPerS: num(o.input_throughput) ?? (num(o.total_input_tokens) ?? 0) / durationS,
        outputTokensPerS: num(o.output_throughput) ?? 0,
        peakOutputTokensPerS: null,
        achievedConcurrency: num(o.concurrency),
        goodputRequestsPerS: null,
        speculative:
          accept === null
            ? null
            : {
                acceptanceLength: accept,
                source: 'metrics-gauge',
                note: 'SGLang avg_spec_accept_length from /get_server_info: server average, not this level’s',
              },
      }),
    );
    if (ttfts && itls && outputLens) {
      const chunks = origin === 'native-per-token' ? itls.map((l) => chunksFromPerTokenItls(l ?? [])) : null;
      // appended one by one: push(...records) overflows the call stack near 100k requests
      appendRecordsFromDetails(records, levelIndex, {
        ttftsS: ttfts,
        itlsS: chunks ? chunks.map((c) => c.gapsS) : itls,
        gapTokens: chunks ? chunks.map((c) => c.tokens) : null,
        outputLens,
        inputLens,
        errors,
        startsS: null,
        latenciesS: null,
      });
    }
  }
  const first = objs[0].o;
  const itlText = [...origins].map((x) => ITL_DEFINITIONS[x]).join('; or, on some lines, ');
  if (origins.size > 1)
    warnings.push(`${file} mixes per-token and per-chunk ITL across lines (see the manifest).`);
  return assembleImportedRun({
    tool: 'sglang-bench-serving',
    file,
    definitions: `SGLang bench_serving (backend ${String(first.backend)}): TTFT = send to first non-empty text chunk; ${itlText}; ${SGLANG_COMMON_DEFINITIONS}`,
    itl: origins.has('chunk') ? (origins.size === 1 ? 'chunk' : undefined) : 'token',
    name: opts.name ?? defaultImportName(file),
    levels,
    records,
    warnings,
    detailsHow: 'bench_serving with --output-details',
    workload: {
      inputTokens: num(first.random_input_len),
      outputTokens: num(first.random_output_len),
      dataset: typeof first.dataset_name === 'string' ? first.dataset_name : null,
    },
    startedAt: opts.startedAt ?? new Date(0).toISOString(),
  });
}
