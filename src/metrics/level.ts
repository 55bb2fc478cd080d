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

export function summarizeLevel(input: LevelInput): LevelSummary {
  const measured = input.records.filter((r) => !r.warmup);
  const completed = measured.filter(succeeded);
  const failedCount = measured.length - completed.length;
  const window = measuredWindow(measured);

  const ttft = new SampleBuffer(completed.length);
  const ttftContent = new SampleBuffer(completed.length);
  const e2e = new SampleBuffer(completed.length);
  const e2eInclQueue = new SampleBuffer(completed.length);
  const queueWait = new SampleBuffer(completed.length);
  const tpot = new SampleBuffer(completed.length);
  const chunkItl = new SampleBuffer();
  const tokenItl = new SampleBuffer();
  let inputTokenSum = 0;
  let outputTokenSum = 0;
  let good = 0;
  const withSlo = hasAnySlo(input.slo);
  const cache = new CacheTally();
  for (const r of completed) {
    cache.add(r);
    const lat = requestLatencies(r);
    if (lat.ttftMs !== null) ttft.push(lat.ttftMs);
    if (lat.ttftContentMs !== null) ttftContent.push(lat.ttftContentMs);
    if (lat.e2eMs !== null) e2e.push(lat.e2eMs);
    if (lat.e2eInclQueueMs !== null) e2eInclQueue.push(lat.e2eInclQueueMs);
    if (lat.tpotMs !== null) tpot.push(lat.tpotMs);
    queueWait.push(lat.queueWaitMs);
    pushChunkItlMs(r, chunkItl);
    pushTokenItlMs(r, tokenItl);
    inputTokenSum += inputTokens(r);
    outputTokenSum += outputTokens(r);
    if (withSlo && meetsSlo(lat, input.slo)) good++;
  }

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
      failed: failedCount,
      warmup: input.records.length - measured.length,
      inFlightAtEnd: input.inFlightAtEnd,
    },
    ttftMs: distribution(ttft.view(), p),
    ttftContentMs: distribution(ttftContent.view(), p),
    chunkItlMs: distribution(chunkItl.view(), p),
    tokenItlMs: distribution(tokenItl.view(), p),
    tpotMs: distribution(tpot.view(), p),
    e2eMs: distribution(e2e.view(), p),
    e2eInclQueueMs: distribution(e2eInclQueue.view(), p),
    queueWaitMs: distribution(queueWait.view(), p),
    throughput: {
      requestsPerS: perSecond(completed.length, window),
      inputTokensPerS: perSecond(inputTokenSum, window),
      outputTokensPerS: perSecond(outputTokenSum, window),
      totalTokensPerS: perSecond(inputTokenSum + outputTokenSum, window),
      peakOutputTokensPerS: peakOutputTokensPerS(completed, window),
    },
    achievedConcurrency: achievedConcurrency(measured, window),
    goodput: withSlo
      ? {
          requestsPerS: perSecond(good, window),
          fraction: measured.length > 0 ? good / measured.length : 0,
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
    ...(input.power ? energyOverWindow(input.power, window, outputTokenSum) : {}),
    ...withCache(cache.finish(input.cache)),
  };
}
