// Helpers to build ConfigFacts: a fact is only recorded when its value is known, and always with
// where it came from. Unknown stays absent (never false), per the engines contract.

import type { ConfigFact, ConfigFacts } from './types.js';

export type FactValue = ConfigFact['value'];

/** Sets `key` when `value` is not undefined. `null` is kept (the engine said "none"). */
export function setFact(
  facts: ConfigFacts,
  key: string,
  value: unknown,
  source: string,
  inferred = false,
): void {
  const v = canonicalFactValue(key, toFactValue(key === 'served_model_name' ? firstName(value) : value));
  if (v === undefined) return;
  facts[key] = inferred ? { value: v, source, inferred: true } : { value: v, source };
}

/** `torch.float16`, `Float16` (TGI's Rust enum), `half`, `fp16` → `float16`; likewise bfloat16 / float32. */
const DTYPE_ALIASES: Record<string, string> = {
  half: 'float16',
  fp16: 'float16',
  f16: 'float16',
  bf16: 'bfloat16',
  float: 'float32',
  fp32: 'float32',
  f32: 'float32',
};

export function canonicalDtype(v: string): string {
  const t = v
    .trim()
    .replace(/^torch\./, '')
    .toLowerCase();
  return DTYPE_ALIASES[t] ?? t;
}

/**
 * Speculative algorithm names that are another's alias: SGLang rewrites `NEXTN` to `EAGLE` as it starts
 * ("NEXTN shares the same implementation of EAGLE", ServerArgs, every release 0.4–0.5.x), so its live
 * endpoints and log say EAGLE for a server started with NEXTN.
 */
const ALGORITHM_ALIASES: Record<string, string> = { NEXTN: 'EAGLE' };

/**
 * vLLM's model-specific MTP methods (`deepseek_mtp`, `qwen3_next_mtp`, `gemma4_mtp` … 24 at main
 * 2026-08-18) are rewritten to `mtp` as its SpeculativeConfig is built, with a deprecation warning,
 * since 2025-09-26 (c70ac4b8f, #25232, vllm/config/speculative.py): its config line says `mtp` for a
 * server started with `deepseek_mtp`. Any `<model>_MTP` reads as `MTP`, but SGLang's FROZEN_KV_MTP,
 * a different algorithm.
 */
function mtpAlias(name: string): string | null {
  return name.endsWith('_MTP') && name !== 'FROZEN_KV_MTP' ? 'MTP' : null;
}

/**
 * Algorithms an engine runs in place of the one asked for, by its own rule: an expectation of a name in
 * `for` is met by this one, and the finding says why. SGLang promotes EAGLE and NEXTN to FROZEN_KV_MTP
 * when the draft is a Gemma4 assistant model (2026-05-07 on, d2c103416; speculative_hook.py logs
 * "promoting --speculative-algorithm X to FROZEN_KV_MTP").
 */
export const ALGORITHM_PROMOTIONS: Record<string, { for: string[]; why: string }> = {
  FROZEN_KV_MTP: {
    for: ['EAGLE'],
    why: 'SGLang runs EAGLE and NEXTN as FROZEN_KV_MTP for a Gemma4 assistant draft',
  },
};

/**
 * One value form per normalised key, whichever engine it came from (see docs/normalised-keys.md):
 * speculative.algorithm upper-case (`EAGLE3` on SGLang and vLLM alike) with aliases resolved, dtype in
 * PyTorch's short lower-case names, quantization lower-case. Other keys and non-string values are
 * returned as given.
 */
export function canonicalFactValue<T extends FactValue | undefined>(key: string, value: T): T {
  if (typeof value !== 'string') return value;
  if (key === 'speculative.algorithm' || key === 'speculative.algorithm_if_active') {
    const name = value.trim().toUpperCase();
    return (ALGORITHM_ALIASES[name] ?? mtpAlias(name) ?? name) as T;
  }
  if (key === 'dtype') return canonicalDtype(value) as T;
  if (key === 'served_model_name') return (listReprFirst(value) ?? value) as T;
  if (key === 'quantization') return value.trim().toLowerCase() as T;
  return value;
}

/** A served-name list (vLLM and SGLang take several) is read as its first name, the one the server reports. */
function firstName(value: unknown): unknown {
  return Array.isArray(value) && value.length > 0 && typeof value[0] === 'string' ? value[0] : value;
}

/**
 * The first name of a list printed as text: Python's `['name']` (a Namespace that kept the list as a
 * string) or JSON's `["name"]`. Null for any other text: a name never starts with a bracket.
 */
function listReprFirst(value: string): string | null {
  const m = /^\s*\[\s*(['"])([^'"]+)\1\s*(?:,\s*(['"])[^'"]*\3\s*)*\]\s*$/.exec(value.slice(0, 1000));
  return m ? m[2] : null;
}

/** Keys whose canonical form folds case: an expectation written in another case still matches. */
export function keyFoldsCase(key: string): boolean {
  return key === 'speculative.algorithm' || key === 'dtype' || key === 'quantization';
}

/** Like setFact, but never overwrites a key already known (earlier sources win). */
export function setFactIfAbsent(facts: ConfigFacts, key: string, value: unknown, source: string): void {
  if (key in facts) return;
  setFact(facts, key, value, source);
}

/** Converts a parsed value to a fact value; objects and arrays become compact JSON strings. */
export function toFactValue(value: unknown): FactValue | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return Number(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/**
 * Copies every field of `obj` under `prefix.` (engine-native keys); nested objects (a JSON-valued flag
 * such as `--speculative-config`) become nested keys (`vllm.speculative_config.method`), arrays stay
 * compact JSON.
 */
export function setNativeFacts(
  facts: ConfigFacts,
  prefix: string,
  obj: Record<string, unknown>,
  source: string,
  depth = 0,
): void {
  for (const [k, v] of Object.entries(obj)) {
    if (isRecord(v) && depth < 4 && !('__call__' in v))
      setNativeFacts(facts, `${prefix}.${k}`, v, source, depth + 1);
    else setFact(facts, `${prefix}.${k}`, v, source);
  }
}

/** Adds the facts of `extra` whose keys `target` does not know yet (what `target` knows wins). */
export function addMissingFacts(target: ConfigFacts, extra: ConfigFacts): void {
  for (const [k, f] of Object.entries(extra)) if (!(k in target)) target[k] = f;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A number from a number or numeric string; undefined otherwise. */
export function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** A boolean from a boolean or 'true'/'false'/'True'/'False' string. */
export function asBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === '1') return true;
    if (s === 'false' || s === '0') return false;
  }
  return undefined;
}
