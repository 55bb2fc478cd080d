// Percentiles by linear interpolation between order statistics (the "type 7" rule that numpy,
// Excel's PERCENTILE.INC and the vLLM/SGLang benchmark scripts use), so our p99 matches theirs.

/**
 * The p-th percentile (0 <= p <= 100) of values already sorted ascending.
 * Rank r = (p / 100) * (n - 1); the result interpolates linearly between sorted[floor(r)] and
 * sorted[ceil(r)]. One sample: every percentile is that sample. No samples: NaN.
 */
export function percentileOfSorted(sortedAsc: readonly number[], p: number): number {
  const n = sortedAsc.length;
  if (n === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const rank = (p / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const loValue = sortedAsc[lo]!;
  if (lo === hi) return loValue;
  return loValue + (sortedAsc[hi]! - loValue) * (rank - lo);
}

/** Sorts a copy ascending and returns its p-th percentile (see percentileOfSorted). */
export function percentile(values: readonly number[], p: number): number {
  return percentileOfSorted(sortAscending(values), p);
}

export function sortAscending(values: readonly number[]): number[] {
  // Typed-array sort is numeric (not lexicographic) and fast.
  return Array.from(Float64Array.from(values).sort());
}

/** The summary key for a percentile: 50 -> "p50", 99.9 -> "p99.9". */
export function percentileKey(p: number): string {
  return `p${p}`;
}
