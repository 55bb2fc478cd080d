// The metrics a comparison can show: label, unit, which direction is better, the level's reported
// value, and the per-request statistic the bootstrap resamples to get a CI on the ratio.

import type { IndexStatistic } from '../metrics/bootstrap.js';
import { percentilesInPlace } from '../metrics/percentile.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { RequestValues } from './request-values.js';
import type { MetricId } from './types.js';

export interface MetricSpec {
  id: MetricId;
  /** Short label for tables and charts. */
  label: string;
  unit: string;
  higherIsBetter: boolean;
  /** Words for verdicts, e.g. "output throughput". */
  noun: string;
  /** Whether verdicts are drawn from it (acceptance length is informative, not a goal). */
  inVerdicts: boolean;
  value(level: LevelSummary): number | null;
  /**
   * The statistic over resamples (index arrays into `values`), with the level's fixed context (its measured
   * window, its achieved concurrency). null when the records cannot support it (e.g. no verify-step counts).
   */
  statistic(level: LevelSummary, values: readonly RequestValues[]): IndexStatistic | null;
}

const pct = (d: { percentiles: Record<string, number> } | null, key: string): number | null => {
  const v = d?.percentiles[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

/**
 * Throughput under resampling: Σ count / Σ request seconds × C, where C = (Σ request seconds of the full
 * sample) / window is the level's achieved concurrency, held fixed. On the full sample this equals
 * Σ count / window; across resamples it varies with per-request speed.
 */
const throughputStatistic =
  (count: (v: RequestValues) => number) =>
  (level: LevelSummary, values: readonly RequestValues[]): IndexStatistic | null => {
    if (values.length === 0 || !(level.windowS > 0)) return null;
    const counts = Float64Array.from(values, count);
    const seconds = Float64Array.from(values, (v) => v.e2eMs / 1000);
    const fullSeconds = seconds.reduce((a, b) => a + b, 0);
    return (idx) => {
      let num = 0;
      let sec = 0;
      for (let i = 0; i < idx.length; i++) {
        num += counts[idx[i]];
        sec += seconds[idx[i]];
      }
      return ((num / sec) * fullSeconds) / level.windowS;
    };
  };

/** Percentile p (0..100) of a per-request value; requests without it (e.g. 1-token TPOT) are left out of each resample. */
const latencyPercentile =
  (pick: (v: RequestValues) => number | null, p: number) =>
  (_level: LevelSummary, values: readonly RequestValues[]): IndexStatistic | null => {
    const column = Float64Array.from(values, (v) => pick(v) ?? Number.NaN);
    if (!column.some((x) => !Number.isNaN(x))) return null;
    const scratch = new Float64Array(column.length);
    return (idx) => {
      let n = 0;
      for (let i = 0; i < idx.length; i++) {
        const x = column[idx[i]];
        if (!Number.isNaN(x)) scratch[n++] = x;
      }
      return percentilesInPlace(scratch.subarray(0, n), [p])[0];
    };
  };

export const METRICS: Record<MetricId, MetricSpec> = {
  output_throughput: {
    id: 'output_throughput',
    label: 'Output tok/s',
    unit: 'tok/s',
    higherIsBetter: true,
    noun: 'output throughput',
    inVerdicts: true,
    value: (l) => l.throughput.outputTokensPerS,
    statistic: throughputStatistic((v) => v.outputTokens),
  },
  request_throughput: {
    id: 'request_throughput',
    label: 'Requests/s',
    unit: 'req/s',
    higherIsBetter: true,
    noun: 'request throughput',
    inVerdicts: true,
    value: (l) => l.throughput.requestsPerS,
    statistic: throughputStatistic(() => 1),
  },
  ttft_p50: {
    id: 'ttft_p50',
    label: 'TTFT p50',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'median TTFT',
    inVerdicts: true,
    value: (l) => pct(l.ttftMs, 'p50'),
    statistic: latencyPercentile((v) => v.ttftMs, 50),
  },
  ttft_p99: {
    id: 'ttft_p99',
    label: 'TTFT p99',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'p99 TTFT',
    inVerdicts: true,
    value: (l) => pct(l.ttftMs, 'p99'),
    statistic: latencyPercentile((v) => v.ttftMs, 99),
  },
  tpot_p50: {
    id: 'tpot_p50',
    label: 'TPOT p50',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'median TPOT',
    inVerdicts: true,
    value: (l) => pct(l.tpotMs, 'p50'),
    statistic: latencyPercentile((v) => v.tpotMs, 50),
  },
  tpot_p99: {
    id: 'tpot_p99',
    label: 'TPOT p99',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'p99 TPOT',
    inVerdicts: true,
    value: (l) => pct(l.tpotMs, 'p99'),
    statistic: latencyPercentile((v) => v.tpotMs, 99),
  },
  e2e_p50: {
    id: 'e2e_p50',
    label: 'E2E p50',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'median end-to-end latency',
    inVerdicts: true,
    value: (l) => pct(l.e2eMs, 'p50'),
    statistic: latencyPercentile((v) => v.e2eMs, 50),
  },
  e2e_p99: {
    id: 'e2e_p99',
    label: 'E2E p99',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'p99 end-to-end latency',
    inVerdicts: true,
    value: (l) => pct(l.e2eMs, 'p99'),
    statistic: latencyPercentile((v) => v.e2eMs, 99),
  },
  acceptance_length: {
    id: 'acceptance_length',
    label: 'Accept len',
    unit: 'tok/step',
    higherIsBetter: true,
    noun: 'acceptance length',
    inVerdicts: false,
    value: (l) => l.speculative?.acceptanceLength ?? null,
    statistic: (_l, values) => {
      if (values.length === 0 || !values.every((v) => v.specVerifySteps !== null && v.specVerifySteps > 0))
        return null;
      const tokens = Float64Array.from(values, (v) => v.outputTokens);
      const steps = Float64Array.from(values, (v) => v.specVerifySteps ?? 0);
      return (idx) => {
        let tok = 0;
        let st = 0;
        for (let i = 0; i < idx.length; i++) {
          tok += tokens[idx[i]];
          st += steps[idx[i]];
        }
        return tok / st;
      };
    },
  },
};

export const DEFAULT_METRICS: MetricId[] = [
  'output_throughput',
  'ttft_p50',
  'ttft_p99',
  'tpot_p50',
  'e2e_p50',
  'acceptance_length',
];

export function isMetricId(s: string): s is MetricId {
  return Object.hasOwn(METRICS, s);
}
