// Summary statistics of one latency sample set (count, mean, std, min, max, percentiles).
// std is the POPULATION standard deviation (divide by n): it describes the requests measured,
// not an estimate for a larger population; one sample has std 0.

import { percentileKey, percentileOfSorted, sortAscending } from './percentile.js';
import type { Distribution } from './summary.js';

/** Null when there are no samples (a metric that could not be measured, never a fake 0). */
export function distribution(values: readonly number[], percentiles: readonly number[]): Distribution | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = sortAscending(values);
  let sum = 0;
  for (const v of sorted) sum += v;
  const mean = sum / n;
  let squares = 0;
  for (const v of sorted) squares += (v - mean) * (v - mean);
  const out: Record<string, number> = {};
  for (const p of percentiles) out[percentileKey(p)] = percentileOfSorted(sorted, p);
  return {
    count: n,
    mean,
    std: Math.sqrt(squares / n),
    min: sorted[0]!,
    max: sorted[n - 1]!,
    percentiles: out,
  };
}
