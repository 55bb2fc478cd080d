// Turns the raw request records of one load level into its LevelSummary. Pure: no I/O, no clock.
// Rules: warmup records are excluded from every metric (only counted); failed records (any error code,
// BG_E_ABORTED included) are excluded from latency distributions, throughput, peak tokens/s and acceptance
// but counted (requests.failed, errorsByCode, goodput misses, window, achieved concurrency, reconciliation).
// Requests cut off at the level's end are reported through `inFlightAtEnd`; pass their records only if they
// should also count as failed. Definitions: request-latency.ts (latencies), window.ts (measured window, rates,
// peak, concurrency), goodput.ts, speculative.ts, token-reconciliation.ts, client-limit.ts.

import type { SpecCounters } from '../engines/types.js';
import { inputTokens, outputTokens, type RequestRecord, succeeded } from '../records/request-record.js';
import { type CacheContext, CacheTally, withCache } from './cache-share.js';
import { judgeClientLimit } from './client-limit.js';
import { distribution } from './distribution.js';
import { energyOverWindow, type PowerInput } from './energy.js';
import { hasAnySlo, meetsSlo } from './goodput.js';
import { pushChunkItlMs, pushTokenItlMs, requestLatencies } from './request-latency.js';
import { SampleBuffer } from './sample-buffer.js';
import { speculativeSummary } from './speculative.js';
import type { LevelKey, LevelSummary, SloSpec } from './summary.js';
import { reconcileTokens } from './token-reconciliation.js';
import { achievedConcurrency, measuredWindow, peakOutputTokensPerS, perSecond } from './window.js';
import { zeroGapShare } from './zero-gaps.js';

export interface LevelInput {
  levelIndex: number;
  level: LevelKey;
  /** All records of the level, including warmup and failed ones. */
  records: RequestRecord[];
  /** e.g. [50, 90, 95, 99]. */
  percentiles: number[];
  slo: SloSpec;
  inFlightAtEnd: number;
  /** /metrics counters scraped before and after the level (source is informative only). */
  specCounters?: { before: SpecCounters | null; after: SpecCounters | null; source?: string };
  /** The client self-check; with worker threads the worst worker's figures, and each worker's. */
  client?: {
    eventLoopDelayP99Ms: number | null;
    cpuPercentOfOneCore: number | null;
    workers?: { eventLoopDelayP99Ms: number | null; cpuPercentOfOneCore: number | null }[];
  };
  validity?: { valid: boolean; reasons: string[] };
  /** GPU power during the level (or why there is none): gives energyPerTokenJ; absent, the summary has no energy fields. */
  power?: PowerInput;
  /** Prefix-cache counter deltas and the workload's expected cached share (the level sweep's; see cache-share.ts). */
  cache?: CacheContext;
}

/** The per-request figures of a level's completed requests: distributions' samples and the sums. */
function collect(completed: readonly RequestRecord[], slo: SloSpec) {
  const n = completed.length;
  const c = {
    ttft: new SampleBuffer(n),
    ttftContent: new SampleBuffer(n),
    e2e: new SampleBuffer(n),
    e2eInclQueue: new SampleBuffer(n),
    queueWait: new SampleBuffer(n),
    tpot: new SampleBuffer(n),
    chunkItl: new SampleBuffer(),
    tokenItl: new SampleBuffer(),
    inputTokenSum: 0,
    outputTokenSum: 0,
    good: 0,
    cache: new CacheTally(),
  };
  const withSlo = hasAnySlo(slo);
  for (const r of completed) {
    c.cache.add(r);
    const lat = requestLatencies(r);
    if (lat.ttftMs !== null) c.ttft.push(lat.ttftMs);
    if (lat.ttftContentMs !== null) c.ttftContent.push(lat.ttftContentMs);
    if (lat.e2eMs !== null) c.e2e.push(lat.e2eMs);
    if (lat.e2eInclQueueMs !== null) c.e2eInclQueue.push(lat.e2eInclQueueMs);
    if (lat.tpotMs !== null) c.tpot.push(lat.tpotMs);
    c.queueWait.push(lat.queueWaitMs);
    pushChunkItlMs(r, c.chunkItl);
    pushTokenItlMs(r, c.tokenItl);
    c.inputTokenSum += inputTokens(r);
    c.outputTokenSum += outputTokens(r);
    if (withSlo && meetsSlo(lat, slo)) c.good++;
  }
  return c;
}

export function summarizeLevel(input: LevelInput): LevelSummary {
  const measured = input.records.filter((r) => !r.warmup);
  const completed = measured.filter(succeeded);
  const window = measuredWindow(measured);
  const c = collect(completed, input.slo);
  const errorsByCode: Record<string, number> = {};
  for (const r of measured) if (r.error) errorsByCode[r.error.code] = (errorsByCode[r.error.code] ?? 0) + 1;
  const p = input.percentiles;
  const clientCheck = input.client ?? { eventLoopDelayP99Ms: null, cpuPercentOfOneCore: null };
  return {
    levelIndex: input.levelIndex,
    level: input.level,
    windowS: window.durationS,
    requests: {
      completed: completed.length,
      failed: measured.length - completed.length,
      warmup: input.records.length - measured.length,
      inFlightAtEnd: input.inFlightAtEnd,
      retried: measured.filter((r) => (r.retries ?? 0) > 0).length,
    },
    ttftMs: distribution(c.ttft.view(), p),
    ttftContentMs: distribution(c.ttftContent.view(), p),
    chunkItlMs: distribution(c.chunkItl.view(), p),
    chunkItlZeroShare: zeroGapShare(c.chunkItl.view()),
    tokenItlMs: distribution(c.tokenItl.view(), p),
    tpotMs: distribution(c.tpot.view(), p),
    e2eMs: distribution(c.e2e.view(), p),
    e2eInclQueueMs: distribution(c.e2eInclQueue.view(), p),
    queueWaitMs: distribution(c.queueWait.view(), p),
    throughput: {
      requestsPerS: perSecond(completed.length, window),
      inputTokensPerS: perSecond(c.inputTokenSum, window),
      outputTokensPerS: perSecond(c.outputTokenSum, window),
      totalTokensPerS: perSecond(c.inputTokenSum + c.outputTokenSum, window),
      peakOutputTokensPerS: peakOutputTokensPerS(completed, window),
    },
    achievedConcurrency: achievedConcurrency(measured, window),
    goodput: hasAnySlo(input.slo)
      ? {
          requestsPerS: perSecond(c.good, window),
          fraction: measured.length > 0 ? c.good / measured.length : 0,
          slo: { ...input.slo },
        }
      : null,
    errorsByCode,
    tokenReconciliation: reconcileTokens(measured),
    speculative: speculativeSummary(completed, input.specCounters),
    client: { ...clientCheck, ...judgeClientLimit(clientCheck) },
    validity: input.validity
      ? { valid: input.validity.valid, reasons: [...input.validity.reasons] }
      : { valid: true, reasons: [] },
    ...(input.power ? energyOverWindow(input.power, window, c.outputTokenSum) : {}),
    ...withCache(c.cache.finish(input.cache)),
  };
}
