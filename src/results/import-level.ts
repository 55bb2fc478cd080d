// Another tool's aggregate figures as a benchgate LevelSummary: its `mean_<m>_ms`, `median_<m>_ms`,
// `std_<m>_ms` and `p<N>_<m>_ms` keys as a Distribution, and the level's throughputs and counts.
// What the tool did not measure stays unknown (null or NaN), never zero.

import { extent } from '../core/extent.js';
import type { Distribution, LevelKey, LevelSummary, SpeculativeSummary } from '../metrics/summary.js';
import type { ResultFields } from './import-fields.js';

/** A Distribution from a metric's keys; null when the result has neither mean nor median. */
export function distFromKeys(
  f: ResultFields,
  metric: string,
  count: number,
  perRequestMs?: number[] | null,
): Distribution | null {
  const mean = f.amount(`mean_${metric}_ms`);
  const median = f.amount(`median_${metric}_ms`);
  if (mean === null && median === null) return null;
  const percentiles: Record<string, number> = {};
  if (median !== null) percentiles.p50 = median;
  const suffix = `_${metric}_ms`;
  for (const k of Object.keys(f.raw.fields)) {
    if (!k.startsWith('p') || !k.endsWith(suffix)) continue;
    const p = k.slice(1, -suffix.length);
    if (!/^\d+(\.\d+)?$/.test(p)) continue;
    const v = f.amount(k);
    if (v !== null) percentiles[`p${p}`] = v;
  }
  const range = extent(perRequestMs ?? []);
  return {
    count,
    mean: mean ?? Number.NaN,
    std: f.amount(`std_${metric}_ms`) ?? Number.NaN,
    min: range.min,
    max: f.amount(`max_${metric}_ms`) ?? range.max,
    percentiles,
  };
}

export interface LevelFacts {
  levelIndex: number;
  level: LevelKey;
  durationS: number;
  /** NaN when the tool did not say (SGLang before v0.2.12). */
  completed: number;
  failed: number;
  ttftMs: Distribution | null;
  tpotMs: Distribution | null;
  chunkItlMs: Distribution | null;
  /** The tool's ITL when it was per token (SGLang's native backend); absent when it was per chunk. */
  tokenItlMs?: Distribution | null;
  e2eMs: Distribution | null;
  requestsPerS: number;
  inputTokensPerS: number;
  outputTokensPerS: number;
  peakOutputTokensPerS: number | null;
  achievedConcurrency: number | null;
  goodputRequestsPerS: number | null;
  speculative: SpeculativeSummary | null;
}

export function levelSummaryFrom(f: LevelFacts): LevelSummary {
  return {
    levelIndex: f.levelIndex,
    level: f.level,
    windowS: f.durationS,
    requests: { completed: f.completed, failed: f.failed, warmup: 0, inFlightAtEnd: 0 },
    ttftMs: f.ttftMs,
    ttftContentMs: null,
    chunkItlMs: f.chunkItlMs,
    tokenItlMs: f.tokenItlMs ?? null,
    tpotMs: f.tpotMs,
    e2eMs: f.e2eMs,
    e2eInclQueueMs: null,
    queueWaitMs: null,
    throughput: {
      requestsPerS: f.requestsPerS,
      inputTokensPerS: f.inputTokensPerS,
      outputTokensPerS: f.outputTokensPerS,
      totalTokensPerS: f.inputTokensPerS + f.outputTokensPerS,
      peakOutputTokensPerS: f.peakOutputTokensPerS ?? Number.NaN,
    },
    achievedConcurrency: f.achievedConcurrency ?? Number.NaN,
    goodput:
      f.goodputRequestsPerS === null
        ? null
        : {
            requestsPerS: f.goodputRequestsPerS,
            fraction: f.requestsPerS > 0 ? f.goodputRequestsPerS / f.requestsPerS : 0,
            slo: {},
          },
    errorsByCode: f.failed > 0 ? { imported: f.failed } : {},
    tokenReconciliation: { compared: 0, outputMismatches: 0, inputMismatches: 0, chunkTokenSources: {} },
    speculative: f.speculative,
    client: { eventLoopDelayP99Ms: null, cpuPercentOfOneCore: null, clientLimited: false },
    validity: { valid: true, reasons: [] },
  };
}

/** A per-second figure the tool wrote, else `total / durationS` (the tools' own definition), else NaN. */
export function perSecond(f: ResultFields, key: string, totalKey: string, durationS: number): number {
  const v = f.amount(key);
  if (v !== null) return v;
  const total = f.amount(totalKey);
  return total !== null && durationS > 0 ? total / durationS : Number.NaN;
}
