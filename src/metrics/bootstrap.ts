// Seeded percentile-bootstrap confidence interval for the ratio stat(other) / stat(baseline) of two
// independent samples, e.g. TTFT p99 of one run over another. Reproducible: the same inputs and seed give
// the same interval on every machine. The one bootstrap of the project (report/ resamples through it);
// samples made of repeated trials are resampled by bootstrap-trials.ts, of which one trial is this.

import { bootstrapRatioGrouped, type Resampling } from './bootstrap-trials.js';
import { percentilesInPlace } from './percentile.js';

export { bootstrapRatioGrouped, type Resampling } from './bootstrap-trials.js';

/** A statistic of one sample. It may reorder (e.g. sort in place) the array it is given. */
export type SampleStat = (values: Float64Array) => number;

/**
 * A statistic of a (re)sample given as indices into the caller's per-request columns, so one statistic
 * can read several columns and fixed per-side context without copying values.
 */
export type IndexStatistic = (indices: Uint32Array) => number;

export interface BootstrapOptions {
  /** Resamples drawn; 1000-2000 is usual. */
  iterations: number;
  seed: number;
  /** Two-sided confidence level, default 0.95. */
  confidence?: number;
  /**
   * Grouped samples only: group i of one side and group i of the other ran as one interleaved round
   * (trial i of A, then trial i of B), so rounds are resampled as pairs. Ignored unless both sides have
   * the same number of groups, two or more.
   */
  paired?: boolean;
}

export interface RatioCI {
  /** stat(other) / stat(baseline) on the full samples. */
  ratio: number;
  /** Interval bounds: percentiles (1-c)/2 and (1+c)/2 of the resampled ratios. */
  low: number;
  high: number;
  confidence: number;
  /** Resampled ratios that were finite (a resample whose baseline statistic is 0 yields none). */
  iterations: number;
  /** True when the interval excludes 1 (no change). */
  significant: boolean;
  /** How the samples were resampled (bootstrap-trials.ts). */
  resampling: Resampling;
}

/**
 * Resamples indices 0..nBaseline-1 and 0..nOther-1 independently with replacement `iterations` times and
 * takes the percentile interval of statOther(resample) / statBaseline(resample). Null when either sample
 * is empty or the full-sample ratio is not finite (e.g. a zero baseline), because no honest ratio exists.
 */
export function bootstrapRatioByIndex(
  nBaseline: number,
  nOther: number,
  statBaseline: IndexStatistic,
  statOther: IndexStatistic,
  opts: BootstrapOptions,
): RatioCI | null {
  return bootstrapRatioGrouped([nBaseline], [nOther], statBaseline, statOther, opts);
}

/** Wraps a statistic of plain values as an index statistic over `values` (reusing one scratch buffer). */
function indexedSample(values: ArrayLike<number>, stat: SampleStat): IndexStatistic {
  const scratch = new Float64Array(values.length);
  return (indices) => {
    for (let i = 0; i < indices.length; i++) scratch[i] = values[indices[i]!]!;
    return stat(scratch.subarray(0, indices.length));
  };
}

/**
 * The same interval over plain number samples with one statistic: stat(b) / stat(a), a the baseline.
 * The caller's arrays are not modified.
 */
export function bootstrapRatioCI(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  stat: SampleStat,
  opts: BootstrapOptions,
): RatioCI | null {
  return bootstrapRatioByIndex(a.length, b.length, indexedSample(a, stat), indexedSample(b, stat), opts);
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
