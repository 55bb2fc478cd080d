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
  const v = toFactValue(value);
  if (v === undefined) return;
  facts[key] = inferred ? { value: v, source, inferred: true } : { value: v, source };
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

/** Copies every scalar field of `obj` under `prefix.` (engine-native keys). */
export function setNativeFacts(
  facts: ConfigFacts,
  prefix: string,
  obj: Record<string, unknown>,
  source: string,
): void {
  for (const [k, v] of Object.entries(obj)) setFact(facts, `${prefix}.${k}`, v, source);
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
