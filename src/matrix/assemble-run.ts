// Builds a config's run directory (<matrix>/<config>/: manifest, level-NN.json, summary.json,
// requests.jsonl) from its per-level runs under levels/NN/, so compare/report read one ordinary run.
// Each level ran as its own run with its own clock anchor; record times stay relative to that anchor.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointOutcome } from '../checkpoint/gate.js';
import type { VerifiedTarget } from '../engines/types.js';
import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import type { RequestRecord } from '../records/request-record.js';
import { levelFile, MANIFEST_FILE, type Manifest, REQUESTS_FILE, SUMMARY_FILE } from '../results/layout.js';

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
    firstManifest ??= await readJson<Manifest>(join(dir, MANIFEST_FILE));
    const level: LevelSummary = { ...summary, levelIndex: idx };
    levels.push(level);
    await writeFile(join(args.configDir, levelFile(idx)), `${JSON.stringify(level, null, 2)}\n`);
    for (const r of await readRecords(dir))
      lines.push(JSON.stringify({ ...r, id: nextId++, levelIndex: idx }));
  }
  await writeFile(join(args.configDir, REQUESTS_FILE), lines.length ? `${lines.join('\n')}\n` : '');
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
  await writeFile(join(args.configDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  const summary: RunSummary = {
    schema: 'benchgate.summary/1',
    runId: args.runId,
    name: args.name,
    levels,
    ...(args.incomplete ? { incomplete: { reason: args.incomplete } } : {}),
  };
  await writeFile(join(args.configDir, SUMMARY_FILE), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}
