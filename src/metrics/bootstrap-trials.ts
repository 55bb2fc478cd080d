// The bootstrap interval for samples made of repeated trials (load.trials): each side's requests laid out
// trial after trial. Trials are resampled with replacement, then requests within each drawn trial
// (hierarchical), so the variance between trials (runs) is inside the interval. Resampling few trials
// understates how far apart they can be (with G trials the bootstrap sees G values and divides by G, not
// G − 1), so the between-trial part of the interval is widened as a t interval with G − 1 degrees of
// freedom would be: the within-trial part is measured by a second, stratified bootstrap (every trial kept,
// its requests resampled), and only the excess of the hierarchical spread over it is widened, by
// t(G−1)/z·√(G/(G−1)) (×2.7 for 3 trials, ×1.6 for 5, ×1.2 for 10). One trial per side is the plain
// request bootstrap, draw for draw.
// Interleaved trials (round t ran A_t then B_t on one machine) are resampled **paired** when the caller
// says so: one draw of rounds serves both sides, so drift shared by a round (a slow minute of the host)
// is in both sides of every resample and cancels in the ratio; only what differs within a round widens
// the interval. The same t widening applies with G the number of rounds.

import { seededRng } from '../core/seeded-random.js';
import type { BootstrapOptions, IndexStatistic, RatioCI } from './bootstrap.js';
import { percentileOfSorted } from './percentile.js';

export function identityIndices(n: number): Uint32Array {
  return Uint32Array.from({ length: n }, (_, i) => i);
}

/** Draws one resample into `out`; returns its length. */
type Resampler = (rng: () => number, out: Uint32Array) => number;

/** Draws one resample of each side (baseline, other); returns their lengths. */
type PairDraw = (rng: () => number, base: Uint32Array, other: Uint32Array) => [number, number];

/** How an interval was resampled: one trial's requests, trials independently per side, or rounds as pairs. */
export type Resampling = 'requests' | 'trials-then-requests' | 'paired-rounds';

/** Two-sided 95% quantiles of Student's t for 1 … 30 degrees of freedom (the standard table). */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];
const Z975 = 1.959964;

/** t(0.975, df): the table, then its first-order expansion in 1/df (within 0.1% beyond 30). */
export function t975(df: number): number {
  return df <= T975.length ? T975[df - 1] : Z975 + (Z975 ** 3 + Z975) / (4 * df);
}

/** How much wider the between-trial part of a 95% interval is drawn with G trials; 1 for one trial. */
export function fewTrialsFactor(g: number): number {
  return g < 2 ? 1 : (t975(g - 1) / Z975) * Math.sqrt(g / (g - 1));
}

function offsetsOf(sizes: readonly number[]): { offsets: number[]; total: number } {
  const offsets: number[] = [];
  let total = 0;
  for (const n of sizes) {
    offsets.push(total);
    total += n;
  }
  return { offsets, total };
}

/** One trial: its n indices uniformly. Several: trials with replacement, then requests within each. */
function hierarchical(sizes: readonly number[]): Resampler {
  const { offsets, total } = offsetsOf(sizes);
  const g = sizes.length;
  if (g === 1)
    return (rng, out) => {
      for (let j = 0; j < total; j++) out[j] = Math.floor(rng() * total);
      return total;
    };
  return (rng, out) => {
    let k = 0;
    for (let i = 0; i < g; i++) {
      const pick = Math.floor(rng() * g);
      for (let j = 0; j < sizes[pick]; j++) out[k++] = offsets[pick] + Math.floor(rng() * sizes[pick]);
    }
    return k;
  };
}

/** Every trial kept once, its requests resampled within it: the within-trial noise alone. */
function stratified(sizes: readonly number[]): Resampler {
  const { offsets } = offsetsOf(sizes);
  return (rng, out) => {
    let k = 0;
    for (let i = 0; i < sizes.length; i++)
      for (let j = 0; j < sizes[i]; j++) out[k++] = offsets[i] + Math.floor(rng() * sizes[i]);
    return k;
  };
}

/** Each side drawn on its own (base first, then other, from one stream). */
function independent(base: Resampler, other: Resampler): PairDraw {
  return (rng, b, o) => [base(rng, b), other(rng, o)];
}

/** Rounds drawn once with replacement for both sides, then requests within A_t and within B_t. */
function pairedRounds(sizesBase: readonly number[], sizesOther: readonly number[]): PairDraw {
  const ob = offsetsOf(sizesBase).offsets;
  const oo = offsetsOf(sizesOther).offsets;
  const g = sizesBase.length;
  return (rng, b, o) => {
    let kb = 0;
    let ko = 0;
    for (let i = 0; i < g; i++) {
      const t = Math.floor(rng() * g);
      for (let j = 0; j < sizesBase[t]; j++) b[kb++] = ob[t] + Math.floor(rng() * sizesBase[t]);
      for (let j = 0; j < sizesOther[t]; j++) o[ko++] = oo[t] + Math.floor(rng() * sizesOther[t]);
    }
    return [kb, ko];
  };
}

/** The percentile interval of stat(other)/stat(baseline) over `iterations` resamples; null if none is finite. */
function percentileInterval(
  draw: { both: PairDraw; maxBase: number; maxOther: number },
  stats: { base: IndexStatistic; other: IndexStatistic },
  opts: { iterations: number; seed: number; confidence: number },
): { low: number; high: number; kept: number } | null {
  const rng = seededRng(opts.seed);
  const idxBase = new Uint32Array(draw.maxBase);
  const idxOther = new Uint32Array(draw.maxOther);
  const ratios = new Float64Array(opts.iterations);
  let kept = 0;
  for (let i = 0; i < opts.iterations; i++) {
    const [nb, no] = draw.both(rng, idxBase, idxOther);
    const r = stats.other(idxOther.subarray(0, no)) / stats.base(idxBase.subarray(0, nb));
    if (Number.isFinite(r)) ratios[kept++] = r;
  }
  if (kept === 0) return null;
  const sorted = ratios.subarray(0, kept).sort();
  const tail = ((1 - opts.confidence) / 2) * 100;
  return { low: percentileOfSorted(sorted, tail), high: percentileOfSorted(sorted, 100 - tail), kept };
}

/**
 * The interval for grouped samples: `groupsBaseline` and `groupsOther` are the sizes of each side's trials.
 * Statistics receive index arrays whose length varies from resample to resample when trials differ in size.
 */
export function bootstrapRatioGrouped(
  groupsBaseline: readonly number[],
  groupsOther: readonly number[],
  statBaseline: IndexStatistic,
  statOther: IndexStatistic,
  opts: BootstrapOptions,
): RatioCI | null {
  const paired = opts.paired === true && pairable(groupsBaseline, groupsOther);
  // a round with no request on either side cannot be a pair: it leaves both sides together
  const keep = (n: number, i: number) => n > 0 && (!paired || (groupsBaseline[i] > 0 && groupsOther[i] > 0));
  const gb = groupsBaseline.filter(keep);
  const go = groupsOther.filter(keep);
  const nb = gb.reduce((a, b) => a + b, 0);
  const no = go.reduce((a, b) => a + b, 0);
  if (nb === 0 || no === 0) return null;
  const confidence = opts.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence must be within (0, 1), got ${confidence}`);
  const ratio = statOther(identityIndices(no)) / statBaseline(identityIndices(nb));
  if (!Number.isFinite(ratio)) return null;
  const stats = { base: statBaseline, other: statOther };
  const run = { iterations: opts.iterations, seed: opts.seed, confidence };
  const maxLen = (g: number[]) => g.length * Math.max(...g);
  const sizes = { maxBase: maxLen(gb), maxOther: maxLen(go) };
  const both = paired ? pairedRounds(gb, go) : independent(hierarchical(gb), hierarchical(go));
  const nested = percentileInterval({ both, ...sizes }, stats, run);
  if (!nested) return null;
  const trials = Math.min(...[gb.length, go.length].filter((g) => g > 1));
  let { low, high } = nested;
  if (Number.isFinite(trials)) {
    if (confidence !== 0.95)
      throw new RangeError(`repeated trials are resampled for 95% intervals only, got ${confidence}`);
    const within = percentileInterval(
      { both: independent(stratified(gb), stratified(go)), ...sizes },
      stats,
      {
        ...run,
        seed: opts.seed + 1,
      },
    );
    // widen only what the trials add beyond the requests' own noise, in log space, side by side
    const k = fewTrialsFactor(trials);
    const widen = (nestedEnd: number, withinEnd: number | undefined) => {
      const dh = Math.log(nestedEnd / ratio);
      const dw = withinEnd === undefined ? 0 : Math.log(withinEnd / ratio);
      const excess = Math.max(0, dh * dh - dw * dw);
      return ratio * Math.exp(Math.sign(dh) * Math.sqrt(dw * dw + k * k * excess));
    };
    low = widen(low, within?.low);
    high = widen(high, within?.high);
  }
  return {
    ratio,
    low,
    high,
    confidence,
    iterations: nested.kept,
    significant: low > 1 || high < 1,
    resampling: paired ? 'paired-rounds' : Number.isFinite(trials) ? 'trials-then-requests' : 'requests',
  };
}

/** Rounds can be paired when both sides ran the same number of them, two or more, each with a request. */
function pairable(base: readonly number[], other: readonly number[]): boolean {
  const rounds = base.filter((n, i) => n > 0 && (other[i] ?? 0) > 0).length;
  return base.length === other.length && rounds >= 2;
}
