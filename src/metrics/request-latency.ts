// Per-request latency figures derived from one record's raw monotonic timestamps. Definitions:
//   TTFT            = first token-carrying chunk − sent          TTFT-content = first visible content − sent
//   E2E             = last token-carrying chunk − sent           E2E incl. queue = last token chunk − scheduled
//   queue wait      = sent − scheduled                           TPOT = (E2E − TTFT) / (output tokens − 1)
//   chunk ITL       = each gap between consecutive token-carrying chunks (one sample per gap)
//   token ITL       = a chunk carrying k tokens after a gap g contributes k samples of g / k; the first chunk's
//                     k − 1 extra tokens arrived with the first token and contribute k − 1 samples of 0 ms.
//                     So per request, mean token ITL = (last − first chunk) / (Σ chunk tokens − 1) = TPOT
//                     whenever the chunk tokens add up to the output count, also under speculative decoding.
// Token counts per chunk are rounded to the nearest integer and taken as at least 1.

import { outputTokens, type RequestRecord } from '../records/request-record.js';

/** Where samples go: a plain array or a SampleBuffer. */
export interface SampleSink {
  push(value: number): unknown;
}

export interface RequestLatencies {
  /** Null when the request carried no token. */
  ttftMs: number | null;
  ttftContentMs: number | null;
  e2eMs: number | null;
  e2eInclQueueMs: number | null;
  queueWaitMs: number;
  /** Null when the request has fewer than 2 output tokens (no decode phase to measure). */
  tpotMs: number | null;
}

export function requestLatencies(r: RequestRecord): RequestLatencies {
  const n = r.chunkMs.length;
  const firstMs = n > 0 ? r.chunkMs[0]! : null;
  const lastMs = n > 0 ? r.chunkMs[n - 1]! : null;
  const ttftMs = firstMs === null ? null : firstMs - r.sentMs;
  const e2eMs = lastMs === null ? null : lastMs - r.sentMs;
  const tokens = outputTokens(r);
  const tpotMs = ttftMs !== null && e2eMs !== null && tokens > 1 ? (e2eMs - ttftMs) / (tokens - 1) : null;
  return {
    ttftMs,
    ttftContentMs: r.firstContentMs === null ? null : r.firstContentMs - r.sentMs,
    e2eMs,
    e2eInclQueueMs: lastMs === null ? null : lastMs - r.scheduledMs,
    queueWaitMs: r.sentMs - r.scheduledMs,
    tpotMs,
  };
}

/** Tokens a chunk counts for in token ITL: nearest integer, at least 1. */
export function chunkTokenCount(carried: number): number {
  return Math.max(1, Math.round(carried));
}

/** Appends this request's chunk ITL samples (one per gap between token-carrying chunks) to `out`. */
export function pushChunkItlMs(r: RequestRecord, out: SampleSink): void {
  for (let i = 1; i < r.chunkMs.length; i++) out.push(r.chunkMs[i]! - r.chunkMs[i - 1]!);
}

/** Appends this request's token ITL samples (see the header for the exact rule) to `out`. */
export function pushTokenItlMs(r: RequestRecord, out: SampleSink): void {
  const n = r.chunkMs.length;
  if (n === 0) return;
  const firstExtra = chunkTokenCount(r.chunkTokens[0] ?? 1) - 1;
  for (let j = 0; j < firstExtra; j++) out.push(0);
  for (let i = 1; i < n; i++) {
    const k = chunkTokenCount(r.chunkTokens[i] ?? 1);
    const perTokenMs = (r.chunkMs[i]! - r.chunkMs[i - 1]!) / k;
    for (let j = 0; j < k; j++) out.push(perTokenMs);
  }
}
