// The lossless check's files in a config's run directory: `lossless-answers.json` (the greedy answers
// the config's server gave, written while it ran) and `lossless.json` (its verdict against the
// baseline, with the validity it implies), so reports, compare and a resumed matrix can read them.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LosslessAnswers, LosslessRecord } from '../metrics/lossless.js';
import { writeJsonAtomic } from './run-store.js';

export const LOSSLESS_ANSWERS_FILE = 'lossless-answers.json';
export const LOSSLESS_FILE = 'lossless.json';
export type { LosslessRecord };

export function writeLosslessAnswers(dir: string, answers: LosslessAnswers): void {
  writeJsonAtomic(join(dir, LOSSLESS_ANSWERS_FILE), answers);
}

export function writeLosslessRecord(dir: string, record: LosslessRecord): void {
  writeJsonAtomic(join(dir, LOSSLESS_FILE), record);
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return null;
  }
}

/** A config's answers, or null when it has none (never ran the check, or the file is unreadable). */
export async function readLosslessAnswers(dir: string): Promise<LosslessAnswers | null> {
  const doc = (await readJson(join(dir, LOSSLESS_ANSWERS_FILE))) as LosslessAnswers | null;
  return doc?.schema === 'benchgate.lossless-answers/1' && Array.isArray(doc.answers) ? doc : null;
}

/** A config's lossless verdict, or null when the run has none. */
export async function readLosslessRecord(dir: string): Promise<LosslessRecord | null> {
  const doc = (await readJson(join(dir, LOSSLESS_FILE))) as LosslessRecord | null;
  return doc?.schema === 'benchgate.lossless/1' ? doc : null;
}
