// Change points in one metric's series (one level of the runs of `history`, oldest first): where the
// series' level shifts by more than its own noise. Binary segmentation on log values: the segment's noise σ
// is read from its successive differences (their median absolute value / (0.6745 · √2), which a level
// shift barely moves; at least NOISE_FLOOR); every split leaving at least MIN_SEGMENT points on each side is scored by
// t = |shift of the means| / (σ · √(1/n₁ + 1/n₂)); the best split is a change point when its t reaches the
// two-sided 99% Student-t quantile for n − 2 degrees of freedom and the shift is at least the minimum
// effect; then each side is searched the same way. σ is what makes the rule adapt to the series: a noisy
// series needs a bigger shift than a steady one (the spirit of Apache Otava's e-divisive, without its
// permutation test). Pure.

import { tQuantile995 } from './gate-noise.js';

/** Fewest points on each side of a change point. */
export const MIN_SEGMENT = 2;
/** The least noise a series is taken to have (0.1%): a series of identical values still ranks its splits. */
export const NOISE_FLOOR = 0.001;
/** Smallest shift a change point can mark (2%, compare's minimum effect). */
export const MIN_SHIFT = 0.02;

export interface ChangePoint {
  /** Index of the first point after the change. */
  index: number;
  /** Geometric mean after / before, within the segment the split was found in. */
  shift: number;
  /** The split's t statistic. */
  t: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The noise of a segment from its successive differences: robust to the level shifts it is searched for. */
function noiseOf(xs: readonly number[]): number {
  const diffs = xs
    .slice(1)
    .map((x, i) => Math.abs(x - xs[i]))
    .sort((a, b) => a - b);
  const mid = diffs.length / 2;
  const median = diffs.length % 2 ? diffs[Math.floor(mid)] : (diffs[mid - 1] + diffs[mid]) / 2;
  return Math.max(NOISE_FLOOR, median / (0.6745 * Math.SQRT2));
}

/** The best split of `xs` (log values) and its t, or null when no split has the room. */
function bestSplit(xs: readonly number[]): { at: number; t: number; delta: number } | null {
  let best: { at: number; t: number; delta: number } | null = null;
  const sigma = noiseOf(xs);
  for (let at = MIN_SEGMENT; at <= xs.length - MIN_SEGMENT; at++) {
    const left = xs.slice(0, at);
    const right = xs.slice(at);
    const delta = mean(right) - mean(left);
    const scale = sigma * Math.sqrt(1 / left.length + 1 / right.length);
    const t = Math.abs(delta) / scale;
    if (!best || t > best.t) best = { at, t, delta };
  }
  return best;
}

function segment(xs: readonly number[], offset: number, minShift: number, out: ChangePoint[]): void {
  const split = bestSplit(xs);
  if (!split) return;
  if (split.t < tQuantile995(xs.length - 2) || Math.abs(Math.expm1(split.delta)) < minShift) return;
  out.push({ index: offset + split.at, shift: Math.exp(split.delta), t: split.t });
  segment(xs.slice(0, split.at), offset, minShift, out);
  segment(xs.slice(split.at), offset + split.at, minShift, out);
}

/** The change points of a series of positive values, in index order. Non-positive values are refused. */
export function changePoints(values: readonly number[], minShift = MIN_SHIFT): ChangePoint[] {
  if (values.some((v) => !(v > 0) || !Number.isFinite(v)))
    throw new Error('change points need positive values');
  const out: ChangePoint[] = [];
  segment(values.map(Math.log), 0, minShift, out);
  return out.sort((a, b) => a.index - b.index);
}
