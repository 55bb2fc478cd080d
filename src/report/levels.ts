// Aligning load levels across runs: a level is identified by its kind, value and (for rate levels)
// concurrency cap, never by its position in a plan.

import type { LevelKey } from '../metrics/summary.js';

export function levelId(k: LevelKey): string {
  return `${k.kind}:${k.value}:${k.maxConcurrency ?? ''}`;
}

export function levelLabel(k: LevelKey): string {
  if (k.kind === 'concurrency') return `c=${k.value}`;
  return `${k.value} req/s${k.maxConcurrency ? ` (cap ${k.maxConcurrency})` : ''}`;
}

/** "concurrency 16" or "rate 2 req/s": for sentences. */
export function levelWords(k: LevelKey): string {
  return k.kind === 'concurrency' ? `concurrency ${k.value}` : `rate ${levelLabel(k)}`;
}

export function compareLevelKeys(a: LevelKey, b: LevelKey): number {
  if (a.kind !== b.kind) return a.kind === 'concurrency' ? -1 : 1;
  if (a.value !== b.value) return a.value - b.value;
  return (a.maxConcurrency ?? 0) - (b.maxConcurrency ?? 0);
}
