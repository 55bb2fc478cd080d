// The one home of a load level's identity and its labels: the key built from the plan's load section,
// the short label for tables and logs ("c=16", "2 req/s (cap 8)") and the words for sentences
// ("concurrency 16", "rate 2 req/s"). Reports, progress, the matrix and previews all use these.

import type { LevelKey } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';

/** The level key of one value of the plan's load.levels. */
export function levelKeyOf(load: Plan['load'], value: number): LevelKey {
  if (load.kind === 'concurrency') return { kind: 'concurrency', value };
  return { kind: 'rate', value, maxConcurrency: load.max_concurrency ?? null };
}

/** "c=16" or "2 req/s (cap 8)": for tables and log lines. */
export function levelLabel(k: LevelKey): string {
  if (k.kind === 'concurrency') return `c=${k.value}`;
  return `${k.value} req/s${k.maxConcurrency ? ` (cap ${k.maxConcurrency})` : ''}`;
}

/** "concurrency 16" or "rate 2 req/s": for sentences and progress. */
export function levelWords(k: LevelKey): string {
  return k.kind === 'concurrency' ? `concurrency ${k.value}` : `rate ${levelLabel(k)}`;
}
