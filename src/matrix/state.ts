// The matrix state file (<matrix-dir>/matrix-state.json): which levels (of which trial) of which config
// completed under which fingerprint, and which stage of each config ran last in which trial with what
// outcome (so --resume re-enters a config at a stage by name, in its round). Written atomically after
// every step so `kill -9` at any moment leaves a usable file. Signed with this user's key and kept
// private (state-integrity.ts): an unsigned, altered or foreign file is refused. Files of the earlier
// schema (/1, without stage records) are read and resumed too when signed.

import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson } from '../checkpoint/verified-target.js';
import { BenchgateError, type ErrorCode } from '../core/errors.js';
import type { VerifiedTarget } from '../engines/types.js';
import { writeJsonAtomic } from '../results/run-store.js';
import { sha256Hex } from './config-plan.js';
import { checkStateFileOwner, keepPrivate, signed, verifiedContent } from './state-integrity.js';

export const MATRIX_STATE_FILE = 'matrix-state.json';

export type ConfigStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped';

export interface ConfigFailure {
  /** Which stage failed: launch, ready, checkpoint, sweep, teardown, leftovers, lossless (a required check). */
  stage: 'launch' | 'ready' | 'checkpoint' | 'sweep' | 'teardown' | 'leftovers' | 'plan' | 'lossless';
  code: ErrorCode;
  message: string;
  /** Evidence lines: failing finding ids, log excerpts with line numbers, PIDs. */
  evidence: string[];
}

export interface ConfigState {
  name: string;
  status: ConfigStatus;
  launchFingerprint: string;
  /** Hash of the verified configuration (facts, engine version, model); null until a checkpoint passed. */
  verifiedConfigHash: string | null;
  /**
   * Stored indices of the levels completed under these fingerprints: with load.trials N, level i of
   * trial t is (t−1)·L + i (matrix/trials.ts), so index i alone is plan level i; for an SLO search, its
   * probes in the order run.
   */
  completedLevels: number[];
  /** load.kind slo_search: the search ended (kept on resume); an unfinished one is re-run from the start. */
  searchCompleted?: boolean;
  /** PID (= process group id) of the most recent launch, kept so leftovers can be recognised later. */
  lastPid: number | null;
  /** Start time (ISO) of that launch's process: a PID alone may have been reused by a stranger. */
  lastStartTime?: string | null;
  /** Keyed digest of that launch's token (matrix/launch-proof.ts): what proves a live process is that launch. */
  lastLaunchProof?: string | null;
  failure: ConfigFailure | null;
  /** Levels thrown away because the configuration changed (kept on disk under superseded/). */
  supersededRuns: string[];
  /** Measured seconds (launch → ready, and per level index), used to estimate the next run's duration. */
  measured?: { readyS?: number; levelS?: Record<number, number> };
  /** The stage running now, or the one the config stopped at; null once it ran to the end. Absent in /1 files. */
  stage?: string | null;
  /** Each stage's last outcome, by stage name (matrix/config-stages.ts). Absent in /1 files. */
  stages?: Record<string, StageRecord>;
  /** With load.trials N: the trial (round) `stage` and `stages` belong to. Absent: trial 1. */
  trial?: number;
}

/** One stage's last outcome: running (a kill leaves it so), done, failed, interrupted or skipped. */
export interface StageRecord {
  status: 'running' | 'done' | 'failed' | 'interrupted' | 'skipped';
  /** When it reached this status (ISO). */
  at: string;
}

export const MATRIX_STATE_SCHEMA = 'benchgate.matrix-state/2';
/** Earlier schemas still read (and resumed): /1 has no stage records. */
const READABLE_SCHEMAS: readonly string[] = ['benchgate.matrix-state/1', MATRIX_STATE_SCHEMA];

export interface MatrixState {
  schema: typeof MATRIX_STATE_SCHEMA;
  matrixId: string;
  planPath: string | null;
  createdAt: string;
  updatedAt: string;
  configs: Record<string, ConfigState>;
}

export function newMatrixState(matrixId: string, planPath: string | null): MatrixState {
  const now = new Date().toISOString();
  return {
    schema: MATRIX_STATE_SCHEMA,
    matrixId,
    planPath,
    createdAt: now,
    updatedAt: now,
    configs: {},
  };
}

export async function readMatrixState(dir: string): Promise<MatrixState | null> {
  let text: string;
  try {
    text = await readFile(join(dir, MATRIX_STATE_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `could not read ${join(dir, MATRIX_STATE_FILE)}: ${(e as Error).message}.`,
    );
  }
  checkStateFileOwner(join(dir, MATRIX_STATE_FILE));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `${join(dir, MATRIX_STATE_FILE)} is not valid JSON; expected a benchgate matrix state file.`,
    );
  }
  return checkedState(parsed, join(dir, MATRIX_STATE_FILE));
}

/** The state in `parsed`, of a readable schema, signed by this user, its configs' fields checked (a clear error naming the first bad one). */
function checkedState(parsed: unknown, file: string): MatrixState {
  let s = parsed as MatrixState;
  const schema = (parsed as { schema?: unknown } | null)?.schema;
  if (
    typeof schema !== 'string' ||
    !READABLE_SCHEMAS.includes(schema) ||
    typeof s.configs !== 'object' ||
    s.configs === null
  ) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `${file} is not a benchgate matrix state file this version reads (expected schema ${READABLE_SCHEMAS.map((x) => `"${x}"`).join(' or ')}; found ${typeof schema === 'string' ? `"${schema}"` : 'none'}).`,
    );
  }
  s = verifiedContent(file, parsed as Record<string, unknown>) as unknown as MatrixState;
  for (const [name, c] of Object.entries(s.configs)) {
    const bad = configStateProblem(c);
    if (bad)
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `${file}: config "${name}" ${bad}; the file cannot be resumed (start a new matrix, or restore the file).`,
      );
    c.name ??= name;
    c.supersededRuns ??= [];
    c.failure ??= null;
    c.verifiedConfigHash ??= null;
    c.lastPid ??= null;
  }
  s.schema = MATRIX_STATE_SCHEMA;
  return s;
}

/** What is wrong with one config's entry, or null. */
function configStateProblem(c: unknown): string | null {
  const x = c as Partial<ConfigState> | null;
  if (typeof x !== 'object' || x === null) return 'is not an object';
  if (typeof x.launchFingerprint !== 'string') return 'has no launchFingerprint';
  if (!Array.isArray(x.completedLevels) || !x.completedLevels.every((i) => Number.isSafeInteger(i) && i >= 0))
    return 'has no list of completed level indices (completedLevels)';
  if (new Set(x.completedLevels).size < x.completedLevels.length)
    return 'lists a completed level index more than once (completedLevels)';
  if (!['pending', 'running', 'completed', 'failed', 'skipped'].includes(x.status as string))
    return `has an unknown status ${JSON.stringify(x.status)}`;
  if (x.lastPid !== null && x.lastPid !== undefined && !Number.isInteger(x.lastPid))
    return 'has a lastPid that is not a PID';
  if (x.trial !== undefined && !(Number.isInteger(x.trial) && x.trial >= 1))
    return 'has a trial that is not a trial number (1, 2, …)';
  return null;
}

/** Writes the state atomically (temp file + rename), so a kill never leaves half a file. */
export async function writeMatrixState(dir: string, state: MatrixState): Promise<void> {
  await mkdir(dir, { recursive: true });
  state.updatedAt = new Date().toISOString();
  writeJsonAtomic(join(dir, MATRIX_STATE_FILE), signed(state)); // a full disk: BG_E_DISK naming the file, no temp left
  keepPrivate(join(dir, MATRIX_STATE_FILE));
}

/**
 * What identifies "the same configuration" across launches: the normalised facts' values, engine
 * version and model. Not the process start time (every relaunch changes it) and not the facts' sources.
 */
export function verifiedConfigHash(target: VerifiedTarget): string {
  const values: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(target.config)) values[k] = f.value;
  return sha256Hex(
    canonicalJson({ engine: target.engine, version: target.engineVersion, model: target.model, values }),
  );
}

/**
 * A config entry's completed level indices outside the plan's stored indices (`count`: levels × trials,
 * or max_probes for an SLO search) make the file unresumable: it was not written for this plan.
 */
export function levelsOutsidePlan(file: string, state: MatrixState, count: number): void {
  for (const [name, c] of Object.entries(state.configs)) {
    const outside = c.completedLevels.filter((i) => i >= count);
    if (outside.length > 0)
      throw new BenchgateError(
        'BG_E_RUN_DIR',
        `${file}: config "${name}" records completed level index ${outside.join(', ')}, but the plan stores indices 0 to ${count - 1}; the file cannot be resumed with this plan (start a new matrix, or restore the file).`,
      );
  }
}

export type ResumeDecision =
  | { action: 'fresh' }
  | { action: 'keep'; completedLevels: number[] }
  | { action: 'discard'; reason: string };

/** Before launch: keep the old levels only when the launch spec is unchanged. */
export function decideBeforeLaunch(
  previous: ConfigState | undefined,
  launchFingerprint: string,
): ResumeDecision {
  if (!previous || previous.completedLevels.length === 0) return { action: 'fresh' };
  if (previous.launchFingerprint !== launchFingerprint) {
    return { action: 'discard', reason: 'its launch spec changed since the interrupted run' };
  }
  return { action: 'keep', completedLevels: [...previous.completedLevels] };
}

/** After the checkpoint: kept levels survive only when the verified configuration is the same too. */
export function decideAfterCheckpoint(previous: ConfigState | undefined, hash: string): ResumeDecision {
  if (!previous || previous.completedLevels.length === 0) return { action: 'fresh' };
  if (previous.verifiedConfigHash !== null && previous.verifiedConfigHash !== hash) {
    return { action: 'discard', reason: 'the server now reports a different effective configuration' };
  }
  return { action: 'keep', completedLevels: [...previous.completedLevels] };
}
