// Seeded percentile-bootstrap confidence interval for the ratio of a statistic between two
// independent samples (other / baseline). Written here because src/metrics/bootstrap.ts did not exist
// yet when the report module needed it; the two can be folded together.

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

/** Draws a with-replacement resample of `values` into `out` (same length). */
function resample<T>(values: readonly T[], out: T[], rng: Rng): T[] {
  const n = values.length;
  for (let i = 0; i < n; i++) out[i] = values[Math.floor(rng() * n)];
  return out;
}

/** Linear-interpolated quantile (q in [0, 1]) of an already sorted array. */
export function sortedQuantile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export type Statistic<T> = (sample: readonly T[]) => number;

/**
 * Percentile bootstrap of statistic(other)/statistic(baseline), each sample resampled independently.
 * `statistic` may differ per side (e.g. each closes over its own level's measured window).
 * Returns null when either sample is empty or the full-sample baseline statistic is 0 or not finite.
 */
export function bootstrapRatioCI<T>(
  baseline: readonly T[],
  other: readonly T[],
  statistic: Statistic<T> | { baseline: Statistic<T>; other: Statistic<T> },
  opts: BootstrapOptions = {},
): RatioCI | null {
  if (baseline.length === 0 || other.length === 0) return null;
  const statA = typeof statistic === 'function' ? statistic : statistic.baseline;
  const statB = typeof statistic === 'function' ? statistic : statistic.other;
  const base = statA(baseline);
  const oth = statB(other);
  if (!Number.isFinite(base) || !Number.isFinite(oth) || base === 0) return null;
  const iterations = opts.iterations ?? 2000;
  const rng = seededRng(opts.seed ?? 1);
  const bufA: T[] = new Array(baseline.length);
  const bufB: T[] = new Array(other.length);
  const ratios = new Float64Array(iterations);
  let kept = 0;
  for (let i = 0; i < iterations; i++) {
    const a = statA(resample(baseline, bufA, rng));
    const b = statB(resample(other, bufB, rng));
    const r = b / a;
    if (Number.isFinite(r)) ratios[kept++] = r;
  }
  if (kept === 0) return null;
  const sorted = ratios.subarray(0, kept).sort();
  const alpha = 1 - (opts.confidence ?? 0.95);
  const low = sortedQuantile(sorted, alpha / 2);
  const high = sortedQuantile(sorted, 1 - alpha / 2);
  return { ratio: oth / base, low, high, significant: low > 1 || high < 1 };
}

/** Quantile statistic over numbers (used for latency percentiles); q in [0, 1]. */
export function quantileOf(values: readonly number[], q: number): number {
  return sortedQuantile(Float64Array.from(values).sort(), q);
}
