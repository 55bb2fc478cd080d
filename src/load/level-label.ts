// The level key of one value of a plan's load section (the key and its labels live in
// records/level-key.ts, below everything that shows a level).

import type { Plan } from '../plan/schema.js';
import type { LevelKey } from '../records/level-key.js';

export { levelLabel, levelWords } from '../records/level-key.js';

/** The level key of one value of the plan's load.levels. */
export function levelKeyOf(load: Plan['load'], value: number): LevelKey {
  if (load.kind === 'concurrency') return { kind: 'concurrency', value };
  return { kind: 'rate', value, maxConcurrency: load.max_concurrency ?? null };
}
