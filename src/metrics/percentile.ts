// Percentiles by linear interpolation between order statistics (the "type 7" rule that numpy,
// Excel's PERCENTILE.INC and the vLLM/SGLang benchmark scripts use), so our p99 matches theirs.

/**
 * The p-th percentile (0 <= p <= 100) of values already sorted ascending.
 * Rank r = (p / 100) * (n - 1); the result interpolates linearly between sorted[floor(r)] and
 * sorted[ceil(r)]. One sample: every percentile is that sample. No samples: NaN.
 */
export function percentileOfSorted(sortedAsc: ArrayLike<number>, p: number): number {
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
export function percentile(values: ArrayLike<number>, p: number): number {
  return percentileOfSorted(sortAscending(values), p);
}

/** A sorted copy; typed-array sort is numeric (not lexicographic) and fast. */
export function sortAscending(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

/** The summary key for a percentile: 50 -> "p50", 99.9 -> "p99.9". */
export function percentileKey(p: number): string {
  return `p${p}`;
}

/**
 * Rearranges a[lo..hi] so that a[k] holds the value it would have if that range were sorted, with
 * nothing larger before it and nothing smaller after it (Hoare quickselect, median-of-three pivot).
 */
function selectInPlace(a: Float64Array, k: number, lo: number, hi: number): void {
  while (hi > lo) {
    const x = a[lo]!;
    const y = a[(lo + hi) >>> 1]!;
    const z = a[hi]!;
    const pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z)); // median of three
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/**
 * Several percentiles at once with the same rule as percentileOfSorted, by selection instead of a full
 * sort (linear time, which matters for millions of token-ITL samples). Reorders `values`; NaN when empty.
 */
export function percentilesInPlace(values: Float64Array, ps: readonly number[]): number[] {
  const n = values.length;
  for (const p of ps)
    if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  if (n === 0) return ps.map(() => Number.NaN);
  const order = ps.map((p, i) => ({ i, rank: (p / 100) * (n - 1) })).sort((x, y) => x.rank - y.rank);
  const out = new Array<number>(ps.length);
  let from = 0;
  for (const { i, rank } of order) {
    const k = Math.floor(rank);
    selectInPlace(values, k, from, n - 1);
    from = k;
    const loValue = values[k]!;
    if (rank === k) {
      out[i] = loValue;
      continue;
    }
    // The next order statistic is the smallest value after k.
    let hiValue = Number.POSITIVE_INFINITY;
    for (let j = k + 1; j < n; j++) if (values[j]! < hiValue) hiValue = values[j]!;
    out[i] = loValue + (hiValue - loValue) * (rank - k);
  }
  return out;
}
