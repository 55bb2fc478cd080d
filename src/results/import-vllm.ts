// Maps vLLM benchmark results onto benchgate levels: benchmarks/benchmark_serving.py --save-result JSON
// (2024 – Sept 2025) and `vllm bench serve` (vllm/benchmarks/serve.py, March 2025 on), one object per
// file or one per line with --append-result, and the result table both print. Key sets by date:
//   2024-03  date, backend, model_id, tokenizer_id, best_of, use_beam_search, num_prompts, request_rate,
//            duration, completed, total_*_tokens, request/input/output_throughput, mean/median/p99
//            ttft and tpot (+ itl in June, + std in July), the per-request lists always
//   2024-08  --percentile-metrics / --metric-percentiles choose the p<N>_<metric>_ms keys (e2el too);
//            total_token_throughput replaces input_throughput (Sept); max_concurrency (Oct); goodput as
//            "request_goodput:" (the colon is in the key until July 2025); burstiness (Nov)
//   2025-03  per-request lists only with --save-detailed; bench serve adds endpoint_type and label;
//            --append-result (April); ramp_up_* (June)
//   2025-09  max_output_tokens_per_s, max_concurrent_requests, backend; failed (Oct)
//   2026-01  spec_decode_* counters; start_times with --save-detailed; rtfx (Feb)

import type { LevelKey, LevelSummary } from '../metrics/summary.js';
import type { RequestRecord } from '../records/request-record.js';
import type { ResultFields } from './import-fields.js';
import { distFromKeys, levelSummaryFrom, perSecond } from './import-level.js';
import { appendRecordsFromDetails, requestLists } from './import-records.js';

export const VLLM_DEFINITIONS =
  'vLLM bench serve: TTFT = send to first token chunk; ITL = gaps between chunks (chunk ITL); TPOT = (latency - TTFT) / ' +
  '(output tokens - 1); E2EL = send to end of response; output tokens from usage, else re-tokenised text; throughputs = ' +
  'totals / benchmark duration; spec_decode_acceptance_length = 1 + accepted / drafts from /metrics counter deltas over the ' +
  'whole benchmark; numpy percentiles.';

export const VLLM_REQUIRED = ['duration', 'completed', 'output_throughput', 'request_throughput'];

/** The level a result measured (with a note when it is inferred), or why the file cannot say. */
function levelOf(f: ResultFields, requests: number): { level: LevelKey; note?: string } | string {
  if (f.has('ramp_up_strategy')) return 'its request rate ramps up over the run (ramp_up_strategy)';
  const rate = f.rate('request_rate');
  const cap = f.cap('max_concurrency');
  if (rate !== null && Number.isFinite(rate))
    return { level: { kind: 'rate', value: rate, maxConcurrency: cap } };
  if (cap !== null) return { level: { kind: 'concurrency', value: cap } };
  if (rate !== Number.POSITIVE_INFINITY || !(requests > 0))
    return f.raw.printed
      ? 'the table does not state its request rate or concurrency (paste the "Traffic request rate:" and "Maximum request concurrency:" lines printed before it)'
      : 'it has no request_rate or max_concurrency';
  // an unlimited rate without a cap sends every request at once
  const level: LevelKey = { kind: 'concurrency', value: requests };
  if ('max_concurrency' in f.raw.fields || !f.raw.printed) return { level };
  return {
    level,
    note: `${f.where('request_rate')}: the log does not state a concurrency cap (no "Maximum request concurrency:" line); filed as concurrency ${requests}, every request at once, as vLLM sends them at rate inf without a cap.`,
  };
}

/** Failed requests: the `failed` key (Oct 2025 on), else the per-request errors, else prompts − completed. */
function failedOf(f: ResultFields, completed: number, errors: string[] | null): number {
  const failed = f.count('failed');
  if (failed !== null) return failed;
  if (errors) return errors.filter((e) => e !== '').length;
  const prompts = f.count('num_prompts');
  return prompts !== null && prompts >= completed ? prompts - completed : Number.NaN;
}

function speculativeOf(f: ResultFields): LevelSummary['speculative'] {
  const accLen = f.amount('spec_decode_acceptance_length');
  if (accLen === null) return null;
  return {
    acceptanceLength: accLen,
    source: 'metrics-counters',
    note: 'vLLM: 1 + accepted / drafts from spec_decode counter deltas over the whole benchmark',
    verifySteps: f.count('spec_decode_num_drafts') ?? undefined,
    draftTokens: f.count('spec_decode_draft_tokens') ?? undefined,
    acceptedTokens: f.count('spec_decode_accepted_tokens') ?? undefined,
  };
}

/** One vLLM result as level `levelIndex`; its rebuilt records (with --save-detailed) go to `records`. */
export function vllmLevel(
  f: ResultFields,
  levelIndex: number,
  records: RequestRecord[],
): { summary: LevelSummary; level: LevelKey | string; note?: string } {
  const d = requestLists(f);
  const completed = f.count('completed') ?? Number.NaN;
  const failed = failedOf(f, completed, d.errors);
  const level = levelOf(f, f.count('num_prompts') ?? completed + (Number.isFinite(failed) ? failed : 0));
  const durationS = f.amount('duration') ?? Number.NaN;
  const summary = levelSummaryFrom({
    levelIndex,
    level: typeof level === 'string' ? { kind: 'concurrency', value: Number.NaN } : level.level,
    durationS,
    completed,
    failed,
    ttftMs: distFromKeys(
      f,
      'ttft',
      completed,
      d.ttfts?.filter((t, i) => t > 0 && !d.errors?.[i]).map((t) => t * 1000),
    ),
    tpotMs: distFromKeys(f, 'tpot', completed),
    chunkItlMs: distFromKeys(f, 'itl', completed),
    e2eMs: distFromKeys(f, 'e2el', completed),
    requestsPerS: f.amount('request_throughput') ?? Number.NaN,
    inputTokensPerS: perSecond(f, 'input_throughput', 'total_input_tokens', durationS),
    outputTokensPerS: f.amount('output_throughput') ?? Number.NaN,
    peakOutputTokensPerS: f.amount('max_output_tokens_per_s'),
    achievedConcurrency: d.ttfts && d.itls ? busyTimeS(d.ttfts, d.itls, d.errors) / durationS : null,
    goodputRequestsPerS: f.amount('request_goodput') ?? f.amount('request_goodput:'),
    speculative: speculativeOf(f),
  });
  if (d.ttfts && d.itls && d.outputLens)
    appendRecordsFromDetails(records, levelIndex, {
      ttftsS: d.ttfts,
      itlsS: d.itls,
      outputLens: d.outputLens,
      inputLens: d.inputLens,
      errors: d.errors,
      startsS: d.starts,
    });
  return typeof level === 'string'
    ? { summary, level }
    : { summary, level: level.level, ...(level.note ? { note: level.note } : {}) };
}

/** Σ over successful requests of TTFT + Σ ITL (each request's latency), as SGLang's concurrency sums them. */
function busyTimeS(ttfts: number[], itls: number[][], errors: string[] | null): number {
  let total = 0;
  ttfts.forEach((t, i) => {
    if (errors?.[i]) return;
    total += t;
    for (const g of itls[i] ?? []) total += g;
  });
  return total;
}
