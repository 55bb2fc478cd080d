// One config's run through the matrix: the context every stage of config-stages.ts reads and fills in
// (the config, its directory and state entry, the host, the launched server, the checkpoint, the
// session, warnings and the failure), the matrix-wide context it shares with the other configs, and
// how a stage fails the config (ConfigFailed, carrying the stage, code, message and evidence).

import type { CheckpointOutcome } from '../checkpoint/gate.js';
import { type ErrorCode, isBenchgateError } from '../core/errors.js';
import type { ProcessHost } from '../hosts/host.js';
import type { Plan } from '../plan/schema.js';
import type { Session } from '../session/session.js';
import type { ResolvedConfig } from './config-plan.js';
import type { LaunchedServer } from './launch.js';
import type { MatrixStages } from './stages.js';
import type { ConfigFailure, ConfigState, MatrixState } from './state.js';

/** What every config of one matrix shares. */
export interface MatrixContext {
  plan: Plan;
  planPath: string | null;
  stages: MatrixStages;
  log: (line: string) => void;
  progress: (line: string) => void;
  print: (text: string) => void;
  signal: AbortSignal;
  openHostFn: (spec: string) => Promise<ProcessHost>;
  killLeftovers: boolean;
  killLeftoverPids: readonly number[];
  matrixDir: string;
  state: MatrixState;
  /** True when continuing an earlier matrix (--resume). */
  resuming: boolean;
  /** Called as each stage of a config is entered (progress, tests). */
  onStage: (config: string, stage: string) => void;
  /** Saves the state file; a full disk is logged and the next save retries. */
  save: () => Promise<void>;
}

/** One config's run: filled in stage by stage. */
export interface ConfigRun {
  readonly m: MatrixContext;
  readonly config: ResolvedConfig;
  /** <matrix>/<config>/ */
  readonly dir: string;
  /** The config's entry in the state file (saved with m.save). */
  readonly st: ConfigState;
  /** The trial (round) this visit runs, 1…load.trials (matrix/trials.ts); 1 without trials. */
  readonly trial: number;
  /** load.kind slo_search: the sweep stage runs the search. */
  readonly search: boolean;
  /** Stored level indices still to sweep in this visit (trials 1…trial; the sweep re-reads them). */
  levelsToRun: number[];
  warnings: string[];
  host: ProcessHost | null;
  server: LaunchedServer | null;
  /** PIDs of the server's process group once it was ready (for the GPU release check). */
  serverPids: number[];
  checkpoint: CheckpointOutcome | null;
  session: Session | null;
  failure: ConfigFailure | null;
  /** --resume after a kill during clean-up: only the clean-up stages run, on the recorded launch. */
  finishingCleanup: boolean;
}

export class ConfigFailed extends Error {
  constructor(readonly failure: ConfigFailure) {
    super(failure.message);
  }
}

/** Fails the config at `stage` with a coded message and its evidence. */
export function fail(
  stage: ConfigFailure['stage'],
  code: ErrorCode,
  message: string,
  evidence: string[] = [],
): never {
  throw new ConfigFailed({ stage, code, message, evidence });
}

/** The failure an error thrown in a stage stands for (a ConfigFailed keeps its own). */
export function failureOf(e: unknown, stage: ConfigFailure['stage'], configName: string): ConfigFailure {
  if (e instanceof ConfigFailed) return e.failure;
  return {
    stage,
    code: isBenchgateError(e) ? e.code : 'BG_E_INTERNAL',
    message: `config "${configName}": ${(e as Error).message}`,
    evidence: [],
  };
}

/** The host's error code, or `fallback` for anything else. */
export const codeOf = (e: unknown, fallback: ErrorCode): ErrorCode =>
  isBenchgateError(e) ? e.code : fallback;
