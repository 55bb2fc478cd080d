// validity.json: a run's one validity judgement (run-validity.ts), written when the run is finished,
// assembled, judged for losslessness, imported or merged, with the facts it was judged on (its basis).
// A reader takes the stored judgement while its basis still matches the run's files, and otherwise (a
// run written before the file existed, or changed since) is judged once by read-run.ts (`judgeRun`).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import type { RunSummary } from '../metrics/summary.js';
import { type LoadedRun, MANIFEST_FILE, type Manifest, SUMMARY_FILE } from './layout.js';
import { readLosslessRecord } from './lossless-file.js';
import { writeJsonAtomic } from './run-store.js';
import { isValidity, judgeRun, type RunValidity } from './run-validity.js';

export const VALIDITY_FILE = 'validity.json';

export interface StoredValidity {
  schema: 'benchgate.validity/1';
  judgedAt: string;
  /** The facts the judgement rests on; a run whose files no longer give the same basis is judged again. */
  basis: string;
  validity: RunValidity;
}

/** What a judgement depends on beyond each level's own stored verdict: levels, end, checkpoint, lossless. */
export function validityBasis(run: Pick<LoadedRun, 'summary' | 'manifest' | 'lossless'>): string {
  const l = run.lossless;
  return JSON.stringify({
    levels: run.summary.levels.map((x) => [
      x.levelIndex,
      x.trial ?? null,
      x.requests.completed,
      x.requests.failed,
    ]),
    incomplete: run.summary.incomplete?.reason ?? null,
    forced: run.manifest?.forced != null,
    checkpoint: run.manifest?.checkpoint?.ok ?? null,
    lossless: l ? [l.required, l.valid, l.comparison?.verdict ?? null] : null,
  });
}

/** The stored judgement when it is still the run's (same basis), else null. */
export async function readStoredValidity(
  dir: string,
  run: Pick<LoadedRun, 'summary' | 'manifest' | 'lossless'>,
): Promise<RunValidity | null> {
  try {
    const doc = JSON.parse(await readFile(join(dir, VALIDITY_FILE), 'utf8')) as StoredValidity;
    if (doc?.schema !== 'benchgate.validity/1' || doc.basis !== validityBasis(run)) return null;
    const v = doc.validity;
    const levels = Object.values(v?.levels ?? {});
    return isValidity(v) && typeof v.levels === 'object' && levels.every(isValidity) ? v : null;
  } catch {
    return null; // absent (an older run) or unreadable: judged again from the files
  }
}

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/**
 * Judges a run whose levels carry their stored judgements (a finished bench, an assembled matrix config,
 * a config just judged for losslessness) from its small files only, without reading its records again,
 * and stores the judgement. `summary`: the one in memory, else summary.json.
 */
export async function storeRunValidity(dir: string, summary?: RunSummary): Promise<RunValidity> {
  const s = summary ?? (await readJson<RunSummary>(join(dir, SUMMARY_FILE)));
  if (!s?.levels)
    throw new BenchgateError('BG_E_RUN_DIR', `${join(dir, SUMMARY_FILE)} is not a run summary.`);
  const manifest = await readJson<Manifest>(join(dir, MANIFEST_FILE));
  return writeRunValidity({
    name: manifest?.name || s.name,
    dir,
    manifest,
    summary: s,
    records: [],
    warnings: [],
    lossless: await readLosslessRecord(dir),
  });
}

/** Judges the run (once) and stores the judgement in its directory; returns it. */
export function writeRunValidity(run: LoadedRun): RunValidity {
  const validity = judgeRun(run);
  const doc: StoredValidity = {
    schema: 'benchgate.validity/1',
    judgedAt: new Date().toISOString(),
    basis: validityBasis(run),
    validity,
  };
  writeJsonAtomic(join(run.dir, VALIDITY_FILE), doc);
  return validity;
}
