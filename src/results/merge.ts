// `benchgate merge`: joins the run directories of N shards of one plan (one share of the load each,
// from Kubernetes pods or local processes) into one run directory that report and compare read like
// any other. Every shard's records are moved onto one timeline (its wall clock at its anchor, corrected
// by its measured offset to the common reference), renumbered, and stored level by level; the level
// summaries are then computed from the merged requests.jsonl exactly as for a one-process run, so they
// equal what one process would have computed from the same records. The manifest states each shard's
// offset, drift and bound; a skew bound above the limit (or a shard without clock samples) marks the
// run suspect and every level invalid, with the reason. Shards whose first requests of a level lie too
// far apart (or, at the first level, too far from the common start) did not load the server together:
// that level is invalid and the run suspect, even with perfectly placed records. A shard whose records
// repeat an id is refused; one holding more records than its share of the plan makes that level invalid
// and the run suspect (results/shard-records.ts).

import { join } from 'node:path';
import type { LevelContext } from '../metrics/level-accumulator.js';
import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import { levelWords } from '../records/level-key.js';
import type { RequestRecord } from '../records/request-record.js';
import { type Manifest, REQUESTS_FILE } from './layout.js';
import { forEachStoredRecord, summarizeStoredLevel } from './level-from-file.js';
import {
  DEFAULT_MAX_START_LAG_MS,
  type MergeOptions,
  type MergeResult,
  type Placement,
  placeShards,
  type ShardRun,
} from './merge-shards.js';
import { readRun } from './read-run.js';
import { createRunStore } from './run-store.js';
import { ShardRecordCheck, shardShare } from './shard-records.js';
import { writeRunValidity } from './validity-file.js';

export {
  DEFAULT_MAX_SKEW_MS,
  DEFAULT_MAX_START_LAG_MS,
  type MergeOptions,
  type MergeResult,
} from './merge-shards.js';

/** A record moved `byMs` along the timeline, with a new id. */
export function shifted(r: RequestRecord, byMs: number, id: number): RequestRecord {
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

/**
 * Whether the shards' streams ran together at one level: every shard's first request of the level
 * (from its records, on the merged timeline) within the limit of the others'; at the first level, every
 * shard at the common start on time (its own lateStartMs), and no record before that start. A late
 * shard is not clock skew: its records are placed right, but the load it adds started late.
 */
function startLagReasons(
  p: Placement,
  firstSentMs: (number | null)[],
  levelName: string,
  isFirstLevel: boolean,
): string[] {
  const limit = p.merge.maxStartLagMs ?? DEFAULT_MAX_START_LAG_MS;
  const sent = firstSentMs
    .map((t, i) => ({ t, index: p.shards[i]!.manifest.shard.index }))
    .filter((x): x is { t: number; index: number } => x.t !== null)
    .sort((a, b) => a.t - b.t);
  const out: string[] = [];
  const [first, last] = [sent[0], sent.at(-1)];
  if (first && last && last.t - first.t > limit)
    out.push(
      `${levelName}: shard ${last.index} sent its first request ${((last.t - first.t) / 1000).toFixed(3)} s after shard ${first.index} (limit ${limit} ms): the shards' streams did not run together`,
    );
  if (!isFirstLevel) return out;
  for (const s of p.shards) {
    const { index, lateStartMs } = s.manifest.shard;
    if (lateStartMs !== undefined && lateStartMs > limit)
      out.push(
        `shard ${index} reached the common start ${(lateStartMs / 1000).toFixed(3)} s late (limit ${limit} ms): it started after the others`,
      );
  }
  // no shard can send before the start it waited for: records placed there contradict its clock fields
  const startAt = p.shards[0]!.manifest.shard.startAtEpochMs;
  for (const x of startAt === null ? [] : sent) {
    const earlyMs = startAt! - (p.originWallMs + x.t);
    if (earlyMs > limit)
      out.push(
        `shard ${x.index}'s records place its first request ${(earlyMs / 1000).toFixed(3)} s before the common start it waited for: its clock fields do not match its records`,
      );
  }
  return out;
}

/**
 * Appends one level's records of every shard to the store, shifted onto the merged timeline, each counted
 * by its shard's check (a repeated id refuses the merge); returns each shard's first send.
 */
async function appendLevelRecords(
  p: Placement,
  li: number,
  store: ReturnType<typeof createRunStore>,
  nextId: { n: number },
  checks: ShardRecordCheck[],
): Promise<(number | null)[]> {
  const firstSent: (number | null)[] = [];
  for (let i = 0; i < p.shards.length; i++) {
    const byMs = p.wallAt[i]! - p.originWallMs;
    let first: number | null = null;
    await forEachStoredRecord(join(p.shards[i]!.dir, REQUESTS_FILE), (r, lineNo) => {
      if (r.levelIndex !== li) return;
      checks[i]!.add(r, lineNo);
      const moved = shifted(r, byMs, nextId.n++);
      if (first === null || moved.sentMs < first) first = moved.sentMs;
      store.appendRecord(moved);
      p.merge.shards[i]!.records++;
    });
    firstSent.push(first);
  }
  return firstSent;
}

function mergedStore(
  p: Placement,
  outDir: string,
): { store: ReturnType<typeof createRunStore>; name: string } {
  const first = p.shards[0]!.manifest;
  const { schema: _s, runId: _r, shard: _sh, ...base } = first;
  const name = `${first.name.replace(/-shard-\d+$/, '')}-merged`;
  const finished = p.shards.map((s) => s.manifest.finishedAt);
  const store = createRunStore({
    outDir,
    secrets: [],
    manifest: {
      ...base,
      name,
      plan: { ...first.plan, name: first.plan.name?.replace(/-shard-\d+$/, '') },
      anchor: { monoMs: 0, wallEpochMs: p.originWallMs, wallIso: new Date(p.originWallMs).toISOString() },
      startedAt: p.shards.map((s) => s.manifest.startedAt).sort()[0]!,
      finishedAt: finished.includes(null) ? null : (finished as string[]).sort().at(-1)!,
      merge: p.merge,
    },
  });
  return { store, name };
}

export async function mergeShardRuns(opts: MergeOptions): Promise<MergeResult> {
  const p = await placeShards(opts);
  const { shards, merge } = p;
  const plan = shards[0]!.manifest.plan;
  const { store, name } = mergedStore(p, opts.outDir);
  const levelIndexes = [...new Set(shards.flatMap((s) => s.summary.levels.map((l) => l.levelIndex)))].sort(
    (a, b) => a - b,
  );
  const levels: LevelSummary[] = [];
  const nextId = { n: 0 };
  const checks = shards.map((s) => new ShardRecordCheck(join(s.dir, REQUESTS_FILE), s.manifest.shard.index));
  try {
    for (const li of levelIndexes) {
      const firstSent = await appendLevelRecords(p, li, store, nextId, checks);
      const { ctx, parts } = levelContext(li, shards, plan, p.runReasons);
      const name = levelWords(ctx.level);
      const flagged = [
        ...startLagReasons(p, firstSent, name, li === levelIndexes[0]),
        ...checks.flatMap((c, i) => c.endLevel(name, shardShare(plan, ctx.level, shards[i]!.manifest.shard))),
      ];
      if (flagged.length > 0) {
        ctx.validity = { valid: false, reasons: [...(ctx.validity?.reasons ?? []), ...flagged] };
        merge.reasons.push(...flagged);
        merge.suspect = true;
      }
      const level = await summarizeStoredLevel(join(store.dir, REQUESTS_FILE), ctx);
      // Server counters are server-wide: any shard's delta covers every shard's traffic.
      const counted = parts.find((x) => x.speculative !== null)?.speculative;
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
  const summary: RunSummary = { schema: 'benchgate.summary/1', runId: store.runId, name, levels };
  const incomplete = shards.filter((s) => s.summary.incomplete);
  if (incomplete.length > 0)
    summary.incomplete = {
      reason: incomplete
        .map((s) => `shard ${s.manifest.shard.index}: ${s.summary.incomplete!.reason}`)
        .join('; '),
    };
  store.writeSummary(summary, plan.percentiles);
  store.close();
  // the merged run's one validity judgement, from its merged records
  writeRunValidity(await readRun(store.dir));
  return { runDir: store.dir, runId: store.runId, merge, summary };
}
