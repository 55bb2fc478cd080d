// The load shape every bench script sends: one closed-loop level of fixed concurrency and request count,
// constant arrivals, seed 1. One home, so the scripts measure the same thing.

import type { LevelShape } from '../load/level-runner.js';

export function closedLoopShape(concurrency: number, requests: number, warmup = 0): LevelShape {
  return {
    levelIndex: 0,
    level: { kind: 'concurrency', value: concurrency },
    requests,
    durationMs: null,
    warmup,
    arrival: 'constant',
    burstiness: 1,
    seed: 1,
  };
}
