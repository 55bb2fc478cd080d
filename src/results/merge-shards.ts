// Reading the shards of one run for `benchgate merge` and placing them on one timeline: each shard's
// manifest and summary checked (results/shard-check.ts), the set checked (one plan, every index once), and
// each shard's offset, drift and bound from its clock samples (or one machine's shared clock).

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { MANIFEST_FILE, type Manifest, SUMMARY_FILE } from './layout.js';
import { checkLevels } from './run-shape.js';
import { checkShardInfo, someNumbers } from './shard-check.js';
import type { MergedShard, MergeInfo, ShardInfo } from './shard-info.js';

/** Default largest tolerated misplacement between two shards' records. */
export const DEFAULT_MAX_SKEW_MS = 10;
/** Default largest tolerated gap between the shards' first requests of a level (and the common start). */
export const DEFAULT_MAX_START_LAG_MS = 250;

export interface MergeOptions {
  dirs: string[];
  /** Parent directory of the merged run (a new <stamp>-<name>-merged directory). */
  outDir: string;
  maxSkewMs?: number;
  maxStartLagMs?: number;
}

export interface MergeResult {
  runDir: string;
  runId: string;
  merge: MergeInfo;
  summary: RunSummary;
}

export interface ShardRun {
  dir: string;
  manifest: Manifest & { shard: ShardInfo };
  summary: RunSummary;
}

async function readJson<T>(path: string, what: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new BenchgateError('BG_E_RUN_DIR', `Expected ${what} at ${path}; it cannot be read.`);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new BenchgateError('BG_E_RUN_DIR', `Expected ${what} at ${path}; it is not valid JSON.`);
  }
}

async function readShard(dir: string): Promise<ShardRun> {
  const file = join(dir, MANIFEST_FILE);
  const manifest = await readJson<Manifest>(file, 'a benchgate manifest');
  if (manifest?.schema !== 'benchgate.manifest/1')
    throw new BenchgateError('BG_E_RUN_DIR', `${file} is not a benchgate manifest.`);
  if (!manifest.shard || typeof manifest.shard !== 'object')
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `${dir} is not a shard run (its manifest has no "shard"); merge joins runs made with JOB_COMPLETION_INDEX set.`,
    );
  checkShardInfo(manifest, file);
  const summary = await readJson<RunSummary>(
    join(dir, SUMMARY_FILE),
    'a summary.json (the shard must have finished)',
  );
  if (summary?.schema !== 'benchgate.summary/1' || !Array.isArray(summary.levels))
    throw new BenchgateError('BG_E_RUN_DIR', `${join(dir, SUMMARY_FILE)} is not a benchgate summary.`);
  checkLevels(summary.levels, join(dir, SUMMARY_FILE), 'levels');
  return { dir, manifest: manifest as ShardRun['manifest'], summary };
}

/** The plan every shard must share: its name and output directory may differ (each shard names its run). */
function sharedPlan(m: Manifest): string {
  const { name: _n, output: _o, ...rest } = m.plan;
  return JSON.stringify(rest);
}

function checkShardSet(shards: ShardRun[]): void {
  const count = shards[0]!.manifest.shard.count;
  const plan = sharedPlan(shards[0]!.manifest);
  const seen = new Map<number, string>();
  for (const s of shards) {
    const sh = s.manifest.shard;
    if (sh.count !== count)
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `${s.dir} is shard ${sh.index} of ${sh.count}, but ${shards[0]!.dir} is one of ${count}; merge shards of one run.`,
      );
    if (sharedPlan(s.manifest) !== plan)
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `${s.dir} ran a different plan than ${shards[0]!.dir} (beyond its name and output directory); merge shards of one plan.`,
      );
    const other = seen.get(sh.index);
    if (other !== undefined)
      throw new BenchgateError('BG_E_RUN_DIR', `${other} and ${s.dir} are both shard ${sh.index}.`);
    seen.set(sh.index, s.dir);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0)
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `shard(s) ${someNumbers(missing)} of ${count} are missing; give every shard's run directory.`,
    );
}

/** Offset, drift and bound of one shard from its clock samples (null offset: no samples). */
function shardClock(
  s: ShardRun,
  sameMachine: string | null,
): Omit<MergedShard, 'dir' | 'runId' | 'records'> & { sampled: boolean } {
  const { clock, index } = s.manifest.shard;
  // One kernel: every process reads the same clocks (CLOCK_MONOTONIC and the wall clock), so the
  // anchors place the records exactly and the Date-header samples (kept in the shard manifests) are not needed.
  if (sameMachine !== null)
    return {
      index,
      reference: `one machine (boot id ${sameMachine})`,
      offsetMs: 0,
      driftMs: 0,
      boundMs: 0,
      sampled: true,
    };
  const samples = [clock.start, clock.end].filter((x) => x !== null);
  if (samples.length === 0)
    return { index, reference: clock.reference, offsetMs: 0, driftMs: 0, boundMs: 0, sampled: false };
  const offsetMs = samples.reduce((a, x) => a + x.offsetMs, 0) / samples.length;
  const driftMs = clock.start && clock.end ? Math.abs(clock.end.offsetMs - clock.start.offsetMs) : 0;
  const boundMs = Math.max(...samples.map((x) => x.uncertaintyMs)) + driftMs;
  return { index, reference: clock.reference, offsetMs, driftMs, boundMs, sampled: true };
}

export interface Placement {
  shards: ShardRun[];
  merge: MergeInfo;
  /** Each shard's corrected wall clock at its anchor, and the earliest of them (the merged anchor). */
  wallAt: number[];
  originWallMs: number;
  /** Reasons that hold for every level (clock samples, skew). */
  runReasons: string[];
}

/** Reads and checks the shards, and places each on the common timeline from its clock samples. */
export async function placeShards(opts: MergeOptions): Promise<Placement> {
  if (opts.dirs.length < 2)
    throw new BenchgateError('BG_E_USAGE', 'merge needs the run directories of at least two shards.');
  const shards = (await Promise.all(opts.dirs.map((d) => readShard(resolve(d))))).sort(
    (a, b) => a.manifest.shard.index - b.manifest.shard.index,
  );
  checkShardSet(shards);
  const maxSkewMs = opts.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  const boots = new Set(shards.map((s) => s.manifest.shard.bootId ?? null));
  const onlyBoot = boots.size === 1 ? [...boots][0]! : null;
  const clocks = shards.map((s) => shardClock(s, onlyBoot));
  const reasons: string[] = [];
  for (const c of clocks)
    if (!c.sampled)
      reasons.push(`shard ${c.index} measured no clock offset, so its records may be misplaced`);
  const bounds = clocks.map((c) => c.boundMs).sort((a, b) => b - a);
  const skewBoundMs = (bounds[0] ?? 0) + (bounds[1] ?? 0);
  if (skewBoundMs > maxSkewMs)
    reasons.push(`shard clocks may be skewed by up to ${skewBoundMs.toFixed(3)} ms (limit ${maxSkewMs} ms)`);
  // One timeline: each shard's corrected wall clock at its anchor, relative to the earliest.
  const wallAt = shards.map((s, i) => s.manifest.shard.wallAtAnchorMs + clocks[i]!.offsetMs);
  const merge: MergeInfo = {
    shards: clocks.map(({ sampled: _, ...c }, i) => ({
      ...c,
      dir: shards[i]!.dir,
      runId: shards[i]!.manifest.runId,
      records: 0,
    })),
    skewBoundMs,
    maxSkewMs,
    maxStartLagMs: opts.maxStartLagMs ?? DEFAULT_MAX_START_LAG_MS,
    suspect: reasons.length > 0,
    reasons: [...reasons],
  };
  return { shards, merge, wallAt, originWallMs: Math.min(...wallAt), runReasons: reasons };
}
