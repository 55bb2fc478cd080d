// The matrix: each server configuration runs through the table of stages in config-stages.ts (room,
// leftovers, launch, ready, checkpoint, lossless, sweep, teardown, gpu-release, assemble), every stage's
// outcome recorded in a resumable state file; with load.trials N the configs run in N rounds. A failing config is recorded with its evidence and the
// loop moves on; completed configs are compared, and the matrix summary is written beside them.

import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { isBenchgateError } from '../core/errors.js';
import type { ProcessHost } from '../hosts/host.js';
import { openHost } from '../hosts/open-host.js';
import type { Plan } from '../plan/schema.js';
import { readLosslessRecord } from '../results/lossless-file.js';
import { writeTextAtomic } from '../results/run-store.js';
import { storeRunValidity } from '../results/validity-file.js';
import type { ResolvedConfig } from './config-plan.js';
import type { MatrixContext } from './config-run.js';
import { judgeMatrixLossless, losslessBaseline } from './lossless-stage.js';
import { matrixPreview, openMatrix, selectConfigs } from './matrix-setup.js';
import { renderMatrixSummary } from './render-summary.js';
import { settleEarlierLaunches } from './resume-leftovers.js';
import { type ConfigOutcome, runConfig } from './run-config.js';
import { isSloSearch } from './slo-search-stage.js';
import type { MatrixStages } from './stages.js';
import { writeMatrixState } from './state.js';
import { allTrialsDone, matrixTrials } from './trials.js';

export type { ConfigOutcome } from './run-config.js';

/** The end-of-matrix summary, as printed, kept in the matrix directory. */
export const MATRIX_SUMMARY_FILE = 'matrix-summary.txt';

export interface RunMatrixOptions {
  plan: Plan;
  planPath: string | null;
  /** Continue this matrix directory (it holds matrix-state.json). */
  resumeDir?: string;
  /** Parent directory for a new matrix; default: plan.output. */
  outDir?: string;
  /** Run only these config names. */
  only?: string[];
  killLeftovers?: boolean;
  /** With killLeftovers: processes the user named (--kill-leftovers=PID,PID) that may be ended too. */
  killLeftoverPids?: readonly number[];
  /** Asked with the plan preview before anything starts; return false to cancel. Omit to proceed. */
  confirm?: (preview: string[]) => Promise<boolean>;
  /** Progress and logs (stderr). */
  log?: (line: string) => void;
  /** Live progress line (rewritten in place on a TTY). */
  progress?: (line: string) => void;
  /** Checklists and the comparison (stdout); omitted with --json. */
  print?: (text: string) => void;
  json?: boolean;
  stages: MatrixStages;
  signal?: AbortSignal;
  /** Opens the host of a config; default openHost. */
  openHostFn?: (spec: string) => Promise<ProcessHost>;
  /** Called as each config enters a stage of config-stages.ts, by name. */
  onStage?: (config: string, stage: string) => void;
}

export interface MatrixResult {
  matrixDir: string;
  cancelled: boolean;
  configs: ConfigOutcome[];
  comparison: { text: string; htmlPath: string | null; json: unknown } | null;
  comparisonError: string | null;
}

/** Compares every completed config's greedy answers with the baseline's; a required check fails the divergent ones. */
async function judgeLossless(m: MatrixContext, baseline: string, outcomes: ConfigOutcome[]): Promise<void> {
  const ran = outcomes.filter((o) => o.status === 'completed' && o.completedLevels.length > 0);
  const judged = await judgeMatrixLossless({
    plan: m.plan,
    baseline,
    baselineDir: join(m.matrixDir, baseline),
    configs: ran.map((o) => ({ name: o.name, dir: o.dir })),
  });
  m.print(`${judged.lines.join('\n')}\n`);
  // each config's judgement again, now with its lossless verdict: a required failure makes it invalid
  for (const o of ran) await storeRunValidity(o.dir);
  for (const bad of judged.invalid) {
    const o = outcomes.find((x) => x.name === bad.name);
    if (!o) continue;
    o.status = 'failed';
    o.failure = {
      stage: 'lossless',
      code: 'BG_E_CHECK_FAILED',
      message: `config "${bad.name}": ${bad.reason}`,
      evidence: bad.evidence,
    };
  }
}

/** The comparison of the completed configs, the others listed with why. */
async function compareCompleted(
  m: MatrixContext,
  outcomes: ConfigOutcome[],
  json: boolean,
): Promise<Pick<MatrixResult, 'comparison' | 'comparisonError'>> {
  const completed = outcomes.filter((o) => o.status === 'completed' && o.completedLevels.length > 0);
  if (completed.length === 0) return { comparison: null, comparisonError: null };
  try {
    const comparison = await m.stages.compare({
      runs: completed.map((o) => ({ name: o.name, dir: o.dir })),
      skipped: await Promise.all(
        outcomes
          .filter((o) => !completed.includes(o))
          .map(async (o) => ({
            name: o.name,
            reason: o.failure?.message ?? (o.status === 'cancelled' ? 'cancelled before it ran' : o.status),
            ...(o.failure?.evidence.length ? { evidence: o.failure.evidence } : {}),
            // failed for its lossless check: the report carries the divergences that failed it
            lossless: o.failure?.stage === 'lossless' ? await readLosslessRecord(o.dir) : null,
          })),
      ),
      outDir: join(m.matrixDir, 'report'),
      plan: m.plan,
      json,
    });
    return { comparison, comparisonError: null };
  } catch (e) {
    const comparisonError = isBenchgateError(e) ? e.message : `comparison failed: ${(e as Error).message}`;
    return { comparison: null, comparisonError };
  }
}

/** The context every config of this matrix shares. */
function matrixContext(
  opts: RunMatrixOptions,
  matrixDir: string,
  state: MatrixContext['state'],
): MatrixContext {
  const log = opts.log ?? (() => {});
  const m: MatrixContext = {
    plan: opts.plan,
    planPath: opts.planPath,
    stages: opts.stages,
    log,
    progress: opts.progress ?? (() => {}),
    print: opts.print ?? (() => {}),
    signal: opts.signal ?? new AbortController().signal,
    openHostFn: opts.openHostFn ?? ((spec: string) => openHost(spec)),
    killLeftovers: opts.killLeftovers ?? false,
    killLeftoverPids: opts.killLeftoverPids ?? [],
    matrixDir,
    state,
    resuming: opts.resumeDir !== undefined,
    onStage: opts.onStage ?? (() => {}),
    /** The state file; on a full disk the config goes on (its failure says so) and the next save retries. */
    save: () =>
      writeMatrixState(matrixDir, state).catch((e) => {
        if (!isBenchgateError(e) || e.code !== 'BG_E_DISK') throw e;
        log(`  ! ${e.message}`);
      }),
  };
  // every in-flight request of a level listens on this one signal
  setMaxListeners(0, m.signal);
  return m;
}

/** A config the interrupt reached before it ran. */
const cancelledOutcome = (m: MatrixContext, name: string): ConfigOutcome => ({
  name,
  status: 'cancelled',
  dir: join(m.matrixDir, name),
  completedLevels: [],
  failure: null,
  warnings: [],
});

/**
 * Every config once, or with load.trials N in N rounds (A B, A B: drift over the hours hits every
 * config alike), each visit a config's whole life. A config that failed a round is not visited again
 * (its failure stands; --resume retries it); one an interrupt left short of its trials is cancelled.
 */
async function runRounds(m: MatrixContext, configs: readonly ResolvedConfig[]): Promise<ConfigOutcome[]> {
  const trials = matrixTrials(m.plan);
  const last = new Map<string, ConfigOutcome>();
  for (let trial = 1; trial <= trials; trial++) {
    if (trials > 1) m.log(`\n══ round ${trial}/${trials} ══`);
    for (const config of configs) {
      const before = last.get(config.name);
      if (before && before.status !== 'completed') continue;
      if (m.signal.aborted) {
        if (!before) last.set(config.name, cancelledOutcome(m, config.name));
        continue;
      }
      last.set(config.name, await runConfig(m, config, trial));
    }
  }
  return configs.map((c) => {
    const o = last.get(c.name) ?? cancelledOutcome(m, c.name);
    const short =
      o.status === 'completed' && !isSloSearch(m.plan) && !allTrialsDone(m.plan, o.completedLevels);
    return short ? { ...o, status: 'cancelled' } : o;
  });
}

export async function runMatrix(opts: RunMatrixOptions): Promise<MatrixResult> {
  const { plan } = opts;
  const log = opts.log ?? (() => {});
  const where = opts.planPath ?? 'the plan';
  const configs = selectConfigs(plan, where, opts.only);
  const losslessBase = losslessBaseline(plan, where);
  const { matrixDir, state } = await openMatrix({ ...opts, configs, log });
  const preview = matrixPreview(plan, configs, state);
  preview.unshift(`${opts.resumeDir ? 'resuming' : 'matrix directory'}: ${matrixDir}`);
  for (const l of preview) log(l);
  if (opts.confirm && !(await opts.confirm(preview))) {
    log('cancelled: nothing was launched.');
    return { matrixDir, cancelled: true, configs: [], comparison: null, comparisonError: null };
  }
  await writeMatrixState(matrixDir, state);
  const m = matrixContext(opts, matrixDir, state);
  if (opts.resumeDir) await settleEarlierLaunches(m, configs);
  const outcomes = await runRounds(m, configs);
  if (losslessBase) await judgeLossless(m, losslessBase, outcomes);
  const compared = await compareCompleted(m, outcomes, opts.json ?? false);
  const result: MatrixResult = { matrixDir, cancelled: m.signal.aborted, configs: outcomes, ...compared };
  // the summary outlives the terminal: a failed overnight run explains itself from its directory
  try {
    writeTextAtomic(join(matrixDir, MATRIX_SUMMARY_FILE), `${renderMatrixSummary(plan, result)}\n`);
  } catch (e) {
    log(`  ! ${(e as Error).message}`);
  }
  return result;
}
