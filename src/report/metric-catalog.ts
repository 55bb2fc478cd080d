// The metrics a comparison can show: label, unit, which direction is better, the level's reported
// value, and the per-request statistic the bootstrap resamples to get a CI on the ratio.

import type { LevelSummary } from '../metrics/summary.js';
import { quantileOf } from './bootstrap.js';
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
   * Builds the statistic over (re)samples of per-request values; `level` and the full sample give fixed
   * context (the measured window, the achieved concurrency).
   */
  statistic(
    level: LevelSummary,
    full: readonly RequestValues[],
  ): (sample: readonly RequestValues[]) => number;
  /** Whether the per-request values can support the statistic at all. */
  supported(sample: readonly RequestValues[]): boolean;
}

const pct = (d: { percentiles: Record<string, number> } | null, key: string): number | null => {
  const v = d?.percentiles[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

/**
 * Throughput under resampling: Σ tokens / Σ request seconds × C, where C = (Σ request seconds of the full
 * sample) / window is the level's achieved concurrency, held fixed. On the full sample this equals
 * Σ tokens / window; across resamples it varies with per-request speed.
 */
const throughputStatistic =
  (count: (v: RequestValues) => number) => (level: LevelSummary, full: readonly RequestValues[]) => {
    const fullSeconds = full.reduce((a, v) => a + v.e2eMs / 1000, 0);
    return (sample: readonly RequestValues[]): number => {
      let num = 0;
      let sec = 0;
      for (const v of sample) {
        num += count(v);
        sec += v.e2eMs / 1000;
      }
      return ((num / sec) * fullSeconds) / level.windowS;
    };
  };

const latencyQuantile =
  (pick: (v: RequestValues) => number | null, q: number) =>
  (_level: LevelSummary, _full: readonly RequestValues[]) =>
  (sample: readonly RequestValues[]): number => {
    const xs: number[] = [];
    for (const v of sample) {
      const x = pick(v);
      if (x !== null) xs.push(x);
    }
    return quantileOf(xs, q);
  };

const always = (s: readonly RequestValues[]) => s.length > 0;

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
    supported: always,
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
    supported: always,
  },
  ttft_p50: {
    id: 'ttft_p50',
    label: 'TTFT p50',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'median TTFT',
    inVerdicts: true,
    value: (l) => pct(l.ttftMs, 'p50'),
    statistic: latencyQuantile((v) => v.ttftMs, 0.5),
    supported: always,
  },
  ttft_p99: {
    id: 'ttft_p99',
    label: 'TTFT p99',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'p99 TTFT',
    inVerdicts: true,
    value: (l) => pct(l.ttftMs, 'p99'),
    statistic: latencyQuantile((v) => v.ttftMs, 0.99),
    supported: always,
  },
  tpot_p50: {
    id: 'tpot_p50',
    label: 'TPOT p50',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'median TPOT',
    inVerdicts: true,
    value: (l) => pct(l.tpotMs, 'p50'),
    statistic: latencyQuantile((v) => v.tpotMs, 0.5),
    supported: (s) => s.some((v) => v.tpotMs !== null),
  },
  tpot_p99: {
    id: 'tpot_p99',
    label: 'TPOT p99',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'p99 TPOT',
    inVerdicts: true,
    value: (l) => pct(l.tpotMs, 'p99'),
    statistic: latencyQuantile((v) => v.tpotMs, 0.99),
    supported: (s) => s.some((v) => v.tpotMs !== null),
  },
  e2e_p50: {
    id: 'e2e_p50',
    label: 'E2E p50',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'median end-to-end latency',
    inVerdicts: true,
    value: (l) => pct(l.e2eMs, 'p50'),
    statistic: latencyQuantile((v) => v.e2eMs, 0.5),
    supported: always,
  },
  e2e_p99: {
    id: 'e2e_p99',
    label: 'E2E p99',
    unit: 'ms',
    higherIsBetter: false,
    noun: 'p99 end-to-end latency',
    inVerdicts: true,
    value: (l) => pct(l.e2eMs, 'p99'),
    statistic: latencyQuantile((v) => v.e2eMs, 0.99),
    supported: always,
  },
  acceptance_length: {
    id: 'acceptance_length',
    label: 'Accept len',
    unit: 'tok/step',
    higherIsBetter: true,
    noun: 'acceptance length',
    inVerdicts: false,
    value: (l) => l.speculative?.acceptanceLength ?? null,
    statistic: () => (s) => {
      let tok = 0;
      let steps = 0;
      for (const v of s) {
        tok += v.outputTokens;
        steps += v.specVerifySteps ?? 0;
      }
      return tok / steps;
    },
    supported: (s) => s.length > 0 && s.every((v) => v.specVerifySteps !== null && v.specVerifySteps > 0),
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
