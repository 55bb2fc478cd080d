// Maps SGLang bench_serving results onto benchgate levels: the --output-file JSONL (one object per
// benchmark invocation, bare `Infinity` for an unlimited rate) of every release since July 2024, and the
// result table it prints. Key sets by release (python/sglang/bench_serving.py at each tag):
//   v0.2.0–v0.2.11   total_input, total_output, median_ttft, median_itl, output_token_throughput,
//                    benchmark_duration, mean/median_e2e_latency (no completed, no _ms suffix)
//   v0.2.12–v0.3.6   duration, completed, total_*_tokens, median_ttft_ms, median_itl_ms, output_throughput,
//                    mean/median_e2e_latency_ms
//   v0.3.6.post1     + max_concurrency
//   v0.4.1.post5     + mean/std/p99 of ttft, tpot, itl, e2e; input_throughput
//   v0.4.2           + request_throughput, concurrency
//   v0.4.3.post3     + p95_itl_ms, accept_length; v0.4.6.post5 --output-details adds the per-request lists
//   v0.5.4.post2/3   + tag, server_info, total_input_text/vision_tokens
//   v0.5.5.post2–    + total_throughput, max_output_tokens_per_s, max_concurrent_requests, p90_e2e_latency_ms
//                      (v0.5.8); request_rate "trace" for trace replay

import type { LevelKey, LevelSummary } from '../metrics/summary.js';
import type { RequestRecord } from '../records/request-record.js';
import type { ResultFields } from './import-fields.js';
import { distFromKeys, levelSummaryFrom, perSecond } from './import-level.js';
import { appendRecordsFromDetails, chunksFromPerTokenItls, requestLists } from './import-records.js';
import type { RawResult } from './import-source.js';

export const SGLANG_COMMON_DEFINITIONS =
  'TPOT = (latency - TTFT) / (output tokens - 1); E2E latency = send to last chunk; throughputs = totals / ' +
  'whole benchmark duration; concurrency = sum of latencies / duration; accept_length = the server-wide ' +
  'avg_spec_accept_length from /get_server_info (not per level); numpy percentiles.';

/** How bench_serving's ITL was measured, by backend (python/sglang/bench_serving.py at 8471c9e). */
export const ITL_DEFINITIONS: Record<ItlOrigin, string> = {
  'native-per-token':
    'ITL = per token: the native backend spreads each chunk gap over the tokens the chunk carried ' +
    '(meta_info.completion_tokens delta), one itls entry per token (token ITL)',
  'oai-retokenized':
    'ITL = per token in the aggregate figures: with an acceptance length the sglang-oai backends divide each ' +
    'chunk gap by the retokenized chunk text (token ITL); per-request itls are chunk gaps',
  chunk: 'ITL = gaps between text chunks (chunk ITL, not per token under speculative decoding)',
};

export type ItlOrigin = 'native-per-token' | 'oai-retokenized' | 'chunk';

/** Backends served by async_request_sglang_generate, whose ITL is per token. */
const NATIVE_BACKENDS = new Set(['sglang', 'sglang-native']);
const OAI_BACKENDS = new Set(['sglang-oai', 'sglang-oai-chat']);

/** The keys bench_serving wrote before v0.2.12, under the names it has used since. */
const LEGACY_KEYS: Record<string, string> = {
  total_input: 'total_input_tokens',
  total_output: 'total_output_tokens',
  total_output_retokenized: 'total_output_tokens_retokenized',
  mean_e2e_latency: 'mean_e2e_latency_ms',
  median_e2e_latency: 'median_e2e_latency_ms',
  median_ttft: 'median_ttft_ms',
  median_itl: 'median_itl_ms',
  output_token_throughput: 'output_throughput',
  benchmark_duration: 'duration',
};

export const SGLANG_REQUIRED = ['backend', 'duration', 'output_throughput', 'median_ttft_ms'];

/** A result with the pre-v0.2.12 keys renamed (each keeps the line it was read from). */
export function withCurrentSglangKeys(r: RawResult): RawResult {
  if (!Object.keys(LEGACY_KEYS).some((k) => k in r.fields)) return r;
  const fields = { ...r.fields };
  const from = new Map<string, string>();
  for (const [old, now] of Object.entries(LEGACY_KEYS))
    if (old in fields && !(now in fields)) {
      fields[now] = fields[old];
      delete fields[old];
      from.set(now, old);
    }
  return { ...r, fields, lineOf: (k) => r.lineOf(from.get(k) ?? k) };
}

/**
 * Which ITL a result carries. The native backend records one entry per token; an older bench_serving ran
 * 'sglang' through the OpenAI client (one entry per chunk): with per-request details that shows as far
 * fewer entries than tokens, and the line is then read as chunk ITL.
 */
function itlOrigin(f: ResultFields, itls: number[][] | null, outputLens: number[] | null): ItlOrigin {
  const backend = f.text('backend') ?? '';
  const accept = f.amount('accept_length');
  if (OAI_BACKENDS.has(backend)) return accept !== null && accept > 0 ? 'oai-retokenized' : 'chunk';
  if (!NATIVE_BACKENDS.has(backend)) return 'chunk';
  if (itls && outputLens) {
    let entries = 0;
    let gaps = 0;
    itls.forEach((l, i) => {
      if (l.length > 0) {
        entries += l.length;
        gaps += Math.max(0, (outputLens[i] ?? 0) - 1);
      }
    });
    if (gaps > 0 && entries < 0.9 * gaps) return 'chunk';
  }
  return 'native-per-token';
}

/** Which level a result measured (a concurrency cap with unlimited rate is closed-loop-like), or why not known. */
function levelOf(f: ResultFields, requests: number): LevelKey | string {
  const rate = f.rate('request_rate');
  const cap = f.cap('max_concurrency');
  if (rate !== null && Number.isFinite(rate)) return { kind: 'rate', value: rate, maxConcurrency: cap };
  if (cap !== null) return { kind: 'concurrency', value: cap };
  if (rate === null) return "it replays a trace's timing without a concurrency cap";
  // unlimited rate and no cap: every request sent at once
  if (requests > 0) return { kind: 'concurrency', value: requests };
  return 'it sent every request at once but does not say how many (bench_serving before v0.2.12 wrote no request count)';
}

export interface MappedLevel {
  summary: LevelSummary;
  itl: ItlOrigin;
}

/** One SGLang result as level `levelIndex`; its rebuilt records (when it has details) go to `records`. */
export function sglangLevel(
  f: ResultFields,
  levelIndex: number,
  records: RequestRecord[],
): MappedLevel & { level: LevelKey | string } {
  const d = requestLists(f);
  const completed = f.count('completed') ?? Number.NaN;
  const total = d.inputLens?.length ?? completed;
  const level = levelOf(f, total);
  const durationS = f.amount('duration') ?? Number.NaN;
  const okTtftMs =
    d.ttfts && d.errors ? d.ttfts.filter((_, i) => d.errors![i] === '').map((t) => t * 1000) : null;
  const accept = f.amount('accept_length');
  const itl = itlOrigin(f, d.itls, d.outputLens);
  const itlDist = distFromKeys(f, 'itl', completed);
  const summary = levelSummaryFrom({
    levelIndex,
    level: typeof level === 'string' ? { kind: 'concurrency', value: Number.NaN } : level,
    durationS,
    completed,
    failed: Number.isFinite(total - completed) ? Math.max(0, total - completed) : 0,
    ttftMs: distFromKeys(f, 'ttft', completed, okTtftMs),
    tpotMs: distFromKeys(f, 'tpot', completed),
    chunkItlMs: itl === 'chunk' ? itlDist : null,
    tokenItlMs: itl === 'chunk' ? null : itlDist,
    e2eMs: distFromKeys(f, 'e2e_latency', completed),
    requestsPerS: f.amount('request_throughput') ?? completed / durationS,
    inputTokensPerS: perSecond(f, 'input_throughput', 'total_input_tokens', durationS),
    outputTokensPerS: f.amount('output_throughput') ?? Number.NaN,
    peakOutputTokensPerS: f.amount('max_output_tokens_per_s'),
    achievedConcurrency: f.amount('concurrency'),
    goodputRequestsPerS: null,
    speculative:
      accept === null
        ? null
        : {
            acceptanceLength: accept,
            source: 'metrics-gauge',
            note: 'SGLang avg_spec_accept_length from /get_server_info: server average, not this level’s',
          },
  });
  if (d.ttfts && d.itls && d.outputLens) {
    const chunks = itl === 'native-per-token' ? d.itls.map((l) => chunksFromPerTokenItls(l)) : null;
    appendRecordsFromDetails(records, levelIndex, {
      ttftsS: d.ttfts,
      itlsS: chunks ? chunks.map((c) => c.gapsS) : d.itls,
      gapTokens: chunks ? chunks.map((c) => c.tokens) : null,
      outputLens: d.outputLens,
      inputLens: d.inputLens,
      errors: d.errors,
      startsS: null,
    });
  }
  return { summary, itl, level };
}
