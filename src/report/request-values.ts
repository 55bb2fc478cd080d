// Per-request quantities the bootstrap resamples, derived from raw request records with the
// project's metric definitions (metrics/request-latency.ts): TTFT = send -> first token chunk,
// E2E = send -> last token, TPOT = (E2E - TTFT) / (output tokens - 1).

import { requestLatencies } from '../metrics/request-latency.js';
import { inputTokens, outputTokens, type RequestRecord, succeeded } from '../records/request-record.js';

export interface RequestValues {
  ttftMs: number;
  ttftContentMs: number | null;
  e2eInclQueueMs: number | null;
  inputTokens: number;
  e2eMs: number;
  /** null when the request produced fewer than two tokens. */
  tpotMs: number | null;
  outputTokens: number;
  specVerifySteps: number | null;
}

/** Values of one successful, measured request; null for warmup, failed or token-less requests. */
export function requestValues(r: RequestRecord): RequestValues | null {
  if (r.warmup || !succeeded(r)) return null;
  const { ttftMs, e2eMs, tpotMs, ttftContentMs, e2eInclQueueMs } = requestLatencies(r);
  if (ttftMs === null || e2eMs === null) return null;
  return {
    ttftMs,
    ttftContentMs,
    e2eInclQueueMs,
    e2eMs,
    tpotMs,
    inputTokens: inputTokens(r),
    outputTokens: outputTokens(r),
    specVerifySteps: r.specVerifySteps,
  };
}
