// The run-to-run noise the gate asks a change to exceed, from the history of one metric at one level (the
// same configuration, workload and host): the earlier values' spread on a log scale, turned into a 99%
// prediction band for one more run (mean ± t · sd · √(1 + 1/k), Student's t with k − 1 degrees of
// freedom), so a short history gives a wide band and a noisy one a wider band. A value outside the band
// and beyond the minimum effect is a change. Pure: the store query is gate-history.ts.

/** Two-sided 99% quantiles of Student's t (0.995) by degrees of freedom; beyond the table, 30's. */
const T_995: Record<number, number> = {
  1: 63.657,
  2: 9.925,
  3: 5.841,
  4: 4.604,
  5: 4.032,
  6: 3.707,
  7: 3.499,
  8: 3.355,
  9: 3.25,
  10: 3.169,
  12: 3.055,
  15: 2.947,
  20: 2.845,
  30: 2.75,
};

/** t(0.995, df), taking the nearest tabulated df at or below (wider: the conservative side). */
export function tQuantile995(df: number): number {
  const keys = Object.keys(T_995)
    .map(Number)
    .filter((k) => k <= df);
  return T_995[keys.length ? Math.max(...keys) : 1];
}

export interface NoiseBand {
  /** Earlier values the band rests on. */
  k: number;
  /** Geometric mean of the history. */
  center: number;
  /** Sample standard deviation of the log values (≈ relative spread). */
  relativeSpread: number;
  /** The band as ratios to the centre: a new run outside [low, high] is beyond the history's noise. */
  low: number;
  high: number;
}

/** The band of the history, or null with fewer than 2 positive values (no spread can be measured). */
export function noiseBand(history: readonly number[]): NoiseBand | null {
  const logs = history.filter((v) => Number.isFinite(v) && v > 0).map(Math.log);
  const k = logs.length;
  if (k < 2) return null;
  const mean = logs.reduce((a, b) => a + b, 0) / k;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (k - 1));
  const half = tQuantile995(k - 1) * sd * Math.sqrt(1 + 1 / k);
  return { k, center: Math.exp(mean), relativeSpread: sd, low: Math.exp(-half), high: Math.exp(half) };
}

export type BandOutcome = 'regression' | 'improvement' | 'no change';

/** Where `value` falls against the band: a change needs to leave the band and exceed the minimum effect. */
export function judgeByBand(
  value: number,
  band: NoiseBand,
  o: { higherIsBetter: boolean; minEffect: number },
): { outcome: BandOutcome; ratio: number } {
  const ratio = value / band.center;
  const beyond = Math.abs(ratio - 1) >= o.minEffect && (ratio < band.low || ratio > band.high);
  if (!beyond) return { outcome: 'no change', ratio };
  return { outcome: ratio > 1 === o.higherIsBetter ? 'improvement' : 'regression', ratio };
}
