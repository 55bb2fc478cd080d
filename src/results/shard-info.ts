// What a shard run and a merged run state in their manifests. A shard is one of N processes (pods on
// Kubernetes, or local processes) running one share of the same plan; `benchgate merge` joins their run
// directories into one run. Clock samples say how far each shard's wall clock was from a common
// reference when it started and ended, so the merge can place every record on one timeline and say how
// exact that placement is.

/** One measurement of (reference clock − this process's wall clock). */
export interface ClockSample {
  /** Monotonic ms since the run's anchor when the sample was taken. */
  atMs: number;
  offsetMs: number;
  /** Half-width of the interval the true offset lies in. */
  uncertaintyMs: number;
}

export interface ShardClock {
  /** What the offset was measured against, e.g. "http-date http://host:8000/v1/models". */
  reference: string;
  start: ClockSample | null;
  end: ClockSample | null;
}

/** manifest.shard of one shard's run. */
export interface ShardInfo {
  index: number;
  count: number;
  /** Epoch ms every shard waited for before its first request (null: none given). */
  startAtEpochMs: number | null;
  /** How long after startAtEpochMs this shard got there (0: it waited for it); absent in older runs. */
  lateStartMs?: number;
  /** This process's wall clock at the run's monotonic anchor, sub-millisecond (performance.timeOrigin based). */
  wallAtAnchorMs: number;
  /** Linux boot id (/proc/sys/kernel/random/boot_id): shards with the same one share one kernel clock. */
  bootId: string | null;
  clock: ShardClock;
}

/** One shard as the merged manifest states it. */
export interface MergedShard {
  index: number;
  dir: string;
  runId: string;
  records: number;
  reference: string;
  /** Offset applied to this shard's records (mean of its start and end samples). */
  offsetMs: number;
  /** |end − start offset|: how far the shard's clock moved against the reference during the run. */
  driftMs: number;
  /** Largest sample uncertainty + drift: how far any of its records may be misplaced. */
  boundMs: number;
}

/** manifest.merge of a merged run. */
export interface MergeInfo {
  shards: MergedShard[];
  /** Largest misplacement between two shards' records (the two largest shard bounds added). */
  skewBoundMs: number;
  maxSkewMs: number;
  /** Largest tolerated gap between the shards' first requests of a level, and to the common start. */
  maxStartLagMs?: number;
  /**
   * True when a shard has no clock samples, the skew bound exceeds maxSkewMs, or the shards' first
   * requests of a level (or of the run, against the common start) lie further apart than maxStartLagMs.
   */
  suspect: boolean;
  reasons: string[];
}
