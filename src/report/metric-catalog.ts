// The metrics a comparison can show: label, unit, which direction is better, the level's reported
// value, and the per-request statistic the bootstrap resamples to get a CI on the ratio.

import type { IndexStatistic } from '../metrics/bootstrap.js';
import { meetsSlo } from '../metrics/goodput.js';
import { percentilesInPlace } from '../metrics/percentile.js';
import type { LevelSummary } from '../metrics/summary.js';
import { supportsPercentile, unsupportedNote } from '../metrics/tail-samples.js';
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
  /** For percentile metrics: which percentile, and how many samples stand behind it at a level. */
  percentile?: number;
  samples?(level: LevelSummary): number;
}

const pct = (d: { percentiles: Record<string, number | null> } | null, key: string): number | null => {
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
    // a hierarchical resample can hold more indices than the sample (a large trial drawn twice)
    let scratch = new Float64Array(column.length);
    return (idx) => {
      if (idx.length > scratch.length) scratch = new Float64Array(idx.length);
      let n = 0;
      for (let i = 0; i < idx.length; i++) {
        const x = column[idx[i]];
        if (!Number.isNaN(x)) scratch[n++] = x;
      }
      return percentilesInPlace(scratch.subarray(0, n), [p])[0];
    };
  };

type Dist = LevelSummary['ttftMs'];

/** A latency percentile metric over one of the level's distributions (and its per-request value when there is one). */
function latency(
  id: MetricId,
  label: string,
  noun: string,
  dist: (l: LevelSummary) => Dist,
  p: number,
  perRequest: ((v: RequestValues) => number | null) | null,
  inVerdicts = true,
): MetricSpec {
  return {
    id,
    label,
    unit: 'ms',
    higherIsBetter: false,
    noun,
    inVerdicts,
    percentile: p,
    samples: (l) => dist(l)?.count ?? 0,
    value: (l) => pct(dist(l), `p${p}`),
    statistic: perRequest ? latencyPercentile(perRequest, p) : () => null,
  };
}

function rate(
  id: MetricId,
  label: string,
  unit: string,
  noun: string,
  value: (l: LevelSummary) => number | null,
  count: (v: RequestValues, l: LevelSummary) => number,
): MetricSpec {
  return {
    id,
    label,
    unit,
    higherIsBetter: true,
    noun,
    inVerdicts: true,
    value,
    statistic: (l, values) => throughputStatistic((v) => count(v, l))(l, values),
  };
}

/** Whether a request met every SLO of the level's goodput definition (1) or not (0). */
function goodCount(v: RequestValues, l: LevelSummary): number {
  const slo = l.goodput?.slo;
  if (!slo) return 0;
  const lat = { ...v, ttftContentMs: null, e2eInclQueueMs: null, queueWaitMs: 0 };
  return meetsSlo(lat, slo) ? 1 : 0;
}

const ttft = (l: LevelSummary) => l.ttftMs;
const ttftContent = (l: LevelSummary) => l.ttftContentMs;
const tpot = (l: LevelSummary) => l.tpotMs;
const e2e = (l: LevelSummary) => l.e2eMs;
const e2eQueue = (l: LevelSummary) => l.e2eInclQueueMs;
const chunkItl = (l: LevelSummary) => l.chunkItlMs;
const tokenItl = (l: LevelSummary) => l.tokenItlMs;

/** Every metric of the vocabulary (DESIGN.md), in the order tables show them. */
export const METRICS: Record<MetricId, MetricSpec> = {
  output_throughput: rate(
    'output_throughput',
    'Output tok/s',
    'tok/s',
    'output throughput',
    (l) => l.throughput.outputTokensPerS,
    (v) => v.outputTokens,
  ),
  request_throughput: rate(
    'request_throughput',
    'Requests/s',
    'req/s',
    'request throughput',
    (l) => l.throughput.requestsPerS,
    () => 1,
  ),
  input_throughput: rate(
    'input_throughput',
    'Input tok/s',
    'tok/s',
    'input throughput',
    (l) => l.throughput.inputTokensPerS,
    (v) => v.inputTokens,
  ),
  total_throughput: rate(
    'total_throughput',
    'Total tok/s',
    'tok/s',
    'total token throughput',
    (l) => l.throughput.totalTokensPerS,
    (v) => v.inputTokens + v.outputTokens,
  ),
  goodput: rate(
    'goodput',
    'Goodput req/s',
    'req/s',
    'goodput',
    (l) => l.goodput?.requestsPerS ?? null,
    goodCount,
  ),
  ttft_p50: latency('ttft_p50', 'TTFT p50', 'median TTFT', ttft, 50, (v) => v.ttftMs),
  ttft_p99: latency('ttft_p99', 'TTFT p99', 'p99 TTFT', ttft, 99, (v) => v.ttftMs),
  ttft_content_p50: latency(
    'ttft_content_p50',
    'TTFT-content p50',
    'median TTFT to visible content',
    ttftContent,
    50,
    (v) => v.ttftContentMs,
  ),
  ttft_content_p99: latency(
    'ttft_content_p99',
    'TTFT-content p99',
    'p99 TTFT to visible content',
    ttftContent,
    99,
    (v) => v.ttftContentMs,
  ),
  tpot_p50: latency('tpot_p50', 'TPOT p50', 'median TPOT', tpot, 50, (v) => v.tpotMs),
  tpot_p99: latency('tpot_p99', 'TPOT p99', 'p99 TPOT', tpot, 99, (v) => v.tpotMs),
  chunk_itl_p50: latency('chunk_itl_p50', 'Chunk ITL p50', 'median chunk ITL', chunkItl, 50, null, false),
  chunk_itl_p99: latency('chunk_itl_p99', 'Chunk ITL p99', 'p99 chunk ITL', chunkItl, 99, null, false),
  token_itl_p50: latency('token_itl_p50', 'Token ITL p50', 'median token ITL', tokenItl, 50, null, false),
  token_itl_p99: latency('token_itl_p99', 'Token ITL p99', 'p99 token ITL', tokenItl, 99, null, false),
  e2e_p50: latency('e2e_p50', 'E2E p50', 'median end-to-end latency', e2e, 50, (v) => v.e2eMs),
  e2e_p99: latency('e2e_p99', 'E2E p99', 'p99 end-to-end latency', e2e, 99, (v) => v.e2eMs),
  e2e_queue_p50: latency(
    'e2e_queue_p50',
    'E2E incl. queue p50',
    'median E2E including client queue',
    e2eQueue,
    50,
    (v) => v.e2eInclQueueMs,
  ),
  e2e_queue_p99: latency(
    'e2e_queue_p99',
    'E2E incl. queue p99',
    'p99 E2E including client queue',
    e2eQueue,
    99,
    (v) => v.e2eInclQueueMs,
  ),
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
  energy_per_token: {
    id: 'energy_per_token',
    label: 'Energy/token',
    unit: 'J/tok',
    higherIsBetter: false,
    noun: 'GPU energy per output token',
    inVerdicts: true,
    value: (l) => l.energyPerTokenJ ?? null,
    statistic: (l, values) => energyPerTokenStatistic(l, values),
  },
};

/**
 * Energy per output token under resampling: the level's mean GPU power held fixed, over the resampled
 * output throughput (throughputStatistic), so on the full sample it is joules / output tokens and its CI
 * reflects how steady the token rate was (the power samples are not per request and are not resampled).
 */
const energyPerTokenStatistic = (
  level: LevelSummary,
  values: readonly RequestValues[],
): IndexStatistic | null => {
  const watts = level.energy?.meanPowerW;
  if (level.energyPerTokenJ == null || watts == null) return null;
  const tokensPerS = throughputStatistic((v) => v.outputTokens)(level, values);
  return tokensPerS ? (idx) => watts / tokensPerS(idx) : null;
};

/** Reports and comparisons show every metric unless --metric narrows them. */
export const DEFAULT_METRICS: MetricId[] = Object.keys(METRICS) as MetricId[];

/** The note a percentile cell shows instead of a value its sample count cannot support; null when supported. */
export function tailNote(spec: MetricSpec, level: LevelSummary): string | null {
  if (spec.percentile === undefined || !spec.samples) return null;
  const n = spec.samples(level);
  return supportsPercentile(n, spec.percentile) ? null : unsupportedNote(spec.percentile, n);
}

export function isMetricId(s: string): s is MetricId {
  return Object.hasOwn(METRICS, s);
}
