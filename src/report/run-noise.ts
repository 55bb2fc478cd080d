// Run-to-run noise: what one trial per run cannot see. Resampling one run's requests covers
// request-to-request noise only; two runs of one config on a busy host differ by far more. A verdict
// between one-trial runs therefore needs an estimate of the spread between runs, which the caller
// measures (the results store's earlier runs of the same config, workload and host; or `calibrate`) and
// passes in, since the report does no I/O. Without one a change is stated with its size, never as a
// confident verdict. `judgeDifference` is the one judgement of "is this change beyond noise" that
// verdicts, the summary and the CI gate share.

import { t975 } from '../metrics/bootstrap-trials.js';
import { METRICS } from './metric-catalog.js';
import type { Cell, MetricId } from './types.js';

const ALL_METRICS = Object.keys(METRICS) as MetricId[];

/** The spread between runs of one configuration, per metric (and optionally per level). */
export interface RunNoiseEstimate {
  /** Where the spread was measured, in words, e.g. "4 earlier runs of this config in the store". */
  source: string;
  /** How many runs the spread was measured on; at least 2. */
  runs: number;
  /** Standard deviation of ln(value) between runs, per metric; an absent metric has no estimate. */
  logSd: Partial<Record<MetricId, number>>;
  /** The same per level id (levels.ts levelId), preferred to `logSd` where present. */
  perLevel?: Record<string, Partial<Record<MetricId, number>>>;
}

/** Estimates per run name, and one for the host that stands in for any run without its own. */
export interface RunNoise {
  byRun?: Record<string, RunNoiseEstimate>;
  host?: RunNoiseEstimate;
}

/** A spread stated rather than measured here (e.g. on the command line), taken as exact. */
export function givenRunNoise(logSd: number, source: string): RunNoise {
  const every = ALL_METRICS.map((m) => [m, logSd] as const);
  return { host: { source, runs: GIVEN_RUNS, logSd: Object.fromEntries(every) } };
}

/** A given spread counts as if measured on this many runs: t is then within 0.1% of z. */
const GIVEN_RUNS = 1000;

/** The fewest earlier runs a spread may be measured on: two give one degree of freedom. */
export const MIN_NOISE_RUNS = 2;

/** One side's run-to-run spread at a level for a metric, with its run count; null when unknown. */
export function noiseFor(
  noise: RunNoise | undefined,
  run: string,
  levelId: string,
  metric: MetricId,
): { logSd: number; runs: number; source: string } | null {
  const est = noise?.byRun?.[run] ?? noise?.host;
  if (!est || est.runs < MIN_NOISE_RUNS) return null;
  const sd = est.perLevel?.[levelId]?.[metric] ?? est.logSd[metric];
  return sd !== undefined && Number.isFinite(sd) && sd >= 0
    ? { logSd: sd, runs: est.runs, source: est.source }
    : null;
}

/**
 * The interval of a ratio between two one-trial runs with their run-to-run spreads: each end is the
 * farther of the request bootstrap's end and the run-to-run half-width t(df)·√(sdA² + sdB²) in log
 * space (the spread between earlier runs already holds their request noise), df the fewer runs − 1.
 */
export function widenForRunNoise(
  ratio: number,
  ci: { low: number; high: number },
  a: { logSd: number; runs: number },
  b: { logSd: number; runs: number },
): { low: number; high: number } {
  const half = t975(Math.min(a.runs, b.runs) - 1) * Math.sqrt(a.logSd ** 2 + b.logSd ** 2);
  const down = Math.max(Math.log(ratio / ci.low), half);
  const up = Math.max(Math.log(ci.high / ratio), half);
  return { low: ratio * Math.exp(-down), high: ratio * Math.exp(up) };
}

/**
 * better / worse: the interval excludes no change and the change is at least the minimum effect;
 * noise-unknown: it would be, but the interval covers request noise only (one trial, no estimate);
 * same: tested and not both; untested: no interval and a change at least the minimum effect.
 */
export type DifferenceStatus = 'better' | 'worse' | 'same' | 'untested' | 'noise-unknown';

export function judgeDifference(cell: Cell, higherIsBetter: boolean, minEffect: number): DifferenceStatus {
  if (cell.ratio === null) return 'untested';
  if (Math.abs(cell.ratio - 1) < minEffect) return 'same';
  if (cell.significant === null) return 'untested';
  if (!cell.significant) return 'same';
  if (cell.runNoise === 'unknown') return 'noise-unknown';
  return cell.ratio > 1 === higherIsBetter ? 'better' : 'worse';
}
