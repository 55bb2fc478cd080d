// Reads the telemetry a run stored beside its levels (telemetry-level-NN.json: the server's /metrics
// series; gpu-level-NN.json: nvidia-smi samples) for the report. Fail closed: a missing file means no
// telemetry for that level; a file that does not parse or is not of the expected shape is reported (a
// warning naming it) and counts as no telemetry, never a crashed report.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePythonJson } from '../core/python-json.js';
import {
  gpuFile,
  type LevelTelemetryFiles,
  type StoredGpuTelemetry,
  type StoredServerTelemetry,
  telemetryFile,
} from './layout.js';
import { writeJsonAtomic } from './run-store.js';

const FILE = /^(telemetry|gpu)-level-(\d+)\.json$/;
const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isObj = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

function serverShape(x: unknown): StoredServerTelemetry | null {
  if (!isObj(x) || !Array.isArray(x.samples) || !isNum(x.failedScrapes) || !isObj(x.sources)) return null;
  const ok = x.samples.every((s) => isObj(s) && isNum(s.tMs) && isObj(s.values));
  return ok ? (x as unknown as StoredServerTelemetry) : null;
}

function gpuShape(x: unknown): StoredGpuTelemetry | null {
  if (!isObj(x) || typeof x.available !== 'boolean' || !Array.isArray(x.samples)) return null;
  const ok = x.samples.every((s) => isObj(s) && isNum(s.tMs) && isNum(s.gpu));
  return ok ? ({ unreadableLines: 0, reason: null, host: '?', ...x } as unknown as StoredGpuTelemetry) : null;
}

/** Every level's telemetry files in `dir`, by level index; `warnings` names each file that could not be read. */
export async function readTelemetryFiles(
  dir: string,
): Promise<{ levels: Record<number, LevelTelemetryFiles>; warnings: string[] }> {
  const levels: Record<number, LevelTelemetryFiles> = {};
  const warnings: string[] = [];
  const names = (await readdir(dir).catch(() => [] as string[])).filter((f) => FILE.test(f)).sort();
  for (const name of names) {
    const [, kind, nn] = FILE.exec(name) as RegExpExecArray;
    let parsed: unknown;
    try {
      parsed = parsePythonJson(await readFile(join(dir, name), 'utf8'));
    } catch (e) {
      warnings.push(
        `${join(dir, name)} could not be read (${(e as Error).message}); that level has no ${kind} telemetry in this report.`,
      );
      continue;
    }
    const value = kind === 'gpu' ? gpuShape(parsed) : serverShape(parsed);
    if (value === null) {
      warnings.push(
        `${join(dir, name)} is not a ${kind} telemetry file of the expected shape; that level has no ${kind} telemetry in this report.`,
      );
      continue;
    }
    const li = Number(nn);
    const entry = levels[li] ?? { server: null, gpu: null };
    if (kind === 'gpu') entry.gpu = value as StoredGpuTelemetry;
    else entry.server = value as StoredServerTelemetry;
    levels[li] = entry;
  }
  return { levels, warnings };
}

/**
 * Copies a level's telemetry files from `fromDir` (a matrix level's own run) into `toDir` (the config's
 * assembled run) with every sample time moved by `shiftMs`, as assemble-run moves the records onto one
 * anchor. A file that is absent or cannot be read is not copied (the report then has none for the level).
 */
export async function carryLevelTelemetry(
  fromDir: string,
  toDir: string,
  levelIndex: number,
  shiftMs: number,
): Promise<void> {
  for (const name of [telemetryFile(levelIndex), gpuFile(levelIndex)]) {
    let doc: unknown;
    try {
      doc = JSON.parse(await readFile(join(fromDir, name), 'utf8'));
    } catch {
      continue;
    }
    if (!isObj(doc) || !Array.isArray(doc.samples)) continue;
    const samples = doc.samples.map((s) => (isObj(s) && isNum(s.tMs) ? { ...s, tMs: s.tMs + shiftMs } : s));
    writeJsonAtomic(join(toDir, name), { ...doc, samples });
  }
}
