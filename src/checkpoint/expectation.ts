// Judges one config expectation (equals, one_of, >=, <=, regex, present, absent) against a fact.
// Pure: a missing fact is "unknown", never false; the caller decides what unknown means.

import {
  ALGORITHM_PROMOTIONS,
  canonicalFactValue,
  asNumber as factNumber,
  keyFoldsCase,
} from '../engines/facts.js';
import type { ConfigFact } from '../engines/types.js';
import type { Expectation } from '../plan/schema.js';

type Scalar = string | number | boolean | null;

export type Verdict = { outcome: 'pass' | 'fail' | 'unknown'; expected: string; found: string };

/** Human form of an expectation, e.g. `>= 8`, `one of [1, 4]`, `EAGLE3`. */
export function describeExpectation(e: Expectation): string {
  if (e === null || typeof e !== 'object') return JSON.stringify(e);
  if ('equals' in e) return JSON.stringify(e.equals);
  if ('one_of' in e) return `one of ${JSON.stringify(e.one_of)}`;
  if ('>=' in e) return `>= ${e['>=']}`;
  if ('<=' in e) return `<= ${e['<=']}`;
  if ('regex' in e) return `matches /${e.regex}/`;
  if ('present' in e) return 'present';
  return 'absent';
}

function asNumber(v: Scalar): number | null {
  return factNumber(v) ?? null;
}

function asBool(v: Scalar): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
  }
  return null;
}

/** Equality across the spellings engines use: "8" equals 8, "True" equals true; strings compare exactly. */
export function valuesEqual(expected: Scalar, found: Scalar): boolean {
  if (expected === null || found === null) return expected === found;
  if (typeof expected === 'boolean') return asBool(found) === expected;
  if (typeof expected === 'number') return asNumber(found) === expected;
  if (typeof found === 'boolean') return asBool(expected) === found;
  if (typeof found === 'number') return asNumber(expected) === found;
  return expected === found;
}

/** The expectation with its values in the key's canonical form (`eagle3` → `EAGLE3`, `torch.float16` → `float16`). */
function canonicalExpectation(e: Expectation, key: string | undefined): Expectation {
  if (key === undefined) return e;
  const c = (x: Scalar): Scalar => canonicalFactValue(key, x);
  if (e === null || typeof e !== 'object') return c(e);
  if ('equals' in e) return { equals: c(e.equals) };
  if ('one_of' in e) return { one_of: e.one_of.map(c) };
  return e;
}

/** Why `value` meets `e` as the engine's own promotion of an expected algorithm; null when it does not. */
function promotionMeeting(e: Expectation, value: Scalar, key: string | undefined): string | null {
  if (key !== 'speculative.algorithm' || typeof value !== 'string') return null;
  const rule = ALGORITHM_PROMOTIONS[value];
  if (!rule) return null;
  const wanted =
    e !== null && typeof e === 'object' ? ('equals' in e ? [e.equals] : 'one_of' in e ? e.one_of : []) : [e];
  return wanted.some((w) => typeof w === 'string' && rule.for.includes(w)) ? rule.why : null;
}

/**
 * Judges `e` against `fact` (the fact read for normalised `key`, when given: expected values are put
 * in the key's canonical form first, and regexes on case-folding keys ignore case). A fact never read
 * is unknown for every expectation, `absent` included: absent means the engine said "none" (null).
 */
export function judgeExpectation(e0: Expectation, fact: ConfigFact | undefined, key?: string): Verdict {
  const e = canonicalExpectation(e0, key);
  const expected = describeExpectation(e0);
  const known = fact !== undefined;
  const value = fact?.value ?? null;
  const found = known ? JSON.stringify(value) : 'unknown';
  const verdict = (ok: boolean): Verdict => ({ outcome: ok ? 'pass' : 'fail', expected, found });
  if (!known) return { outcome: 'unknown', expected, found };
  if (e !== null && typeof e === 'object' && 'absent' in e) return verdict(value === null);
  if (e !== null && typeof e === 'object' && 'present' in e) {
    return known ? verdict(value !== null) : { outcome: 'unknown', expected, found };
  }
  if (!known) return { outcome: 'unknown', expected, found };
  const promoted = promotionMeeting(e, value, key);
  if (promoted) return { outcome: 'pass', expected, found: `${found} (${promoted})` };
  if (e === null || typeof e !== 'object') return verdict(valuesEqual(e, value));
  if ('equals' in e) return verdict(valuesEqual(e.equals, value));
  if ('one_of' in e) return verdict(e.one_of.some((x) => valuesEqual(x, value)));
  if ('>=' in e) {
    const n = asNumber(value);
    return verdict(n !== null && n >= e['>=']);
  }
  if ('<=' in e) {
    const n = asNumber(value);
    return verdict(n !== null && n <= e['<=']);
  }
  let re: RegExp;
  try {
    re = new RegExp(e.regex, key !== undefined && keyFoldsCase(key) ? 'i' : '');
  } catch {
    return { outcome: 'fail', expected, found: `${found} (the regex is invalid)` };
  }
  return verdict(value !== null && re.test(String(value)));
}
