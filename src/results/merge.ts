// `benchgate merge`: joins the run directories of N shards of one plan (one share of the load each,
// from Kubernetes pods or local processes) into one run directory that report and compare read like
// any other. Every shard's records are moved onto one timeline (its wall clock at its anchor, corrected
// by its measured offset to the common reference), renumbered, and stored level by level; the level
// summaries are then computed from the merged requests.jsonl exactly as for a one-process run, so they
// equal what one process would have computed from the same records. The manifest states each shard's
// offset, drift and bound; a skew bound above the limit (or a shard without clock samples) marks the
// run suspect and every level invalid, with the reason.

import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import type { LevelContext } from '../metrics/level-accumulator.js';
import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import type { RequestRecord } from '../records/request-record.js';
import { MANIFEST_FILE, type Manifest, REQUESTS_FILE, SUMMARY_FILE } from './layout.js';
import { forEachStoredRecord, summarizeStoredLevel } from './level-from-file.js';
import { createRunStore } from './run-store.js';
import type { MergedShard, MergeInfo, ShardInfo } from './shard-info.js';

/** Default largest tolerated misplacement between two shards' records. */
export const DEFAULT_MAX_SKEW_MS = 10;

export interface MergeOptions {
  dirs: string[];
  /** Parent directory of the merged run (a new <stamp>-<name>-merged directory). */
  outDir: string;
  maxSkewMs?: number;
}

export interface MergeResult {
  runDir: string;
  runId: string;
  merge: MergeInfo;
  summary: RunSummary;
}

interface ShardRun {
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
  const manifest = await readJson<Manifest>(join(dir, MANIFEST_FILE), 'a benchgate manifest');
  if (manifest?.schema !== 'benchgate.manifest/1')
    throw new BenchgateError('BG_E_RUN_DIR', `${join(dir, MANIFEST_FILE)} is not a benchgate manifest.`);
  if (!manifest.shard)
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `${dir} is not a shard run (its manifest has no "shard"); merge joins runs made with JOB_COMPLETION_INDEX set.`,
    );
  const summary = await readJson<RunSummary>(
    join(dir, SUMMARY_FILE),
    'a summary.json (the shard must have finished)',
  );
  return { dir, manifest: manifest as ShardRun['manifest'], summary };
}

/** A shard's plan as merge compares it: each shard process draws its own prompt salt, so that key is left out. */
const planKey = (p: ShardRun['manifest']['plan']): string =>
  JSON.stringify({ ...p, workload: { ...p.workload, salt: undefined } });

function checkShardSet(shards: ShardRun[]): void {
  const count = shards[0]!.manifest.shard.count;
  const plan = planKey(shards[0]!.manifest.plan);
  const seen = new Map<number, string>();
  for (const s of shards) {
    const sh = s.manifest.shard;
    if (sh.count !== count)
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `${s.dir} is shard ${sh.index} of ${sh.count}, but ${shards[0]!.dir} is one of ${count}; merge shards of one run.`,
      );
    if (planKey(s.manifest.plan) !== plan)
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `${s.dir} ran a different plan than ${shards[0]!.dir}; merge shards of one plan.`,
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
      `shard(s) ${missing.join(', ')} of ${count} are missing; give every shard's run directory.`,
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

function shifted(r: RequestRecord, byMs: number, id: number): RequestRecord {
  return {
    ...r,
    id,
    scheduledMs: r.scheduledMs + byMs,
    sentMs: r.sentMs + byMs,
    headersMs: r.headersMs === null ? null : r.headersMs + byMs,
    chunkMs: r.chunkMs.map((t) => t + byMs),
    firstContentMs: r.firstContentMs === null ? null : r.firstContentMs + byMs,
    endMs: r.endMs + byMs,
  };
}

/** The per-level facts records cannot give (in flight at the end, client checks, validity), joined over shards. */
function levelContext(
  li: number,
  shards: ShardRun[],
  plan: Manifest['plan'],
  suspect: string[],
): { ctx: LevelContext; parts: LevelSummary[] } {
  const parts = shards.map((s) => s.summary.levels.find((l) => l.levelIndex === li) ?? null);
  const present = parts.filter((p): p is LevelSummary => p !== null);
  const reasons = [...suspect];
  parts.forEach((p, i) => {
    if (p === null) reasons.push(`shard ${shards[i]!.manifest.shard.index} has no summary of this level`);
    else for (const r of p.validity.reasons) reasons.push(`shard ${shards[i]!.manifest.shard.index}: ${r}`);
  });
  const worst = (f: (l: LevelSummary) => number | null): number | null => {
    const xs = present.map(f).filter((x): x is number => x !== null);
    return xs.length ? Math.max(...xs) : null;
  };
  const valid = reasons.length === 0 && present.every((p) => p.validity.valid);
  return {
    parts: present,
    ctx: {
      levelIndex: li,
      level: present[0]!.level,
      percentiles: plan.percentiles,
      slo: plan.slo,
      inFlightAtEnd: present.reduce((a, p) => a + p.requests.inFlightAtEnd, 0),
      client: {
        eventLoopDelayP99Ms: worst((l) => l.client.eventLoopDelayP99Ms),
        cpuPercentOfOneCore: worst((l) => l.client.cpuPercentOfOneCore),
      },
      validity: { valid, reasons },
    },
  };
}

export async function mergeShardRuns(opts: MergeOptions): Promise<MergeResult> {
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
  const originWallMs = Math.min(...wallAt);
  const first = shards[0]!.manifest;
  const plan = first.plan;
  const merge: MergeInfo = {
    shards: clocks.map(({ sampled: _, ...c }, i) => ({
      ...c,
      dir: shards[i]!.dir,
      runId: shards[i]!.manifest.runId,
      records: 0,
    })),
    skewBoundMs,
    maxSkewMs,
    suspect: reasons.length > 0,
    reasons,
  };
  const { schema: _s, runId: _r, shard: _sh, ...base } = first;
  const name = `${first.name.replace(/-shard-\d+$/, '')}-merged`;
  const startedAt = shards.map((s) => s.manifest.startedAt).sort()[0]!;
  const finished = shards.map((s) => s.manifest.finishedAt);
  const store = createRunStore({
    outDir: opts.outDir,
    secrets: [],
    manifest: {
      ...base,
      name,
      anchor: { monoMs: 0, wallEpochMs: originWallMs, wallIso: new Date(originWallMs).toISOString() },
      startedAt,
      finishedAt: finished.includes(null) ? null : (finished as string[]).sort().at(-1)!,
      merge,
    },
  });
  const levelIndexes = [...new Set(shards.flatMap((s) => s.summary.levels.map((l) => l.levelIndex)))].sort(
    (a, b) => a - b,
  );
  const levels: LevelSummary[] = [];
  let nextId = 0;
  try {
    for (const li of levelIndexes) {
      for (let i = 0; i < shards.length; i++) {
        const byMs = wallAt[i]! - originWallMs;
        await forEachStoredRecord(join(shards[i]!.dir, REQUESTS_FILE), (r) => {
          if (r.levelIndex !== li) return;
          store.appendRecord(shifted(r, byMs, nextId++));
          merge.shards[i]!.records++;
        });
      }
      const { ctx, parts } = levelContext(li, shards, plan, reasons);
      const level = await summarizeStoredLevel(join(store.dir, REQUESTS_FILE), ctx);
      // Server counters are server-wide: any shard's delta covers every shard's traffic.
      const counted = parts.find((p) => p.speculative !== null)?.speculative;
      if (level.speculative === null && counted)
        level.speculative = {
          ...counted,
          note: `${counted.note ?? ''}; from one shard's scrape`.replace(/^; /, ''),
        };
      levels.push(level);
      store.writeLevel(level);
    }
  } finally {
    store.updateManifest({ merge });
  }
  const incomplete = shards.filter((s) => s.summary.incomplete);
  const summary: RunSummary = {
    schema: 'benchgate.summary/1',
    runId: store.runId,
    name,
    levels,
  };
  if (incomplete.length > 0)
    summary.incomplete = {
      reason: incomplete
        .map((s) => `shard ${s.manifest.shard.index}: ${s.summary.incomplete!.reason}`)
        .join('; '),
    };
  store.writeSummary(summary, plan.percentiles);
  store.close();
  return { runDir: store.dir, runId: store.runId, merge, summary };
}
