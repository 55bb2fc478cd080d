// summarizeLevel (level.ts) without holding the level's records: the same summary, computed from records
// fed one at a time in two passes, so a long level needs memory for its numeric samples only (typed
// arrays), never for its record objects. Pass 1 (`observe`) finds the measured window; pass 2 (`add`)
// takes every other figure, which needs the window (peak tokens/s buckets, achieved concurrency).
// Both passes must see the same records in the same order: sums are then added in the order
// summarizeLevel adds them, so the result is bit-for-bit equal (level-accumulator.test.ts proves it).
// Pure: the caller reads the records (results/level-from-file.ts streams them from requests.jsonl).

import { inputTokens, outputTokens, type RequestRecord, succeeded } from '../records/request-record.js';
import { CacheTally, withCache } from './cache-share.js';
import { judgeClientLimit } from './client-limit.js';
import { distribution } from './distribution.js';
import { energyOverWindow } from './energy.js';
import { hasAnySlo, meetsSlo } from './goodput.js';
import type { LevelInput } from './level.js';
import { chunkTokenCount, pushChunkItlMs, pushTokenItlMs, requestLatencies } from './request-latency.js';
import { SampleBuffer } from './sample-buffer.js';
import { acceptanceFromCounters } from './speculative.js';
import type { LevelSummary, SpeculativeSummary } from './summary.js';
import { type MeasuredWindow, perSecond } from './window.js';
import { zeroGapShare } from './zero-gaps.js';

/** Everything summarizeLevel takes except the records. */
export type LevelContext = Omit<LevelInput, 'records'>;

interface Samples {
  ttft: SampleBuffer;
  ttftContent: SampleBuffer;
  e2e: SampleBuffer;
  e2eInclQueue: SampleBuffer;
  queueWait: SampleBuffer;
  tpot: SampleBuffer;
  chunkItl: SampleBuffer;
  tokenItl: SampleBuffer;
}

export class LevelAccumulator {
  private measuredCount = 0;
  private warmupCount = 0;
  private startMs = Number.POSITIVE_INFINITY;
  private endMs = Number.NEGATIVE_INFINITY;
  private window: MeasuredWindow | null = null;
  /** Sample counts found in pass 1, so pass 2 allocates each buffer once at its exact size. */
  private readonly sizes = { completed: 0, chunkItl: 0, tokenItl: 0 };
  private samplesOrNull: Samples | null = null;
  private completed = 0;
  private inputTokenSum = 0;
  private outputTokenSum = 0;
  private good = 0;
  private busyMs = 0;
  private allTokens = 0;
  private buckets: Float64Array | null = null;
  private readonly errorsByCode: Record<string, number> = {};
  private retried = 0;
  private readonly reconciliation: LevelSummary['tokenReconciliation'] = {
    compared: 0,
    outputMismatches: 0,
    inputCompared: 0,
    inputMismatches: 0,
    chunkTokenSources: {},
  };
  private spec = { tokens: 0, steps: 0, reporting: 0 };
  private readonly cache = new CacheTally();

  constructor(private readonly ctx: LevelContext) {}

  /** Pass 1: every record of the level (warmup included), in the order pass 2 will see them. */
  observe(r: RequestRecord): void {
    if (r.warmup) {
      this.warmupCount++;
      return;
    }
    this.measuredCount++;
    if (r.sentMs < this.startMs) this.startMs = r.sentMs;
    if (r.endMs > this.endMs) this.endMs = r.endMs;
    if (!succeeded(r)) return;
    const n = r.chunkMs.length;
    this.sizes.completed++;
    this.sizes.chunkItl += Math.max(0, n - 1);
    for (let i = 0; i < n; i++) this.sizes.tokenItl += chunkTokenCount(r.chunkTokens[i] ?? 1);
    if (n > 0) this.sizes.tokenItl--;
  }

  private get samples(): Samples {
    if (this.samplesOrNull) return this.samplesOrNull;
    const { completed, chunkItl, tokenItl } = this.sizes;
    const per = () => new SampleBuffer(completed);
    this.samplesOrNull = {
      ttft: per(),
      ttftContent: per(),
      e2e: per(),
      e2eInclQueue: per(),
      queueWait: per(),
      tpot: per(),
      chunkItl: new SampleBuffer(chunkItl),
      tokenItl: new SampleBuffer(tokenItl),
    };
    return this.samplesOrNull;
  }

  private windowOf(): MeasuredWindow {
    if (this.window) return this.window;
    const w =
      this.measuredCount === 0
        ? { startMs: 0, endMs: 0, durationS: 0 }
        : {
            startMs: this.startMs,
            endMs: this.endMs,
            durationS: Math.max(0, this.endMs - this.startMs) / 1000,
          };
    const fullBuckets = Math.floor(w.durationS);
    this.buckets = fullBuckets > 0 ? new Float64Array(fullBuckets) : null;
    this.window = w;
    return w;
  }

  /** Pass 2: the same records again, same order. */
  add(r: RequestRecord): void {
    if (r.warmup) return;
    const w = this.windowOf();
    if (r.error) this.errorsByCode[r.error.code] = (this.errorsByCode[r.error.code] ?? 0) + 1;
    if ((r.retries ?? 0) > 0) this.retried++;
    this.reconcile(r);
    if (w.durationS > 0) {
      const from = Math.max(r.sentMs, w.startMs);
      const to = Math.min(r.endMs, w.endMs);
      if (to > from) this.busyMs += to - from;
    }
    if (!succeeded(r)) return;
    this.completed++;
    this.cache.add(r);
    const s = this.samples;
    const lat = requestLatencies(r);
    if (lat.ttftMs !== null) s.ttft.push(lat.ttftMs);
    if (lat.ttftContentMs !== null) s.ttftContent.push(lat.ttftContentMs);
    if (lat.e2eMs !== null) s.e2e.push(lat.e2eMs);
    if (lat.e2eInclQueueMs !== null) s.e2eInclQueue.push(lat.e2eInclQueueMs);
    if (lat.tpotMs !== null) s.tpot.push(lat.tpotMs);
    s.queueWait.push(lat.queueWaitMs);
    pushChunkItlMs(r, s.chunkItl);
    pushTokenItlMs(r, s.tokenItl);
    this.inputTokenSum += inputTokens(r);
    this.outputTokenSum += outputTokens(r);
    if (hasAnySlo(this.ctx.slo) && meetsSlo(lat, this.ctx.slo)) this.good++;
    this.bucketTokens(r, w);
    if (r.specVerifySteps !== null && r.specVerifySteps > 0) {
      this.spec.tokens += outputTokens(r);
      this.spec.steps += r.specVerifySteps;
      this.spec.reporting++;
    }
  }

  private reconcile(r: RequestRecord): void {
    const t = this.reconciliation;
    if (r.outputTokensServer !== null && r.outputTokensClient !== null) {
      t.compared++;
      if (r.outputTokensServer !== r.outputTokensClient) t.outputMismatches++;
    }
    if (r.inputTokensServer !== null && r.inputTokensClient !== null) {
      t.inputCompared = (t.inputCompared ?? 0) + 1;
      if (r.inputTokensServer !== r.inputTokensClient) t.inputMismatches++;
    }
    t.chunkTokenSources[r.chunkTokenSource] = (t.chunkTokenSources[r.chunkTokenSource] ?? 0) + 1;
  }

  /** window.ts peakOutputTokensPerS, one record at a time. */
  private bucketTokens(r: RequestRecord, w: MeasuredWindow): void {
    if (w.durationS <= 0) return;
    const buckets = this.buckets;
    if (buckets === null) {
      for (const k of r.chunkTokens) this.allTokens += k;
      return;
    }
    for (let i = 0; i < r.chunkMs.length; i++) {
      const b = Math.floor((r.chunkMs[i]! - w.startMs) / 1000);
      if (b >= 0 && b < buckets.length) buckets[b]! += r.chunkTokens[i] ?? 0;
    }
  }

  private peak(w: MeasuredWindow): number {
    if (w.durationS <= 0) return 0;
    if (this.buckets === null) return this.allTokens / w.durationS;
    let peak = 0;
    for (const v of this.buckets) if (v > peak) peak = v;
    return peak;
  }

  private speculative(): SpeculativeSummary | null {
    const { tokens, steps, reporting } = this.spec;
    if (steps > 0) {
      const summary: SpeculativeSummary = {
        acceptanceLength: tokens / steps,
        source: 'per-request',
        verifySteps: steps,
      };
      if (reporting < this.completed)
        summary.note = `${reporting} of ${this.completed} completed requests reported verify steps`;
      return summary;
    }
    const c = this.ctx.specCounters;
    return c ? acceptanceFromCounters(c.before, c.after) : null;
  }

  /** The level summary; call once, after pass 2. */
  finish(): LevelSummary {
    const ctx = this.ctx;
    const w = this.windowOf();
    const s = this.samples;
    const p = ctx.percentiles;
    const withSlo = hasAnySlo(ctx.slo);
    const clientCheck = ctx.client ?? { eventLoopDelayP99Ms: null, cpuPercentOfOneCore: null };
    return {
      levelIndex: ctx.levelIndex,
      level: ctx.level,
      windowS: w.durationS,
      requests: {
        completed: this.completed,
        failed: this.measuredCount - this.completed,
        warmup: this.warmupCount,
        inFlightAtEnd: ctx.inFlightAtEnd,
        retried: this.retried,
      },
      ttftMs: distribution(s.ttft.view(), p),
      ttftContentMs: distribution(s.ttftContent.view(), p),
      chunkItlMs: distribution(s.chunkItl.view(), p),
      chunkItlZeroShare: zeroGapShare(s.chunkItl.view()),
      tokenItlMs: distribution(s.tokenItl.view(), p),
      tpotMs: distribution(s.tpot.view(), p),
      e2eMs: distribution(s.e2e.view(), p),
      e2eInclQueueMs: distribution(s.e2eInclQueue.view(), p),
      queueWaitMs: distribution(s.queueWait.view(), p),
      throughput: {
        requestsPerS: perSecond(this.completed, w),
        inputTokensPerS: perSecond(this.inputTokenSum, w),
        outputTokensPerS: perSecond(this.outputTokenSum, w),
        totalTokensPerS: perSecond(this.inputTokenSum + this.outputTokenSum, w),
        peakOutputTokensPerS: this.peak(w),
      },
      achievedConcurrency: w.durationS > 0 ? this.busyMs / (w.durationS * 1000) : 0,
      goodput: withSlo
        ? {
            requestsPerS: perSecond(this.good, w),
            fraction: this.measuredCount > 0 ? this.good / this.measuredCount : 0,
            slo: { ...ctx.slo },
          }
        : null,
      errorsByCode: this.errorsByCode,
      tokenReconciliation: this.reconciliation,
      speculative: this.speculative(),
      client: { ...clientCheck, ...judgeClientLimit(clientCheck) },
      validity: ctx.validity
        ? { valid: ctx.validity.valid, reasons: [...ctx.validity.reasons] }
        : { valid: true, reasons: [] },
      ...(ctx.power ? energyOverWindow(ctx.power, w, this.outputTokenSum) : {}),
      ...withCache(this.cache.finish(ctx.cache)),
    };
  }
}

/** Both passes over an in-memory list (tests, and callers that already hold the records). */
export function summarizeLevelInPasses(ctx: LevelContext, records: Iterable<RequestRecord>): LevelSummary {
  const acc = new LevelAccumulator(ctx);
  for (const r of records) acc.observe(r);
  for (const r of records) acc.add(r);
  return acc.finish();
}
