// Typed reading of one imported result object: every value is checked for the type and range its key
// holds in the tool's output (counts are whole and non-negative, rates and durations non-negative and
// finite, per-request lists are lists of such numbers), and a wrong one is refused naming the file, the
// line and the key, never imported as a level (a negative tokens/s) or turned into an internal error.
// Absent keys and null (what the tools write for "not measured") read as null. numpy's NaN (the mean of
// nothing) reads as null too: it says "no value", not a wrong one.

import { BenchgateError } from '../core/errors.js';
import type { RawResult } from './import-source.js';

/** What a wrong value looked like, short and never more than 40 characters of it. */
function shown(v: unknown): string {
  if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? 'Infinity' : '-Infinity';
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

type Check = (v: number) => boolean;
const nonNegative: Check = (v) => Number.isFinite(v) && v >= 0;
const whole: Check = (v) => Number.isInteger(v) && v >= 0;

export class ResultFields {
  constructor(
    readonly file: string,
    readonly raw: RawResult,
  ) {}

  /** `file:line` of a key, the place every message names. */
  where(key: string): string {
    return `${this.file}:${this.raw.lineOf(key.replace(/\[.*$/, ''))}`;
  }

  wrong(key: string, expected: string, found: unknown): BenchgateError {
    const label = this.raw.labelOf?.(key);
    const named = label ? `"${label}" (${key})` : `"${key}"`;
    return new BenchgateError(
      'BG_E_IMPORT',
      `${this.where(key)}: ${named} must be ${expected}; found ${shown(found)}.`,
    );
  }

  /** The raw value, undefined when absent or null. */
  value(key: string): unknown {
    const v = this.raw.fields[key];
    return v === null ? undefined : v;
  }

  has(key: string): boolean {
    return this.value(key) !== undefined;
  }

  private number(key: string, ok: Check, expected: string): number | null {
    const v = this.value(key);
    if (v === undefined || (typeof v === 'number' && Number.isNaN(v))) return null;
    if (typeof v !== 'number' || !ok(v)) throw this.wrong(key, expected, v);
    return v;
  }

  /** A finite number ≥ 0 (durations, throughputs, latencies, acceptance). */
  amount(key: string): number | null {
    return this.number(key, nonNegative, 'a finite number ≥ 0');
  }

  /** A whole number ≥ 0 (requests, tokens, drafts). */
  count(key: string): number | null {
    return this.number(key, whole, 'a whole number ≥ 0');
  }

  /** A request rate: a number > 0, or unlimited (Infinity, "inf"); "trace" (a trace's own timing) reads as null. */
  rate(key: string): number | null {
    const v = this.value(key);
    if (v === 'inf' || v === 'Infinity' || v === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
    if (v === 'trace') return null;
    return this.number(key, (n) => Number.isFinite(n) && n > 0, 'a request rate > 0 or "inf"');
  }

  /** A concurrency cap: a whole number ≥ 1. */
  cap(key: string): number | null {
    return this.number(key, (n) => Number.isInteger(n) && n >= 1, 'a whole number ≥ 1');
  }

  text(key: string): string | null {
    const v = this.value(key);
    if (v === undefined) return null;
    if (typeof v !== 'string') throw this.wrong(key, 'text', v);
    return v;
  }

  private list(key: string): unknown[] | null {
    const v = this.value(key);
    if (v === undefined) return null;
    if (!Array.isArray(v)) throw this.wrong(key, 'a list', v);
    return v;
  }

  /** A list of finite numbers ≥ 0 (per-request lengths and times). */
  numbers(key: string, ok: Check = nonNegative): number[] | null {
    const v = this.list(key);
    v?.forEach((x, i) => {
      if (typeof x !== 'number' || !ok(x)) throw this.wrong(`${key}[${i}]`, 'a finite number ≥ 0', x);
    });
    return v as number[] | null;
  }

  /** A list of whole numbers ≥ 0 (per-request token counts). */
  counts(key: string): number[] | null {
    return this.numbers(key, whole);
  }

  /** A list of lists of finite numbers ≥ 0 (per-request ITL gaps); a null entry is an empty list. */
  numberLists(key: string): number[][] | null {
    const v = this.list(key);
    if (!v) return null;
    return v.map((inner, i) => {
      if (inner === null) return [];
      if (!Array.isArray(inner)) throw this.wrong(`${key}[${i}]`, 'a list of numbers', inner);
      inner.forEach((x, k) => {
        if (typeof x !== 'number' || !nonNegative(x))
          throw this.wrong(`${key}[${i}][${k}]`, 'a finite number ≥ 0', x);
      });
      return inner as number[];
    });
  }

  /** A list of texts (per-request errors); null entries read as "". */
  texts(key: string): string[] | null {
    const v = this.list(key);
    return (
      v?.map((x, i) => {
        if (x === null) return '';
        if (typeof x !== 'string') throw this.wrong(`${key}[${i}]`, 'text', x);
        return x;
      }) ?? null
    );
  }

  /** Refuses per-request lists of different lengths (one entry per request in each). */
  sameLength(lists: Record<string, readonly unknown[] | null>): void {
    const present = Object.entries(lists).filter((e): e is [string, unknown[]] => e[1] !== null);
    const [firstKey, first] = present[0] ?? [];
    for (const [key, l] of present)
      if (first && l.length !== first.length)
        throw new BenchgateError(
          'BG_E_IMPORT',
          `${this.where(key)}: "${key}" has ${l.length} entries but "${firstKey}" has ${first.length}; the per-request lists must have one entry per request.`,
        );
  }

  /** Refuses a result lacking any of `keys`, naming them. */
  require(keys: readonly string[], what: string): void {
    const missing = keys.filter((k) => !this.has(k));
    if (missing.length)
      throw new BenchgateError(
        'BG_E_IMPORT',
        `Expected ${what} in ${this.file}; the result at line ${this.raw.line} lacks ${missing.join(', ')}.`,
      );
  }
}
