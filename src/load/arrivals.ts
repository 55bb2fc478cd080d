// Open-loop arrival schedules: seeded inter-arrival gaps for constant, Poisson and gamma arrivals,
// so a rate level sends at the same offsets every time it is run with the same seed.

import { gamma, type Rng, seededRng } from '../core/seeded-random.js';

export type ArrivalKind = 'constant' | 'poisson' | 'gamma';

/**
 * Returns a generator of inter-arrival gaps in ms for `ratePerS` requests per second.
 * poisson: exponential gaps; gamma: shape = burstiness, mean kept at 1/rate (shape 1 = Poisson).
 */
export function arrivalGaps(kind: ArrivalKind, ratePerS: number, seed: number, burstiness = 1): () => number {
  const meanMs = 1000 / ratePerS;
  const rng: Rng = seededRng(seed);
  if (kind === 'constant') return () => meanMs;
  if (kind === 'poisson') return () => -Math.log(1 - rng()) * meanMs;
  return () => gamma(rng, burstiness, meanMs / burstiness);
}

/** The first `count` send offsets (ms from the level start); the first request goes at 0. */
export function arrivalOffsetsMs(
  kind: ArrivalKind,
  ratePerS: number,
  count: number,
  seed: number,
  burstiness = 1,
): number[] {
  const gap = arrivalGaps(kind, ratePerS, seed, burstiness);
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < count; i++) {
    out.push(t);
    t += gap();
  }
  return out;
}
