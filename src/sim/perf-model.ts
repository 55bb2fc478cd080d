// The roofline step-time model: pure functions from a profile, the served configuration and one
// scheduler step's shape to that step's duration in (simulated) milliseconds, plus the seeded
// per-position acceptance draw of speculative decoding. Formulas are documented in README.md.

import type { Rng } from '../core/seeded-random.js';
import type { SimProfile } from './profiles.js';

/** What the performance model needs from the served configuration. */
export interface ModelConfig {
  tpSize: number;
  overlap: boolean;
  spec: { numSteps: number; topk: number; numDraftTokens: number } | null;
}

export interface ForwardCost {
  memMs: number;
  computeMs: number;
  commMs: number;
  totalMs: number;
}

/** Fraction of routed experts touched when `tokens` tokens pass through an MoE layer. */
export function expertCoverage(p: SimProfile, tokens: number): number {
  if (p.expertParamsB <= 0 || p.expertActiveFraction <= 0) return 0;
  return 1 - (1 - p.expertActiveFraction) ** tokens;
}

function gpuCount(p: SimProfile, c: ModelConfig): number {
  return Math.max(1, c.tpSize || p.numGpus);
}

/** One target-model forward over `tokens` new tokens attending to `contextTokens` cached tokens. */
export function targetForwardMs(
  p: SimProfile,
  c: ModelConfig,
  tokens: number,
  contextTokens: number,
): ForwardCost {
  const gpus = gpuCount(p, c);
  const weightBytes = (p.denseParamsB + p.expertParamsB * expertCoverage(p, tokens)) * 1e9 * p.bytesPerParam;
  const kvBytes = contextTokens * p.kvBytesPerToken;
  const memMs = ((weightBytes + kvBytes) / (gpus * p.memBandwidthGBs * 1e9 * p.bandwidthEfficiency)) * 1000;
  const activeParams = (p.denseParamsB + p.expertParamsB * p.expertActiveFraction) * 1e9;
  const computeMs = ((2 * activeParams * tokens) / (gpus * p.peakTflops * 1e12 * p.computeEfficiency)) * 1000;
  const commMs = gpus > 1 ? p.commBaseMs + p.commPerTokenMs * tokens : 0;
  return { memMs, computeMs, commMs, totalMs: Math.max(memMs, computeMs) + commMs };
}

/** One draft-model pass (EAGLE head, bf16) over `tokens` tokens. */
export function draftPassMs(p: SimProfile, c: ModelConfig, tokens: number): number {
  const gpus = gpuCount(p, c);
  const memMs =
    ((p.draftParamsB * 1e9 * 2) / (gpus * p.memBandwidthGBs * 1e9 * p.bandwidthEfficiency)) * 1000;
  const computeMs =
    ((2 * p.draftParamsB * 1e9 * tokens) / (gpus * p.peakTflops * 1e12 * p.computeEfficiency)) * 1000;
  return Math.max(memMs, computeMs) + p.draftPassOverheadMs;
}

/** Host-side scheduling work for a step with `running` requests. */
export function cpuOverheadMs(p: SimProfile, c: ModelConfig, running: number): number {
  const spec = c.spec ? p.specCpuOverheadMs + p.specCpuPerDraftTokenMs * running * c.spec.numDraftTokens : 0;
  return p.cpuOverheadBaseMs + p.cpuOverheadPerReqMs * running + spec;
}

/** GPU time and host time combine serially, unless the overlap scheduler hides the host time. */
export function combineMs(gpuMs: number, cpuMs: number, overlap: boolean): number {
  return overlap ? Math.max(gpuMs, cpuMs) : gpuMs + cpuMs;
}

/** A prefill step over `tokens` prompt tokens (one chunk), for `requests` requests. */
export function prefillStepMs(
  p: SimProfile,
  c: ModelConfig,
  tokens: number,
  contextTokens: number,
  requests: number,
) {
  const gpu = targetForwardMs(p, c, tokens, contextTokens).totalMs;
  return combineMs(gpu, cpuOverheadMs(p, c, requests), c.overlap);
}

/** A decode step for `batch` running requests holding `contextTokens` tokens of KV in total. */
export function decodeStepMs(p: SimProfile, c: ModelConfig, batch: number, contextTokens: number): number {
  let gpu: number;
  if (c.spec) {
    const draft = c.spec.numSteps * draftPassMs(p, c, batch * c.spec.topk);
    const verify = targetForwardMs(p, c, batch * c.spec.numDraftTokens, contextTokens).totalMs;
    gpu = draft + verify;
  } else {
    gpu = targetForwardMs(p, c, batch, contextTokens).totalMs;
  }
  return combineMs(gpu, cpuOverheadMs(p, c, batch), c.overlap);
}

/** Acceptance probability of draft position `i` (0-based) with top-k `topk`. */
export function acceptProb(p: SimProfile, i: number, topk: number): number {
  const probs = p.acceptProbByPosition;
  const base = probs[Math.min(i, probs.length - 1)];
  return 1 - (1 - base) ** (Math.max(1, topk) ** p.topkAcceptExponent);
}

/** Accepted draft tokens for one request in one verify step: consecutive successes, seeded. */
export function drawAccepted(p: SimProfile, spec: NonNullable<ModelConfig['spec']>, rng: Rng): number {
  const maxAccepted = Math.min(spec.numSteps, spec.numDraftTokens - 1);
  let accepted = 0;
  while (accepted < maxAccepted && rng() < acceptProb(p, accepted, spec.topk)) accepted++;
  return accepted;
}
