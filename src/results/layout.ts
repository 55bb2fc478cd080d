// The run directory format (documented in docs/results-format.md, versioned by the schema strings):
//   <out>/<run-id>/manifest.json      resolved plan (secrets redacted), versions, clock anchor, verified target, checkpoint
//   <out>/<run-id>/requests.jsonl     one RequestRecord per line, appended as each request completes
//   <out>/<run-id>/level-NN.json      one LevelSummary per level, written when the level ends
//   <out>/<run-id>/summary.json       RunSummary, written at the end (and on interrupt)
//   <out>/<run-id>/summary.csv        one row per level
//   <out>/<run-id>/validity.json      the run's validity judgement with its reasons (validity-file.ts)
// Matrix runs nest one run directory per configuration under <out>/<matrix-id>/<config-name>/.
// The results store (store/) sits beside the runs by default: <out>/benchgate-store.duckdb (+ .wal).

import type { CheckpointReport } from '../checkpoint/finding.js';
import type { GpuSample } from '../checkpoint/nvidia-smi.js';
import type { ClockAnchor } from '../core/clock.js';
import type { ReadResult } from '../core/read-result.js';
import type { VerifiedTarget } from '../engines/types.js';
import type { LosslessRecord } from '../metrics/lossless.js';
import type { RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import type { RunValidity } from './run-validity.js';
import type { MergeInfo, ShardInfo } from './shard-info.js';
import type { SloSearchRecord } from './slo-search-record.js';

export const MANIFEST_FILE = 'manifest.json';
export const REQUESTS_FILE = 'requests.jsonl';
export const SUMMARY_FILE = 'summary.json';
export const SUMMARY_CSV_FILE = 'summary.csv';
/** The results store's file in a results directory (and DuckDB's write-ahead log beside it). */
export const STORE_FILE = 'benchgate-store.duckdb';
export const isStoreFileName = (name: string): boolean => name === STORE_FILE || name === `${STORE_FILE}.wal`;
/**
 * Repeated trials (load.trials N > 1): level i of trial t is stored at index (t−1)·L + i, tagged with its
 * trial and plan level; with one trial (or no levels) a stored index is the plan level and has no tag.
 */
export function trialAt(
  levels: number,
  trials: number,
  idx: number,
): { index: number; planLevel: number } | undefined {
  if (trials <= 1 || levels < 1) return undefined;
  return { index: Math.floor(idx / levels) + 1, planLevel: idx % levels };
}

export const levelFile = (levelIndex: number): string => `level-${String(levelIndex).padStart(2, '0')}.json`;
/** A level's /metrics time series (session/level-telemetry.ts). */
export const telemetryFile = (levelIndex: number): string =>
  `telemetry-level-${String(levelIndex).padStart(2, '0')}.json`;
/**
 * The level being measured: each /metrics sample as it is scraped, one JSON line each, for the live
 * dashboard; removed once telemetryFile(levelIndex) is written (a crashed level leaves it behind).
 */
export const liveTelemetryFile = (levelIndex: number): string =>
  `telemetry-level-${String(levelIndex).padStart(2, '0')}.live.jsonl`;
/** A shared-prefix level's configured vs observed prefix-cache hit rate (session.ts). */
export const prefixCacheFile = (levelIndex: number): string =>
  `prefix-cache-level-${String(levelIndex).padStart(2, '0')}.json`;
/** A level's nvidia-smi samples on the target's host (session/gpu-telemetry.ts). */
export const gpuFile = (levelIndex: number): string =>
  `gpu-level-${String(levelIndex).padStart(2, '0')}.json`;

export interface Manifest {
  schema: 'benchgate.manifest/1';
  runId: string;
  name: string;
  /** The resolved plan with header values and anything key-like redacted. */
  plan: Plan;
  planPath: string | null;
  versions: { benchgate: string; node: string; os: string };
  anchor: ClockAnchor;
  /** Filled by the checkpoint; null when it was skipped. */
  verifiedTarget: VerifiedTarget | null;
  checkpoint: CheckpointReport | null;
  /** Set when the user forced a run past failed required checks. */
  forced: { failedFindingIds: string[] } | null;
  /** Levels whose demand exceeds the client's calibrated capacity (`benchgate calibrate`), one sentence each. */
  capacityNotes?: string[];
  /** How prompts were sized: the server's tokenizer, a local tokenizer.json, or an approximation. */
  tokenizer: { method: 'server-tokenize' | 'local-tokenizer-json' | 'approximate'; detail: string } | null;
  /** Where results came from: benchgate itself, or an import of another tool's file. */
  source: {
    tool: 'benchgate' | 'sglang-bench-serving' | 'vllm-bench-serve';
    file?: string;
    definitions?: string;
    /** Imports: whether the tool's ITL figures were per token or per chunk (see the importer). */
    itl?: 'token' | 'chunk';
    /**
     * Imports without per-request records (so without confidence intervals): read from a result table
     * the tool printed, or from a result file written without its per-request details.
     */
    summaryOnly?: 'printed-table' | 'no-details';
    /** Imports: the engine the tool's `backend` names (sglang, vllm, …); absent when it names only an API. */
    engine?: string;
    /** Imports: the totals the tool stated for each level (null: not stated), kept as it printed them. */
    statedTotals?: StatedTotals[];
  };
  startedAt: string;
  finishedAt: string | null;
  /** Set on a shard's run (bench with JOB_COMPLETION_INDEX): which share it ran and its clock offsets. */
  shard?: ShardInfo;
  /** Set on a run made by `benchgate merge`: its shards, their clock offsets and the skew bound. */
  merge?: MergeInfo;
}

/** One run as read from disk by src/results/read-run.ts, the input of every comparison and report. */
/** An imported level's totals as the tool stated them: token counts and the total token throughput. */
export interface StatedTotals {
  levelIndex: number;
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokensPerS: number | null;
}

export interface LoadedRun {
  /** Display name: the plan's name, else the directory name (made unique by the caller). */
  name: string;
  dir: string;
  manifest: Manifest | null;
  summary: RunSummary;
  /** Measured (non-warmup) request records; empty when the run has none (e.g. an aggregate-only import). */
  records: RequestRecord[];
  /** Things the reader tolerated and the user should know (truncated requests file, missing summary). */
  warnings: string[];
  /** The lossless verdict (lossless.json) when the run has one. */
  lossless?: LosslessRecord | null;
  /** Server and GPU telemetry per level index (telemetry-level-NN.json, gpu-level-NN.json); a level without files is absent. */
  telemetry?: Record<number, LevelTelemetryFiles>;
  /**
   * The run's validity judgement (run-validity.ts): validity.json when it still matches the files, else
   * judged once when the run was read. Read it through run-validity.ts `validityOf`.
   */
  validity?: RunValidity;
  /** slo-search.json: the search's outcome; unknown when the run has none, unreadable when it is broken. */
  sloSearch?: ReadResult<SloSearchRecord>;
}

/** The parts of telemetry-level-NN.json the report reads (written by load/telemetry.ts). */
export interface StoredServerTelemetry {
  intervalMs: number;
  sources: Record<string, string | null>;
  samples: { tMs: number; values: Record<string, number | null | undefined> }[];
  failedScrapes: number;
}

/** The parts of gpu-level-NN.json the report reads (written by session/gpu-telemetry.ts). */
export interface StoredGpuTelemetry {
  available: boolean;
  reason: string | null;
  host: string;
  intervalMs: number;
  samples: (GpuSample & { tMs: number })[];
  unreadableLines: number;
}

export interface LevelTelemetryFiles {
  server: StoredServerTelemetry | null;
  gpu: StoredGpuTelemetry | null;
}
