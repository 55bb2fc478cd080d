// Plan text that reaches file names, manifests, commands and strict JSON must be text every one of them
// carries unchanged. A plan file that is not UTF-8 (a latin-1 é is the byte 0xE9) is refused at its first
// bad byte instead of being read with U+FFFD in its place; a NUL character (it ends the text in C strings
// and file names) or an unpaired UTF-16 surrogate (a YAML escape such as "\uD800", which is no character:
// jq and every UTF-8 writer refuse it) in any key or value is a plan error at that key.

import { LONE_SURROGATE } from '../core/well-formed.js';
import type { PlanPath, PlanProblem } from './problem.js';

/** Byte offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629); -1 when none. */
export function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    // the continuation bytes each lead byte needs, and the range its first continuation byte may take
    // (which rules out overlong forms, surrogates and code points past U+10FFFF)
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || x < (k === 1 ? lo : 0x80) || x > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

/** `file:line:col (top level): …` for a plan file whose bytes are not UTF-8; null when they are. */
export function encodingProblem(bytes: Buffer, file: string): string | null {
  const at = firstInvalidUtf8(bytes);
  if (at < 0) return null;
  const lineStart = bytes.lastIndexOf(0x0a, at - 1) + 1;
  const line = 1 + bytes.subarray(0, lineStart).reduce((n, x) => n + (x === 0x0a ? 1 : 0), 0);
  const col = 1 + [...bytes.subarray(lineStart, at).toString('utf8')].length;
  const hex = bytes[at]!.toString(16).toUpperCase().padStart(2, '0');
  return `${file}:${line}:${col} (top level): byte 0x${hex} is not UTF-8 (a latin-1 or other legacy encoding?); save the plan as UTF-8`;
}

/** Why a key or value cannot be carried as text, or null. Never quotes the text (it may be a secret). */
function textFault(s: string): string | null {
  const nul = s.indexOf('\u0000');
  if (nul >= 0)
    return `holds a NUL character (at character ${nul + 1}), which ends the text in file names and commands; remove it`;
  const lone = LONE_SURROGATE.exec(s);
  if (lone) {
    const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
    return `holds an unpaired UTF-16 surrogate (U+${code} at character ${lone.index + 1}), which is not a character: no UTF-8 file or strict JSON parser can carry it`;
  }
  return null;
}

/** Every key and string value of a raw plan that holds a NUL or an unpaired surrogate. */
export function textProblems(raw: unknown): PlanProblem[] {
  const out: PlanProblem[] = [];
  const stack: { value: unknown; path: PlanPath }[] = [{ value: raw, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const fault = textFault(value);
      if (fault) out.push({ path, message: fault, anchor: 'value' });
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) stack.push({ value: v, path: [...path, i] });
    } else if (value !== null && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) {
        const fault = textFault(k);
        if (fault) out.push({ path: [...path, k], message: `the key ${fault}`, anchor: 'key' });
        stack.push({ value: v, path: [...path, k] });
      }
  }
  return out;
}
