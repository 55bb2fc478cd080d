// The level summary: pure output of metrics over the records of one load level.
// This is the `level-NN.json` file format and the element type of `summary.json`'s `levels`.

export interface Distribution {
  count: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  /**
   * Keyed `p50`, `p90`, `p95`, `p99`, `p99.9` … (linear interpolation between order statistics). In the
   * run files a percentile `count` samples cannot support (metrics/tail-samples.ts) is null.
   */
  percentiles: Record<string, number | null>;
}

export type { LevelKey } from '../records/level-key.js';

import type { LevelKey } from '../records/level-key.js';
import type { CacheEvidence } from './cache-share.js';
import type { EnergySummary } from './energy.js';
import type { Validity } from './validity.js';

export interface SpeculativeSummary {
  /** Σ output tokens / Σ verify steps over the level. */
  acceptanceLength: number;
  /**
   * per-request: the level's own requests' verify steps (SGLang meta_info.spec_verify_ct, llama.cpp
   * timings.draft_n_accepted); `meta_info` in runs written before 2026-12-04 means the same.
   */
  source: 'per-request' | 'metrics-counters' | 'metrics-gauge' | 'meta_info';
  /** Human note, e.g. "gauge fallback: server average, not this level's". */
  note?: string;
  verifySteps?: number;
  draftTokens?: number;
  acceptedTokens?: number;
}

export interface LevelSummary {
  levelIndex: number;
  level: LevelKey;
  /**
   * Repeated trials (load.trials): which trial of this level (1-based); the same level key then appears
   * once per trial, each a level of its own. Absent when the level ran once.
   */
  trial?: number;
  /** Measured window in seconds (first measured send → last measured end). */
  windowS: number;
  requests: {
    /** Measured (non-warmup) requests that finished without error. */
    completed: number;
    failed: number;
    warmup: number;
    /** Requests still running when the level ended (see load docs for how they are counted). */
    inFlightAtEnd: number;
    /**
     * Measured requests sent a second time on a new connection because the kept-alive one had been
     * closed by the server before any answer (a record's `retries`); not failures. Absent in older summaries.
     */
    retried?: number;
  };
  ttftMs: Distribution | null;
  ttftContentMs: Distribution | null;
  chunkItlMs: Distribution | null;
  /** Share of chunk gaps under 0.05 ms (events read together: metrics/zero-gaps.ts); absent in older runs. */
  chunkItlZeroShare?: number | null;
  tokenItlMs: Distribution | null;
  tpotMs: Distribution | null;
  e2eMs: Distribution | null;
  e2eInclQueueMs: Distribution | null;
  queueWaitMs: Distribution | null;
  throughput: {
    requestsPerS: number;
    inputTokensPerS: number;
    outputTokensPerS: number;
    totalTokensPerS: number;
    /** Highest output tokens counted in any 1 s bucket of the window. */
    peakOutputTokensPerS: number;
  };
  /** Time-weighted mean number of requests in flight over the window. */
  achievedConcurrency: number;
  goodput: { requestsPerS: number; fraction: number; slo: SloSpec } | null;
  errorsByCode: Record<string, number>;
  tokenReconciliation: {
    /** Measured requests with both a server and a client OUTPUT count (outputMismatches is out of these). */
    compared: number;
    outputMismatches: number;
    /** Measured requests with both a server and a client INPUT count (inputMismatches is out of these). */
    inputCompared?: number;
    inputMismatches: number;
    /** How per-chunk token counts were derived, with request counts. */
    chunkTokenSources: Record<string, number>;
  };
  speculative: SpeculativeSummary | null;
  client: {
    /** With worker threads: the worst worker's figures (each worker's are in `workers`). */
    eventLoopDelayP99Ms: number | null;
    cpuPercentOfOneCore: number | null;
    /** Present when the level ran in worker threads (--workers): each worker's self-check, in order. */
    workers?: { eventLoopDelayP99Ms: number | null; cpuPercentOfOneCore: number | null }[];
    clientLimited: boolean;
    reason?: string;
    /** Loop lag caused by the host rather than the client: kept in verdicts, noted in tables. */
    timingNoise?: string;
  };
  validity: {
    valid: boolean;
    /** Why not, e.g. "server restarted during the level (start time changed)". */
    reasons: string[];
  };
  /**
   * The level's validity judgement (validity.ts `judgeLevel`), made once when the level ended and read by
   * every surface; absent in files written before it was stored (judged once at read time then).
   */
  judgement?: Validity;
  /**
   * GPU energy per output token over the measured window (J/token); null when there was no power data
   * (`energy.reason` says why). Absent in summaries written before GPU telemetry existed.
   */
  energyPerTokenJ?: number | null;
  energy?: EnergySummary;
  /** workload.kind multi_turn: TTFT and history length by turn position (absent for other workloads). */
  multiTurn?: TurnSummary[];
  /**
   * Prompt tokens served from the server's prefix cache over the measured requests, and the source of the
   * figure (metrics/cache-share.ts). Absent in summaries written before it was recorded, and in imports.
   */
  cache?: CacheEvidence;
}

/** Measured turns at one position of their conversations (multi-turn levels). */
export interface TurnSummary {
  /** 1-based position in the conversation. */
  turn: number;
  completed: number;
  failed: number;
  ttftMs: Distribution | null;
  /** Tokens of the whole history sent at this turn (client count), over completed turns. */
  historyTokens: { mean: number; max: number } | null;
  /** Prompt tokens the server counted (chat template included), mean over turns that reported them. */
  inputTokensServerMean: number | null;
  /** Σ cached / Σ prompt tokens the server reported for these turns (prefix cache), null when none said. */
  cachedShare: number | null;
}

export interface SloSpec {
  ttft_ms?: number;
  tpot_ms?: number;
  e2e_ms?: number;
}

/** summary.json: the whole run. */
export interface RunSummary {
  schema: 'benchgate.summary/1';
  runId: string;
  name: string;
  levels: LevelSummary[];
  /** Set when the run ended early (interrupt, fatal error). */
  incomplete?: { reason: string };
}
