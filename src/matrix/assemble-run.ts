// Builds a config's run directory (<matrix>/<config>/: manifest, level-NN.json, summary.json,
// summary.csv, requests.jsonl) from its per-level runs under levels/NN/, so compare/report read one
// ordinary run. The levels of one session share its clock anchor; levels kept from an earlier session
// (a resumed matrix) have their record times moved onto the first level's anchor through wall time.
// Every file is written atomically through the run store's writers.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointOutcome } from '../checkpoint/gate.js';
import type { ClockAnchor } from '../core/clock.js';
import type { VerifiedTarget } from '../engines/types.js';
import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import {
  levelFile,
  MANIFEST_FILE,
  type Manifest,
  REQUESTS_FILE,
  SUMMARY_CSV_FILE,
  SUMMARY_FILE,
} from '../results/layout.js';
import { writeJsonAtomic, writeManifest, writeTextAtomic } from '../results/run-store.js';
import { summaryCsv } from '../results/summary-csv.js';
import { carryLevelTelemetry } from '../results/telemetry-files.js';
import { storeRunValidity } from '../results/validity-file.js';

export const LEVELS_DIR = 'levels';
export const levelRunDir = (configDir: string, levelIndex: number): string =>
  join(configDir, LEVELS_DIR, String(levelIndex).padStart(2, '0'));

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** The one level summary a single-level run wrote (summary.json's level, else its level-NN.json). */
export async function readLevelSummary(runDir: string, levelIndex: number): Promise<LevelSummary | null> {
  const s = await readJson<RunSummary>(join(runDir, SUMMARY_FILE));
  if (s?.levels?.[0]) return s.levels[0];
  return (
    (await readJson<LevelSummary>(join(runDir, levelFile(levelIndex)))) ??
    (await readJson<LevelSummary>(join(runDir, levelFile(0))))
  );
}

async function readRecords(runDir: string): Promise<RequestRecord[]> {
  let text: string;
  try {
    text = await readFile(join(runDir, REQUESTS_FILE), 'utf8');
  } catch {
    return [];
  }
  const out: RequestRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as RequestRecord);
    } catch {
      // a torn last line of a killed run: not part of a completed level
    }
  }
  return out;
}

/** The record with every time moved by `shiftMs` (onto another anchor of the same wall clock). */
export function shiftRecord(r: RequestRecord, shiftMs: number): RequestRecord {
  if (shiftMs === 0) return r;
  const at = (t: number | null) => (t === null ? null : t + shiftMs);
  return {
    ...r,
    scheduledMs: r.scheduledMs + shiftMs,
    sentMs: r.sentMs + shiftMs,
    headersMs: at(r.headersMs),
    chunkMs: r.chunkMs.map((t) => t + shiftMs),
    firstContentMs: at(r.firstContentMs),
    endMs: r.endMs + shiftMs,
  };
}

/** ms to add to times relative to `from` to make them relative to `to` (0 when it is the same anchor). */
function anchorShiftMs(from: ClockAnchor | undefined, to: ClockAnchor | undefined): number {
  if (!from || !to || (from.monoMs === to.monoMs && from.wallEpochMs === to.wallEpochMs)) return 0;
  return from.wallEpochMs - to.wallEpochMs;
}

export async function assembleConfigRun(args: {
  configDir: string;
  runId: string;
  name: string;
  plan: Plan;
  planPath: string | null;
  completedLevels: readonly number[];
  checkpoint: CheckpointOutcome | null;
  incomplete: string | null;
}): Promise<RunSummary> {
  const levels: LevelSummary[] = [];
  const lines: string[] = [];
  let nextId = 0;
  let firstManifest: Manifest | null = null;
  for (const idx of [...args.completedLevels].sort((a, b) => a - b)) {
    const dir = levelRunDir(args.configDir, idx);
    const summary = await readLevelSummary(dir, idx);
    if (!summary) continue;
    const levelManifest = await readJson<Manifest>(join(dir, MANIFEST_FILE));
    firstManifest ??= levelManifest;
    const shiftMs = anchorShiftMs(levelManifest?.anchor, firstManifest?.anchor);
    const level: LevelSummary = { ...summary, levelIndex: idx };
    levels.push(level);
    writeJsonAtomic(join(args.configDir, levelFile(idx)), level);
    await carryLevelTelemetry(dir, args.configDir, idx, shiftMs);
    for (const r of await readRecords(dir))
      lines.push(JSON.stringify({ ...shiftRecord(r, shiftMs), id: nextId++, levelIndex: idx }));
  }
  writeTextAtomic(join(args.configDir, REQUESTS_FILE), lines.length ? `${lines.join('\n')}\n` : '');
  const verifiedTarget: VerifiedTarget | null =
    args.checkpoint?.verifiedTarget ?? firstManifest?.verifiedTarget ?? null;
  const now = new Date().toISOString();
  const manifest: Manifest = {
    ...(firstManifest ?? {
      schema: 'benchgate.manifest/1',
      versions: { benchgate: 'unknown', node: process.version, os: process.platform },
      anchor: { monoMs: 0, wallEpochMs: Date.now(), wallIso: now },
      forced: null,
      tokenizer: null,
      source: { tool: 'benchgate' },
      startedAt: now,
    }),
    schema: 'benchgate.manifest/1',
    runId: args.runId,
    name: args.name,
    plan: args.plan,
    planPath: args.planPath,
    verifiedTarget,
    checkpoint: args.checkpoint?.report ?? firstManifest?.checkpoint ?? null,
    finishedAt: now,
  } as Manifest;
  writeManifest(args.configDir, manifest);
  const summary: RunSummary = {
    schema: 'benchgate.summary/1',
    runId: args.runId,
    name: args.name,
    levels,
    ...(args.incomplete ? { incomplete: { reason: args.incomplete } } : {}),
  };
  writeJsonAtomic(join(args.configDir, SUMMARY_FILE), summary);
  writeTextAtomic(join(args.configDir, SUMMARY_CSV_FILE), summaryCsv(levels, args.plan.percentiles));
  // the config's one validity judgement, from its levels' stored ones (judged again after the lossless check)
  await storeRunValidity(args.configDir, summary);
  return summary;
}
