// Aligning load levels across runs: a level is identified by its kind, value and (for rate levels)
// concurrency cap, never by its position in a plan.

import type { LevelKey } from '../records/level-key.js';

export { levelId, levelLabel, levelWords } from '../records/level-key.js';

export function compareLevelKeys(a: LevelKey, b: LevelKey): number {
  if (a.kind !== b.kind) return a.kind === 'concurrency' ? -1 : 1;
  if (a.value !== b.value) return a.value - b.value;
  return (a.maxConcurrency ?? 0) - (b.maxConcurrency ?? 0);
}
