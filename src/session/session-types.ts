// The shapes of a session: what opening one takes, what a level sweep takes and gives back, and the
// session itself. Kept apart from the code that opens and sweeps, so both halves (open-session.ts,
// level-sweeper.ts) and every caller read the same declarations; session.ts re-exports them.

import type { CheckpointOutcome } from '../checkpoint/gate.js';
import type { ClockAnchor } from '../core/clock.js';
import type { ErrorCode } from '../core/errors.js';
import type { EngineName } from '../engines/types.js';
import type { ProgressView } from '../load/progress.js';
import type { Shard } from '../load/shard.js';
import type { PromptTokenizer } from '../load/tokenizer.js';
import type { PrefixHitRates } from '../metrics/prefix-hits.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import type { LevelKey } from '../records/level-key.js';
import type { RunStore } from '../results/run-store.js';

/** What the checkpoint gate returns: its report and the verified target (null when none was built). */
export type BeforeLoadResult = CheckpointOutcome;

export interface LevelValidity {
  valid: boolean;
  reasons: string[];
  /** Later levels must not run (the server no longer passes the checkpoint), and why. */
  endRun?: string;
}

export interface OpenSessionOptions {
  plan: Plan;
  /** The URL actually targeted (the plan's, or the embedded simulator's). */
  url: string;
  /** Auth and plan headers sent with every request. */
  headers: Record<string, string>;
  /** Secret values in use, scrubbed from everything the run store writes. */
  secrets: string[];
  planPath?: string | null;
  progress?: ProgressView;
  /** Run past failed required checkpoint findings (recorded in the manifest). */
  force?: boolean;
  /** When preparation fails after the checkpoint passed, a run directory with both is written here. */
  failureOutDir?: string;
  /** Checkpoint gate, called once before any load is sent. */
  beforeLoad?: (ctx: { url: string }) => Promise<BeforeLoadResult>;
  /** Send only this shard's share of every level (bench with JOB_COMPLETION_INDEX). */
  shard?: Shard | null;
  /**
   * The run's interrupt: every wait on the target after it (telemetry, counters, cache flush, the
   * re-checks between levels, the smoke request, the tokenizer) ends at once instead of at its timeout.
   */
  signal?: AbortSignal;
}

/** A level that stopped on its error rate (BG_E_LEVEL_ERROR_RATE) or after a failed re-check. */
export interface LevelStop {
  code: ErrorCode;
  message: string;
  /**
   * The run must not go on: no request of the level succeeded (the server is taken as dead), or the
   * server failed the checkpoint again after a drift (see docs/reliability.md).
   */
  endsRun: boolean;
}

export interface LevelOutcome {
  summary: LevelSummary;
  interrupted: boolean;
  /** Shared-prefix workloads: configured and observed prefix-cache hit rates. */
  prefixCache: PrefixHitRates | null;
  stop: LevelStop | null;
}

export interface RunLevelOptions {
  /** Where the level's records and summary go (from `session.openStore`). */
  store: RunStore;
  signal?: AbortSignal;
  /** Drift check after the level; an invalid result marks the level invalid. */
  afterLevel?: (levelIndex: number) => Promise<LevelValidity>;
  /**
   * A level not in plan.load.levels (an SLO-search probe): its key, the SLOs to judge it by, and its
   * own size (measured requests and a time bound) in place of load.requests and load.duration.
   */
  probe?: { level: LevelKey; slo: Plan['slo']; requests?: number; durationMs?: number };
  /** Repeated trials (load.trials): this level is trial `index` of plan level `planLevel`, stored at the index given. */
  trial?: { index: number; planLevel: number };
  /** Awaited once the level is prepared, just before its first request (a shard waits for the common start). */
  beforeSend?: () => Promise<void>;
}

export interface Session {
  readonly plan: Plan;
  readonly url: string;
  readonly engine: EngineName;
  readonly model: string;
  /** The one wall-clock anchor of the session: every record time is relative to it. */
  readonly anchor: ClockAnchor;
  readonly checkpoint: BeforeLoadResult | null;
  readonly forced: { failedFindingIds: string[] } | null;
  readonly tokenizer: PromptTokenizer;
  /** A run store whose manifest carries this session (anchor, verified target, tokenizer). */
  openStore(where: { outDir?: string; runDir?: string; name?: string }): RunStore;
  /** Sweeps the plan's level `levelIndex` (index into plan.load.levels) into `store`. */
  runLevel(levelIndex: number, o: RunLevelOptions): Promise<LevelOutcome>;
  /** Closes the pooled connections to the target (the run store is closed by its owner). */
  close(): void;
}
