// Seeded percentile-bootstrap confidence interval for the ratio of a statistic between two
// independent samples (other / baseline). Resamples are index arrays, so a statistic reads whatever
// per-request columns it needs without allocating. Written here because src/metrics/bootstrap.ts (scalar
// samples, one statistic) did not fit per-request pairs and per-side context; the two can be folded.

import { type Rng, seededRng } from '../core/seeded-random.js';

export interface RatioCI {
  /** statistic(other) / statistic(baseline) on the full samples. */
  ratio: number;
  low: number;
  high: number;
  /** The interval excludes 1. */
  significant: boolean;
}

export interface BootstrapOptions {
  iterations?: number;
  seed?: number;
  /** Two-sided confidence, default 0.95. */
  confidence?: number;
}

/** A statistic of a (re)sample given as indices into the caller's per-request columns. */
export type IndexStatistic = (indices: Uint32Array) => number;

/** Linear-interpolated quantile (q in [0, 1]) of an already sorted array. */
export function sortedQuantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** k-th smallest (0-based) of a[0..n), reordering a in place (Hoare quickselect). */
function select(a: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

/** Linear-interpolated quantile of the first n values of `scratch` (reordered in place), in O(n). */
export function quantileInPlace(scratch: Float64Array, n: number, q: number): number {
  if (n === 0) return Number.NaN;
  const pos = (n - 1) * q;
  const k = Math.floor(pos);
  const lo = select(scratch, n, k);
  if (pos === k || k + 1 >= n) return lo;
  // after selection everything right of k is >= a[k]; the next order statistic is their minimum
  let hi = Number.POSITIVE_INFINITY;
  for (let i = k + 1; i < n; i++) if (scratch[i] < hi) hi = scratch[i];
  return lo + (hi - lo) * (pos - k);
}

/** Quantile statistic over plain numbers (q in [0, 1]). */
export function quantileOf(values: ArrayLike<number>, q: number): number {
  return sortedQuantile(Float64Array.from(values).sort(), q);
}

function fillResample(out: Uint32Array, n: number, rng: Rng): void {
  for (let i = 0; i < out.length; i++) out[i] = Math.floor(rng() * n);
}

/**
 * Percentile bootstrap of statB(resample of other) / statA(resample of baseline), each side resampled
 * independently with replacement. Null when a sample is empty or the full-sample ratio is not finite.
 */
export function bootstrapRatioByIndex(
  nBaseline: number,
  nOther: number,
  statA: IndexStatistic,
  statB: IndexStatistic,
  opts: BootstrapOptions = {},
): RatioCI | null {
  if (nBaseline === 0 || nOther === 0) return null;
  const identity = (n: number) => Uint32Array.from({ length: n }, (_, i) => i);
  const base = statA(identity(nBaseline));
  const oth = statB(identity(nOther));
  const ratio = oth / base;
  if (!Number.isFinite(ratio) || base === 0) return null;
  const iterations = opts.iterations ?? 2000;
  const rng = seededRng(opts.seed ?? 1);
  const idxA = new Uint32Array(nBaseline);
  const idxB = new Uint32Array(nOther);
  const ratios = new Float64Array(iterations);
  let kept = 0;
  for (let i = 0; i < iterations; i++) {
    fillResample(idxA, nBaseline, rng);
    fillResample(idxB, nOther, rng);
    const r = statB(idxB) / statA(idxA);
    if (Number.isFinite(r)) ratios[kept++] = r;
  }
  if (kept === 0) return null;
  const sorted = ratios.subarray(0, kept).sort();
  const alpha = 1 - (opts.confidence ?? 0.95);
  const low = sortedQuantile(sorted, alpha / 2);
  const high = sortedQuantile(sorted, 1 - alpha / 2);
  return { ratio, low, high, significant: low > 1 || high < 1 };
}

/** Convenience form over plain number samples with one statistic (used for simple statistics and tests). */
export function bootstrapRatioCI(
  baseline: ArrayLike<number>,
  other: ArrayLike<number>,
  statistic: (sample: Float64Array) => number,
  opts: BootstrapOptions = {},
): RatioCI | null {
  const side = (values: ArrayLike<number>): IndexStatistic => {
    const buf = new Float64Array(values.length);
    return (idx) => {
      for (let i = 0; i < idx.length; i++) buf[i] = values[idx[i]];
      return statistic(buf);
    };
  };
  return bootstrapRatioByIndex(baseline.length, other.length, side(baseline), side(other), opts);
}
