// The measured window of a level and the rates computed over it.
// Measured window: from the earliest `sentMs` to the latest `endMs` over the level's MEASURED records
// (every non-warmup record, failed ones included, because they occupied the server and the client).
// Warmup records never move the window, even when they overlap it. An empty level has a 0 s window,
// and every rate over a 0 s window is reported as 0 (nothing measurable), never Infinity or NaN.

import type { RequestRecord } from '../records/request-record.js';

export interface MeasuredWindow {
  startMs: number;
  endMs: number;
  durationS: number;
}

export function measuredWindow(measured: readonly RequestRecord[]): MeasuredWindow {
  if (measured.length === 0) return { startMs: 0, endMs: 0, durationS: 0 };
  let startMs = Number.POSITIVE_INFINITY;
  let endMs = Number.NEGATIVE_INFINITY;
  for (const r of measured) {
    if (r.sentMs < startMs) startMs = r.sentMs;
    if (r.endMs > endMs) endMs = r.endMs;
  }
  return { startMs, endMs, durationS: Math.max(0, endMs - startMs) / 1000 };
}

/** count / window seconds; 0 over an empty window. */
export function perSecond(count: number, window: MeasuredWindow): number {
  return window.durationS > 0 ? count / window.durationS : 0;
}

/**
 * Highest output tokens per second in 1 s buckets: buckets start at the window start; each chunk's tokens
 * count in the bucket of its arrival time (tokens, not chunks, so speculative multi-token chunks count fully).
 * Only full buckets compete; the trailing partial bucket is not extrapolated. A window shorter than 1 s has
 * no full bucket, and its peak is its average (tokens / window length).
 */
export function peakOutputTokensPerS(records: readonly RequestRecord[], window: MeasuredWindow): number {
  if (window.durationS <= 0) return 0;
  const fullBuckets = Math.floor(window.durationS);
  if (fullBuckets === 0) {
    let tokens = 0;
    for (const r of records) for (const k of r.chunkTokens) tokens += k;
    return tokens / window.durationS;
  }
  const buckets = new Float64Array(fullBuckets);
  for (const r of records) {
    for (let i = 0; i < r.chunkMs.length; i++) {
      const b = Math.floor((r.chunkMs[i]! - window.startMs) / 1000);
      if (b >= 0 && b < fullBuckets) buckets[b]! += r.chunkTokens[i] ?? 0;
    }
  }
  let peak = 0;
  for (const v of buckets) if (v > peak) peak = v;
  return peak;
}

/**
 * Time-weighted mean number of measured requests in flight (from `sentMs` to `endMs`, failed ones included)
 * over the window: Σ in-flight durations / window duration. 0 over an empty window.
 */
export function achievedConcurrency(measured: readonly RequestRecord[], window: MeasuredWindow): number {
  if (window.durationS <= 0) return 0;
  let busyMs = 0;
  for (const r of measured) {
    const from = Math.max(r.sentMs, window.startMs);
    const to = Math.min(r.endMs, window.endMs);
    if (to > from) busyMs += to - from;
  }
  return busyMs / (window.durationS * 1000);
}
