// Hardware + model profiles that drive the roofline performance model (see README.md for every
// parameter), the three built-ins, and loading a profile file (YAML/JSON) with errors that name the
// key and the line.

import { readFileSync } from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { BenchgateError } from '../core/errors.js';

export interface SimProfile {
  name: string;
  /** `roofline` steps a continuous batch; `fixed` emits with constant TTFT and inter-chunk time. */
  kind: 'roofline' | 'fixed';
  modelPath: string;
  architecture: string;
  dtype: string;
  quantization: string | null;
  contextLength: number;
  numGpus: number;
  /** Per GPU. */
  memBandwidthGBs: number;
  /** Fraction of peak bandwidth a decode kernel reaches. */
  bandwidthEfficiency: number;
  /** Per GPU, dense bf16 TFLOP/s. */
  peakTflops: number;
  /** Fraction of peak compute a large forward reaches (MFU). */
  computeEfficiency: number;
  /** Parameters always read (attention, embeddings, shared experts), billions. */
  denseParamsB: number;
  /** Routed-expert parameters, billions (0 for dense models). */
  expertParamsB: number;
  /** Fraction of routed experts one token activates (top-k / num experts). */
  expertActiveFraction: number;
  bytesPerParam: number;
  /** KV-cache bytes per token of context (whole model, all GPUs). */
  kvBytesPerToken: number;
  /** KV capacity in tokens (sglang max_total_num_tokens). */
  kvCapacityTokens: number;
  /** Default max running requests when the engine flag is not set. */
  defaultMaxRunningRequests: number;
  chunkedPrefillSize: number;
  /** Tensor-parallel all-reduce: fixed cost per forward and cost per token in the forward, ms. */
  commBaseMs: number;
  commPerTokenMs: number;
  /** Host-side scheduling per step: base + per running request, ms. Hidden only by the overlap scheduler. */
  cpuOverheadBaseMs: number;
  cpuOverheadPerReqMs: number;
  /** Extra host work per speculative step (tree masks, synchronisation), ms; hidden by overlap (spec v2). */
  specCpuOverheadMs: number;
  /** Host work per draft token verified (tree masks, acceptance bookkeeping), ms; hidden by overlap. */
  specCpuPerDraftTokenMs: number;
  /** Draft model (EAGLE head) parameters, billions, and fixed cost per draft pass, ms. */
  draftParamsB: number;
  draftPassOverheadMs: number;
  /** Conditional acceptance probability of draft position 1..n (top-k 1); the last value repeats. */
  acceptProbByPosition: number[];
  /** top-k k raises each position's acceptance to 1-(1-p)^(k^topkAcceptExponent). */
  topkAcceptExponent: number;
  /** Simulated model load time before /health turns 200, seconds (divided by time scale). */
  loadTimeS: number;
  /** `fixed` profile only. */
  ttftMs: number;
  itlMs: number;
  tokensPerChunk: number;
}

const STORY: SimProfile = {
  name: 'story-moe-int4-8xpcie',
  kind: 'roofline',
  modelPath: 'Qwen/Qwen3-Coder-480B-A35B-Instruct-GPTQ-Int4',
  architecture: 'Qwen3MoeForCausalLM',
  dtype: 'bfloat16',
  quantization: 'gptq_marlin',
  contextLength: 262144,
  numGpus: 8,
  memBandwidthGBs: 864,
  bandwidthEfficiency: 0.7,
  peakTflops: 362,
  computeEfficiency: 0.3,
  denseParamsB: 14,
  expertParamsB: 466,
  expertActiveFraction: 8 / 160,
  bytesPerParam: 0.53,
  kvBytesPerToken: 253952,
  kvCapacityTokens: 315000,
  defaultMaxRunningRequests: 256,
  chunkedPrefillSize: 8192,
  commBaseMs: 3.1,
  commPerTokenMs: 0.08,
  cpuOverheadBaseMs: 2,
  cpuOverheadPerReqMs: 0.02,
  specCpuOverheadMs: 3,
  specCpuPerDraftTokenMs: 0.02,
  draftParamsB: 0.5,
  draftPassOverheadMs: 0.6,
  acceptProbByPosition: [0.9, 0.8, 0.7, 0.6],
  topkAcceptExponent: 0.35,
  loadTimeS: 600,
  ttftMs: 0,
  itlMs: 0,
  tokensPerChunk: 1,
};

const DENSE_8B: SimProfile = {
  ...STORY,
  name: 'dense-8b-1gpu',
  modelPath: 'meta-llama/Llama-3.1-8B-Instruct',
  architecture: 'LlamaForCausalLM',
  quantization: null,
  contextLength: 131072,
  numGpus: 1,
  memBandwidthGBs: 3350,
  bandwidthEfficiency: 0.75,
  peakTflops: 989,
  computeEfficiency: 0.45,
  denseParamsB: 8,
  expertParamsB: 0,
  expertActiveFraction: 0,
  bytesPerParam: 2,
  kvBytesPerToken: 131072,
  kvCapacityTokens: 450000,
  defaultMaxRunningRequests: 1024,
  commBaseMs: 0,
  commPerTokenMs: 0,
  cpuOverheadBaseMs: 1.5,
  cpuOverheadPerReqMs: 0.01,
  specCpuOverheadMs: 1.5,
  specCpuPerDraftTokenMs: 0.005,
  draftParamsB: 0.25,
  draftPassOverheadMs: 0.4,
  acceptProbByPosition: [0.8, 0.7, 0.6, 0.5],
  loadTimeS: 60,
};

const FIXED: SimProfile = {
  ...DENSE_8B,
  name: 'fixed',
  kind: 'fixed',
  modelPath: 'benchgate/fixed-timing',
  loadTimeS: 0,
  ttftMs: 50,
  itlMs: 10,
  tokensPerChunk: 1,
};

export const BUILTIN_PROFILES: Record<string, SimProfile> = {
  [STORY.name]: STORY,
  [DENSE_8B.name]: DENSE_8B,
  [FIXED.name]: FIXED,
};

export const DEFAULT_PROFILE = STORY.name;

type FieldKind = 'number' | 'string' | 'nullable-string' | 'number-list' | 'kind';

const FIELD_KINDS: Record<keyof SimProfile, FieldKind> = {
  name: 'string',
  kind: 'kind',
  modelPath: 'string',
  architecture: 'string',
  dtype: 'string',
  quantization: 'nullable-string',
  contextLength: 'number',
  numGpus: 'number',
  memBandwidthGBs: 'number',
  bandwidthEfficiency: 'number',
  peakTflops: 'number',
  computeEfficiency: 'number',
  denseParamsB: 'number',
  expertParamsB: 'number',
  expertActiveFraction: 'number',
  bytesPerParam: 'number',
  kvBytesPerToken: 'number',
  kvCapacityTokens: 'number',
  defaultMaxRunningRequests: 'number',
  chunkedPrefillSize: 'number',
  commBaseMs: 'number',
  commPerTokenMs: 'number',
  cpuOverheadBaseMs: 'number',
  cpuOverheadPerReqMs: 'number',
  specCpuOverheadMs: 'number',
  specCpuPerDraftTokenMs: 'number',
  draftParamsB: 'number',
  draftPassOverheadMs: 'number',
  acceptProbByPosition: 'number-list',
  topkAcceptExponent: 'number',
  loadTimeS: 'number',
  ttftMs: 'number',
  itlMs: 'number',
  tokensPerChunk: 'number',
};

function fieldError(
  file: string,
  line: number,
  key: string,
  expected: string,
  found: string,
): BenchgateError {
  return new BenchgateError(
    'BG_E_SIM',
    `Profile ${file}:${line}: key "${key}" expects ${expected}; found ${found}.`,
    { exitCode: 2 },
  );
}

/**
 * Reads a profile file. Top-level keys are SimProfile fields; `base: <built-in name>` (default
 * story-moe-int4-8xpcie) supplies every key not given.
 */
export function loadProfileFile(path: string): SimProfile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new BenchgateError(
      'BG_E_SIM',
      `Expected a readable profile file at ${path}; ${(e as Error).message}.`,
      {
        exitCode: 2,
      },
    );
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    const line = lc.linePos(err.pos[0]).line;
    throw new BenchgateError(
      'BG_E_SIM',
      `Profile ${path}:${line} is not valid YAML/JSON: ${err.message.split('\n')[0]}`,
      {
        exitCode: 2,
      },
    );
  }
  if (!isMap(doc.contents)) {
    throw new BenchgateError('BG_E_SIM', `Profile ${path}:1 must be a mapping of profile keys to values.`, {
      exitCode: 2,
    });
  }
  const out: Record<string, unknown> = {};
  let base = BUILTIN_PROFILES[DEFAULT_PROFILE];
  for (const pair of doc.contents.items) {
    const keyNode = pair.key;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    const line = isScalar(keyNode) && keyNode.range ? lc.linePos(keyNode.range[0]).line : 1;
    const valueNode = pair.value as { toJSON?: () => unknown } | null;
    const value =
      valueNode && typeof valueNode.toJSON === 'function' ? valueNode.toJSON() : (valueNode as unknown);
    const shown = JSON.stringify(value) ?? 'nothing';
    if (key === 'base') {
      const b = typeof value === 'string' ? BUILTIN_PROFILES[value] : undefined;
      if (!b) throw fieldError(path, line, key, `one of ${Object.keys(BUILTIN_PROFILES).join(', ')}`, shown);
      base = b;
      continue;
    }
    const kind = FIELD_KINDS[key as keyof SimProfile];
    if (!kind) {
      throw new BenchgateError(
        'BG_E_SIM',
        `Profile ${path}:${line}: unknown key "${key}" (expected one of base, ${Object.keys(FIELD_KINDS).join(', ')}).`,
        { exitCode: 2 },
      );
    }
    if (kind === 'number' && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      throw fieldError(path, line, key, 'a non-negative number', shown);
    }
    if (kind === 'string' && typeof value !== 'string') throw fieldError(path, line, key, 'a string', shown);
    if (kind === 'nullable-string' && value !== null && typeof value !== 'string') {
      throw fieldError(path, line, key, 'a string or null', shown);
    }
    if (kind === 'kind' && value !== 'roofline' && value !== 'fixed') {
      throw fieldError(path, line, key, '"roofline" or "fixed"', shown);
    }
    if (
      kind === 'number-list' &&
      !(
        Array.isArray(value) &&
        value.length > 0 &&
        value.every((v) => typeof v === 'number' && v >= 0 && v <= 1)
      )
    ) {
      throw fieldError(path, line, key, 'a non-empty list of probabilities in [0, 1]', shown);
    }
    out[key] = value;
  }
  return { ...base, name: path, ...out } as SimProfile;
}

/** A built-in profile by name, or a profile file by path. */
export function resolveProfile(nameOrPath: string | undefined): SimProfile {
  const name = nameOrPath ?? DEFAULT_PROFILE;
  const builtin = BUILTIN_PROFILES[name];
  if (builtin) return { ...builtin, acceptProbByPosition: [...builtin.acceptProbByPosition] };
  if (/\.(ya?ml|json)$/i.test(name) || name.includes('/')) return loadProfileFile(name);
  throw new BenchgateError(
    'BG_E_USAGE',
    `Expected --profile to be one of ${Object.keys(BUILTIN_PROFILES).join(', ')} or a .yaml/.json file; found "${name}".`,
  );
}
