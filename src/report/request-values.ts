// Per-request quantities the bootstrap resamples, derived from raw request records with the
// project's metric definitions (DESIGN.md): TTFT = send -> first token chunk, E2E = send -> last token,
// TPOT = (E2E - TTFT) / (output tokens - 1).

import { outputTokens, type RequestRecord, succeeded } from '../client/record.js';

export interface RequestValues {
  ttftMs: number;
  e2eMs: number;
  /** null when the request produced fewer than two tokens. */
  tpotMs: number | null;
  outputTokens: number;
  specVerifySteps: number | null;
}

/** Values of one successful, measured request; null for warmup, failed or token-less requests. */
export function requestValues(r: RequestRecord): RequestValues | null {
  if (r.warmup || !succeeded(r) || r.chunkMs.length === 0) return null;
  const ttftMs = r.chunkMs[0] - r.sentMs;
  const e2eMs = r.chunkMs[r.chunkMs.length - 1] - r.sentMs;
  const out = outputTokens(r);
  return {
    ttftMs,
    e2eMs,
    tpotMs: out > 1 ? (e2eMs - ttftMs) / (out - 1) : null,
    outputTokens: out,
    specVerifySteps: r.specVerifySteps,
  };
}
