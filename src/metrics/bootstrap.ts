// Seeded percentile-bootstrap confidence interval for the ratio stat(other) / stat(baseline) of two
// independent samples, e.g. TTFT p99 of one run over another. Reproducible: the same inputs and seed give
// the same interval on every machine. The one bootstrap of the project (report/ resamples through it).
// A sample made of repeated trials is resampled hierarchically: trials with replacement, then requests
// within each drawn trial, so the variance between trials (runs) is inside the interval; one trial is
// the plain request bootstrap, draw for draw.

import { seededRng } from '../core/seeded-random.js';
import { percentileOfSorted, percentilesInPlace } from './percentile.js';

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
}

function identityIndices(n: number): Uint32Array {
  return Uint32Array.from({ length: n }, (_, i) => i);
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

/** Draws one resample of a grouped sample into `out`; returns its length. */
type Resampler = (rng: () => number, out: Uint32Array) => number;

/**
 * Groups of sizes `sizes` laid out one after another (group g holds indices offset_g … offset_g+size_g−1).
 * One group: n indices uniformly. Several: as many groups drawn with replacement, then, for each drawn
 * group, as many indices as it holds drawn uniformly within it.
 */
function resampler(sizes: readonly number[]): { total: number; maxLength: number; draw: Resampler } {
  const offsets: number[] = [];
  let total = 0;
  for (const n of sizes) {
    offsets.push(total);
    total += n;
  }
  if (sizes.length === 1)
    return {
      total,
      maxLength: total,
      draw: (rng, out) => {
        for (let j = 0; j < total; j++) out[j] = Math.floor(rng() * total);
        return total;
      },
    };
  const g = sizes.length;
  return {
    total,
    maxLength: g * Math.max(...sizes),
    draw: (rng, out) => {
      let k = 0;
      for (let i = 0; i < g; i++) {
        const pick = Math.floor(rng() * g);
        const size = sizes[pick];
        const offset = offsets[pick];
        for (let j = 0; j < size; j++) out[k++] = offset + Math.floor(rng() * size);
      }
      return k;
    },
  };
}

/**
 * The interval for grouped samples: `groupsBaseline` and `groupsOther` are the sizes of each side's trials
 * (their indices laid out trial after trial). Hierarchical resampling (trials, then requests within them);
 * with one group per side it equals bootstrapRatioByIndex. Statistics receive index arrays whose length
 * varies from resample to resample when trials differ in size.
 */
export function bootstrapRatioGrouped(
  groupsBaseline: readonly number[],
  groupsOther: readonly number[],
  statBaseline: IndexStatistic,
  statOther: IndexStatistic,
  opts: BootstrapOptions,
): RatioCI | null {
  const base = resampler(groupsBaseline.filter((n) => n > 0));
  const other = resampler(groupsOther.filter((n) => n > 0));
  if (base.total === 0 || other.total === 0) return null;
  const confidence = opts.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  }
  const ratio = statOther(identityIndices(other.total)) / statBaseline(identityIndices(base.total));
  if (!Number.isFinite(ratio)) return null;
  const rng = seededRng(opts.seed);
  const idxBaseline = new Uint32Array(base.maxLength);
  const idxOther = new Uint32Array(other.maxLength);
  const ratios = new Float64Array(opts.iterations);
  let kept = 0;
  for (let i = 0; i < opts.iterations; i++) {
    const nb = base.draw(rng, idxBaseline);
    const no = other.draw(rng, idxOther);
    const r = statOther(idxOther.subarray(0, no)) / statBaseline(idxBaseline.subarray(0, nb));
    if (Number.isFinite(r)) ratios[kept++] = r;
  }
  if (kept === 0) return null;
  const sorted = ratios.subarray(0, kept).sort();
  const tail = ((1 - confidence) / 2) * 100;
  const low = percentileOfSorted(sorted, tail);
  const high = percentileOfSorted(sorted, 100 - tail);
  return { ratio, low, high, confidence, iterations: kept, significant: low > 1 || high < 1 };
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
