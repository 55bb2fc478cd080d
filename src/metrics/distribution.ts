// Summary statistics of one latency sample set (count, mean, std, min, max, percentiles).
// std is the POPULATION standard deviation (divide by n): it describes the requests measured,
// not an estimate for a larger population; one sample has std 0. Percentiles: see percentile.ts.

import { percentileKey, percentilesInPlace } from './percentile.js';
import type { Distribution } from './summary.js';

/** Null when there are no samples (a metric that could not be measured, never a fake 0). The input is not modified. */
export function distribution(values: ArrayLike<number>, percentiles: readonly number[]): Distribution | null {
  const n = values.length;
  if (n === 0) return null;
  const work = new Float64Array(n);
  work.set(values);
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  // Indexed loops: several times faster than for-of over millions of samples.
  for (let i = 0; i < n; i++) {
    const v = work[i]!;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (work[i]! - mean) * (work[i]! - mean);
  const atPercentile = percentilesInPlace(work, percentiles);
  const out: Record<string, number> = {};
  percentiles.forEach((p, i) => {
    out[percentileKey(p)] = atPercentile[i]!;
  });
  return { count: n, mean, std: Math.sqrt(squares / n), min, max, percentiles: out };
}
