// Repeated trials of one level (load.trials: the sweep run N times, each trial a level of its own with
// `trial` set) pooled into one summary for tables and verdicts. Per-request figures (latency
// distributions, errors, token counts, cached tokens, acceptance) are recomputed from the trials'
// records together, so a tail gets every trial's samples; figures over a measured window (throughput,
// achieved concurrency, goodput rate) are the trials' totals over their summed windows, since the gaps
// between trials (other levels ran there) are no part of any window. Pure.

import type { RequestRecord } from '../records/request-record.js';
import type { CacheCounterDelta } from './cache-share.js';
import { summarizeLevelInPasses } from './level-accumulator.js';
import type { LevelSummary } from './summary.js';
import { percentileOfKey } from './tail-samples.js';

/** Σ (figure × window) / Σ window over the trials: the rate of their pooled windows. */
function pooledRate(trials: readonly LevelSummary[], pick: (l: LevelSummary) => number): number {
  const w = trials.reduce((a, t) => a + t.windowS, 0);
  return w > 0 ? trials.reduce((a, t) => a + pick(t) * t.windowS, 0) / w : 0;
}

/** Sum of the trials' counter deltas, when every trial has them. */
function pooledCounters(trials: readonly LevelSummary[]): CacheCounterDelta | null {
  const all = trials.map((t) => t.cache?.counters);
  if (all.some((c) => !c)) return null;
  const cs = all as CacheCounterDelta[];
  return {
    hitTokens: cs.reduce((a, c) => a + c.hitTokens, 0),
    queryTokens: cs.reduce((a, c) => a + c.queryTokens, 0),
    source: cs[0].source,
  };
}

/** The client self-check over trials: the worst figures; limited or noisy if any trial was. */
function worstClient(trials: readonly LevelSummary[]): LevelSummary['client'] {
  const max = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return v.length ? Math.max(...v) : null;
  };
  const limited = trials.find((t) => t.client.clientLimited);
  const noisy = trials.find((t) => t.client.timingNoise);
  return {
    eventLoopDelayP99Ms: max(trials.map((t) => t.client.eventLoopDelayP99Ms)),
    cpuPercentOfOneCore: max(trials.map((t) => t.client.cpuPercentOfOneCore)),
    clientLimited: limited !== undefined,
    ...(limited?.client.reason ? { reason: `trial ${limited.trial}: ${limited.client.reason}` } : {}),
    ...(noisy?.client.timingNoise
      ? { timingNoise: `trial ${noisy.trial}: ${noisy.client.timingNoise}` }
      : {}),
  };
}

/** Energy per output token over the trials, when every trial has its joules. */
function pooledEnergy(trials: readonly LevelSummary[]): Pick<LevelSummary, 'energyPerTokenJ'> {
  if (trials.every((t) => t.energy === undefined)) return {};
  const joules = trials.map((t) => t.energy?.joules ?? null);
  const tokens = trials.reduce((a, t) => a + (t.energy?.outputTokens ?? 0), 0);
  if (joules.some((j) => j === null) || tokens <= 0) return { energyPerTokenJ: null };
  return { energyPerTokenJ: (joules as number[]).reduce((a, b) => a + b, 0) / tokens };
}

/**
 * One summary for the trials of one level (`trials` in trial order, `records` their measured records).
 * A single trial is returned as it is.
 */
export function poolTrials(trials: readonly LevelSummary[], records: readonly RequestRecord[]): LevelSummary {
  if (trials.length === 1) return trials[0];
  const first = trials[0];
  const keys = Object.keys(first.ttftMs?.percentiles ?? first.e2eMs?.percentiles ?? {});
  const percentiles = keys.map(percentileOfKey).filter((p): p is number => p !== null);
  const indices = new Set(trials.map((t) => t.levelIndex));
  const expected = first.cache?.expectedShare;
  const pooled = summarizeLevelInPasses(
    {
      levelIndex: first.levelIndex,
      level: first.level,
      percentiles: percentiles.length ? percentiles : [50, 90, 95, 99],
      slo: first.goodput?.slo ?? {},
      inFlightAtEnd: trials.reduce((a, t) => a + t.requests.inFlightAtEnd, 0),
      cache: { counters: pooledCounters(trials), expectedShare: expected ?? null },
    },
    records.filter((r) => indices.has(r.levelIndex)),
  );
  const rate = (pick: (l: LevelSummary) => number) => pooledRate(trials, pick);
  const specAll = trials.every((t) => t.speculative);
  return {
    ...pooled,
    windowS: trials.reduce((a, t) => a + t.windowS, 0),
    requests: { ...pooled.requests, warmup: trials.reduce((a, t) => a + t.requests.warmup, 0) },
    throughput: {
      requestsPerS: rate((t) => t.throughput.requestsPerS),
      inputTokensPerS: rate((t) => t.throughput.inputTokensPerS),
      outputTokensPerS: rate((t) => t.throughput.outputTokensPerS),
      totalTokensPerS: rate((t) => t.throughput.totalTokensPerS),
      peakOutputTokensPerS: Math.max(...trials.map((t) => t.throughput.peakOutputTokensPerS)),
    },
    achievedConcurrency: rate((t) => t.achievedConcurrency),
    goodput: pooled.goodput && { ...pooled.goodput, requestsPerS: rate((t) => t.goodput?.requestsPerS ?? 0) },
    speculative:
      pooled.speculative ??
      (specAll
        ? { ...first.speculative!, acceptanceLength: rate((t) => t.speculative?.acceptanceLength ?? 0) }
        : null),
    client: worstClient(trials),
    validity: {
      valid: trials.every((t) => t.validity.valid),
      reasons: trials.flatMap((t) => t.validity.reasons.map((r) => `trial ${t.trial}: ${r}`)),
    },
    ...pooledEnergy(trials),
  };
}
