// Greedy (temperature 0) output of the simulated model: the token at each position is a pure function
// of the prompt, so the same prompt gives the same tokens under every configuration (speculative
// decoding is lossless), and the `spec-diverge=POS` fault can corrupt them from a position onwards.

import { VOCAB_SIZE } from './tokenizer.js';

/** A 32-bit FNV-1a hash of a prompt's text or ids, the key its greedy output is derived from. */
export function promptKey(prompt: unknown): number {
  const s = typeof prompt === 'string' ? prompt : JSON.stringify(prompt ?? null);
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

function mix(a: number, b: number): number {
  let t = (a ^ Math.imul(b + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  t = Math.imul(t ^ (t >>> 16), 0x7feb352d) >>> 0;
  t = Math.imul(t ^ (t >>> 15), 0x846ca68b) >>> 0;
  return (t ^ (t >>> 16)) >>> 0;
}

/** The greedy token id at output position `pos` (0-based) for a prompt key. */
export function greedyTokenId(key: number, pos: number): number {
  return mix(key, pos) % VOCAB_SIZE;
}

/**
 * The greedy ids for `count` tokens starting at output position `firstPos`; from `divergeAt` on
 * (when not null) each id is replaced by a different one, as a broken draft path would emit.
 */
export function greedyTokenIds(
  key: number,
  firstPos: number,
  count: number,
  divergeAt: number | null,
): number[] {
  const ids = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const pos = firstPos + i;
    const id = greedyTokenId(key, pos);
    ids[i] =
      divergeAt !== null && pos >= divergeAt
        ? (id + 1 + (mix(key ^ 0x5bd1e995, pos) % (VOCAB_SIZE - 1))) % VOCAB_SIZE
        : id;
  }
  return ids;
}
