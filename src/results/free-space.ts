// Results and a full disk: a free-space check before a run (bench and run share the rule) and the one
// translation of a failed results write (ENOSPC, EDQUOT, EROFS, EACCES...) into a BenchgateError that
// names the file, so a full disk is never an "internal error".

import { statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import type { Plan } from '../plan/schema.js';

/** Exit status of a results directory that is full or cannot be written (README, exit codes). */
export const DISK_EXIT_CODE = 3;
/**
 * Always asked for, whatever the plan (manifests, summaries, the report): the same 100 MiB below which the
 * checkpoint's results_dir check fails (src/checkpoint/checks/results-dir.ts), so bench, run and check agree.
 */
export const FREE_SPACE_FLOOR_BYTES = 100 * 1024 * 1024;
/** A generous size of one request record line in requests.jsonl (times per chunk included). */
const BYTES_PER_REQUEST = 4096;
/** Requests assumed per level when a level is bounded by duration only. */
const REQUESTS_PER_DURATION_LEVEL = 1000;

/** The bytes a run of `plan` is expected to write: the floor plus every planned request's record. */
export function estimateRunBytes(plan: Plan): number {
  const perLevel =
    (plan.load.requests ?? (plan.load.duration === undefined ? 100 : REQUESTS_PER_DURATION_LEVEL)) +
    plan.load.warmup;
  // a matrix writes each level's records twice: levels/NN/ and the config's assembled requests.jsonl
  const copies = plan.configs && plan.configs.length > 0 ? 2 * plan.configs.length : 1;
  const levels = plan.load.levels.length * plan.load.trials;
  return FREE_SPACE_FLOOR_BYTES + levels * perLevel * BYTES_PER_REQUEST * copies;
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** Free bytes for this user on the filesystem holding `dir` (or its nearest existing parent). */
export function freeBytes(dir: string): number {
  let at = resolve(dir);
  for (;;) {
    try {
      const s = statfsSync(at);
      return s.bavail * s.bsize;
    } catch (e) {
      const parent = dirname(at);
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || parent === at) throw e;
      at = parent;
    }
  }
}

/** Throws BG_E_DISK naming `dir`, the space needed and the space available, when there is too little. */
export function checkFreeSpace(dir: string, neededBytes: number): void {
  let available: number;
  try {
    available = freeBytes(dir);
  } catch {
    return; // cannot be measured here (no statfs): the writes themselves still fail closed
  }
  if (available < neededBytes) {
    throw new BenchgateError(
      'BG_E_DISK',
      `not enough free space for results in ${resolve(dir)}: about ${mib(neededBytes)} needed, ${mib(available)} available. Free some space or choose another output directory (--out).`,
      { exitCode: DISK_EXIT_CODE },
    );
  }
}

const DISK_CODES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the filesystem is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'an I/O error',
  EFBIG: 'the file is too large',
};

/** A failed results write as BG_E_DISK naming the file and the reason; other errors are returned as they are. */
export function resultsWriteError(path: string, e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (!code || !(code in DISK_CODES)) return e;
  return new BenchgateError('BG_E_DISK', `could not write ${path}: ${DISK_CODES[code]} (${code}).`, {
    exitCode: DISK_EXIT_CODE,
    cause: e,
  });
}
