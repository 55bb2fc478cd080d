// The shapes that flow through the report module: loaded runs (src/results/layout.ts) in, a Comparison out.
// Every renderer (text, markdown, json, csv, html) reads only a Comparison, so formats never disagree.

import type { Resampling } from '../metrics/bootstrap.js';
import type { SteadyState } from '../metrics/steady-state.js';
import type { LevelKey, LevelSummary } from '../metrics/summary.js';
import type { Validity } from '../metrics/validity.js';
import type { CacheRow } from './cache-section.js';
import type { LosslessRow } from './lossless-section.js';
import type { SloSearchSection } from './slo-search-model.js';
import type { TelemetryRow } from './telemetry-section.js';
import type { ComparisonValidity } from './validity.js';

export type MetricId =
  | 'output_throughput'
  | 'request_throughput'
  | 'input_throughput'
  | 'total_throughput'
  | 'goodput'
  | 'ttft_p50'
  | 'ttft_p99'
  | 'ttft_content_p50'
  | 'ttft_content_p99'
  | 'tpot_p50'
  | 'tpot_p99'
  | 'chunk_itl_p50'
  | 'chunk_itl_p99'
  | 'token_itl_p50'
  | 'token_itl_p99'
  | 'e2e_p50'
  | 'e2e_p99'
  | 'e2e_queue_p50'
  | 'e2e_queue_p99'
  | 'acceptance_length'
  | 'energy_per_token';

export interface ConfidenceInterval {
  low: number;
  high: number;
}

/** One run's value at one level for one metric, and how it compares with the baseline. */
export interface Cell {
  run: string;
  value: number | null;
  /** value / baseline value; null for the baseline itself or when either is missing. */
  ratio: number | null;
  /** 95% percentile-bootstrap CI of the ratio; null without per-request data. */
  ci: ConfidenceInterval | null;
  /** CI excludes 1; null when no CI could be computed. */
  significant: boolean | null;
  /** Requests behind the value (measured, completed). */
  n: number;
  /** Set when the sample count cannot support the percentile: value is null and this says why. */
  withheld?: string;
  /** How the interval was resampled (requests of one trial, trials per side, or interleaved rounds as pairs). */
  resampling?: Resampling;
  /**
   * One trial on each side: 'unknown' when no run-to-run spread was given (the interval covers request
   * noise only, so no confident verdict), else where the spread that widened the interval came from.
   */
  runNoise?: 'unknown' | { source: string };
}

export type LevelFlag = 'client-limited' | 'invalid' | 'missing' | 'short-window';

export interface LevelRow {
  level: LevelKey;
  /** Human label, e.g. "c=16" or "2 req/s (cap 64)". */
  label: string;
  /** Per run name: why the level is excluded from verdicts (empty when usable). */
  flags: Record<string, { flag: LevelFlag; reason: string }[]>;
  /** True when every run has the level and none is flagged. */
  usable: boolean;
  /** Per run name: the level's validity verdict (absent when the run lacks the level). */
  validity: Record<string, Validity>;
  cells: Record<MetricId, Cell[]>;
}

export interface ConfigDifference {
  key: string;
  baseline: string;
  other: string;
  run: string;
  /** True when the plan declares the key as varied on purpose. */
  expected: boolean;
}

export interface Crossover {
  run: string;
  versus: string;
  metric: MetricId;
  /** Last level where `run` was significantly better, and first level where it was significantly worse (or vice versa). */
  from: LevelKey;
  to: LevelKey;
  direction: 'better-to-worse' | 'worse-to-better';
  text: string;
}

export interface Verdict {
  run: string;
  metric: MetricId;
  /** Metrics this verdict also speaks for: equal to `metric`'s ratio here by construction (metric-families.ts). */
  family?: MetricId[];
  /** Sort key: larger means more important. */
  weight: number;
  text: string;
  /** Set when a change beyond request noise was seen but run-to-run noise is unknown (one trial, no estimate). */
  noiseUnknown?: boolean;
}

export interface Comparison {
  schema: 'benchgate.compare/1';
  /** Valid, suspect or invalid, with reasons; every renderer shows it first. */
  validity: ComparisonValidity;
  /**
   * The one-screen summary every format opens with (summary-model.ts): best config per load band, what
   * failed or was skipped and why, what the intervals cover. Plain sentences.
   */
  summary: string[];
  /** Smallest relative change a verdict calls a difference (0.02 = 2%). */
  minEffect: number;
  /** Why no verdict was drawn at all (e.g. different workloads); null when verdicts were drawn. */
  verdictsWithheld: string | null;
  baseline: string;
  runs: {
    name: string;
    dir: string;
    source: string;
    engine: string | null;
    model: string | null;
    warnings: string[];
    /** Repeated trials (load.trials): the most trials any level of the run has; 1 without. */
    trials: number;
  }[];
  metrics: MetricId[];
  levels: LevelRow[];
  /** Config differences outside the declared `varies` keys come first. */
  configDiff: ConfigDifference[];
  comparabilityWarnings: string[];
  crossovers: Crossover[];
  verdicts: Verdict[];
  bootstrap: {
    iterations: number;
    seed: number;
    confidence: number;
    /**
     * requests: one trial per run, the intervals resample requests (request-to-request noise only);
     * trials-then-requests: some run has repeated trials, resampled hierarchically (between-run variance inside);
     * paired-rounds: the runs' trials were interleaved rounds, resampled as pairs (drift shared by a round cancels).
     */
    resamples: 'requests' | 'trials-then-requests' | 'paired-rounds';
  };
  /** Checkpoint findings per run (from the manifests), for the HTML report. */
  findings: { run: string; id: string; title: string; status: string; expected?: string; found?: string }[];
  /** Closed-loop levels: the steady-state window (all slots busy) beside the full window, or why there is none. */
  steadyState: {
    run: string;
    level: LevelKey;
    label: string;
    full: { windowS: number; requestsPerS: number; outputTokensPerS: number };
    steady?: SteadyState;
    reason?: string;
  }[];
  /** Per-level points for charts: every level each run has, flagged or not. */
  series: { run: string; points: { level: LevelKey; summary: LevelSummary; flags: LevelFlag[] }[] }[];
  /** Lossless verdicts of the runs that carry one (lossless-section.ts); absent or empty when none. */
  lossless?: LosslessRow[];
  /** Server and GPU telemetry per level of each run (telemetry-section.ts); absent or empty when none was stored. */
  telemetry?: TelemetryRow[];
  /** SLO searches (slo-search.json) of the runs that carry one, and verdicts on the found loads; absent when none does. */
  sloSearch?: SloSearchSection;
  /** Per run and level, the share of the measured prompt tokens served from the prefix cache (cache-section.ts). */
  cache: CacheRow[];
}
