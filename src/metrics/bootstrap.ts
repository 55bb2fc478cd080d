// Seeded percentile-bootstrap confidence interval for the ratio stat(b) / stat(a) of two independent
// samples (a = baseline, b = candidate), e.g. TTFT p99 of one run over another. Reproducible: the
// same inputs and seed give the same interval on every machine.

import { seededRng } from '../core/seeded-random.js';
import { percentileOfSorted, percentilesInPlace } from './percentile.js';
import { SampleBuffer } from './sample-buffer.js';

/** A statistic of one sample. It may reorder (e.g. sort in place) the array it is given. */
export type SampleStat = (values: Float64Array) => number;

export interface BootstrapOptions {
  /** Resamples drawn; 1000-2000 is usual. */
  iterations: number;
  seed: number;
  /** Two-sided confidence level, default 0.95. */
  confidence?: number;
}

export interface RatioCI {
  /** stat(b) / stat(a) on the full samples. */
  ratio: number;
  /** Interval bounds: percentiles (1-c)/2 and (1+c)/2 of the resampled ratios. */
  low: number;
  high: number;
  confidence: number;
  /** Resampled ratios that were finite (a resample whose stat(a) is 0 yields none). */
  iterations: number;
  /** True when the interval excludes 1 (no change). */
  significant: boolean;
}

/**
 * Resamples a and b independently with replacement `iterations` times and takes the percentile
 * interval of stat(b*) / stat(a*). Null when either sample is empty or the full-sample ratio is not
 * finite (e.g. stat(a) = 0), because no honest ratio exists then. The caller's arrays are not modified.
 */
export function bootstrapRatioCI(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  stat: SampleStat,
  opts: BootstrapOptions,
): RatioCI | null {
  if (a.length === 0 || b.length === 0) return null;
  const confidence = opts.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  }
  const ratio = stat(Float64Array.from(b)) / stat(Float64Array.from(a));
  if (!Number.isFinite(ratio)) return null;
  const rng = seededRng(opts.seed);
  const bufA = new Float64Array(a.length);
  const bufB = new Float64Array(b.length);
  const ratios = new SampleBuffer(opts.iterations);
  for (let i = 0; i < opts.iterations; i++) {
    for (let j = 0; j < a.length; j++) bufA[j] = a[Math.floor(rng() * a.length)]!;
    for (let j = 0; j < b.length; j++) bufB[j] = b[Math.floor(rng() * b.length)]!;
    const r = stat(bufB) / stat(bufA);
    if (Number.isFinite(r)) ratios.push(r);
  }
  if (ratios.length === 0) return null;
  const sorted = ratios.view().sort();
  const tail = ((1 - confidence) / 2) * 100;
  const low = percentileOfSorted(sorted, tail);
  const high = percentileOfSorted(sorted, 100 - tail);
  return { ratio, low, high, confidence, iterations: ratios.length, significant: low > 1 || high < 1 };
}

/** Arithmetic mean, for use as a bootstrap statistic. */
export const meanStat: SampleStat = (values) => {
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
};

/** The p-th percentile (linear interpolation), for use as a bootstrap statistic (reorders its input). */
export function percentileStat(p: number): SampleStat {
  return (values) => percentilesInPlace(values, [p])[0]!;
}
