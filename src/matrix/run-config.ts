// Runs one config through the stage table (config-stages.ts): prepares it from what earlier runs left
// (resume-config.ts), re-enters it at the stage the state recorded, runs each stage in order recording
// its outcome by name, lets only the clean-up stages run after a failure or an interrupt, and ends with
// the config's status, its failure and warnings. With load.trials N each call is one visit of the
// config: its trial's whole life, from the launch to the tear-down (matrix/trials.ts).

import type { ResolvedConfig } from './config-plan.js';
import { type ConfigRun, failureOf, type MatrixContext } from './config-run.js';
import { CONFIG_STAGES, type ConfigStage, stageNamed } from './config-stages.js';
import { nothingLeft, openConfigRun } from './resume-config.js';
import type { ConfigFailure, ConfigState, StageRecord } from './state.js';
import { allTrialsDone, matrixTrials } from './trials.js';

export interface ConfigOutcome {
  name: string;
  status: 'completed' | 'failed' | 'skipped' | 'cancelled';
  dir: string;
  completedLevels: number[];
  failure: ConfigFailure | null;
  warnings: string[];
}

/** Records a stage's outcome in the state (and, `moveTo`, that the config is at this stage now). */
async function record(r: ConfigRun, stage: ConfigStage, status: StageRecord['status'], moveTo: boolean) {
  r.st.stages = { ...r.st.stages, [stage.name]: { status, at: new Date().toISOString() } };
  if (moveTo) r.st.stage = stage.name;
  await r.m.save();
}

/** A `keep` stage whose recorded result an earlier run left on disk: skipped, and said so. */
async function keptFromEarlier(r: ConfigRun, stage: ConfigStage): Promise<boolean> {
  if (stage.resume !== 'keep' || r.st.stages?.[stage.name]?.status !== 'done') return false;
  if (!(await stage.kept?.(r))) return false;
  const from = r.trial > 1 ? 'an earlier trial of this config' : 'the earlier run';
  r.m.log(`  ${r.config.name}: stage ${stage.name} kept from ${from}.`);
  return true;
}

/** Runs the table from `from` on; after a stop only the clean-up stages run. */
async function runStages(r: ConfigRun, from: ConfigStage): Promise<void> {
  let stoppedAt: string | null = null;
  for (const stage of CONFIG_STAGES.slice(CONFIG_STAGES.indexOf(from))) {
    if (stoppedAt !== null && !stage.always) continue;
    if (stage.applies && !stage.applies(r)) continue;
    if (await keptFromEarlier(r, stage)) continue;
    r.m.onStage(r.config.name, stage.name);
    if (r.m.signal.aborted && !stage.always) {
      stoppedAt = stage.name;
      r.failure ??= failureOf(
        new Error(`interrupted before stage ${stage.name}.`),
        stage.failsAs,
        r.config.name,
      );
      r.failure.code = 'BG_E_ABORTED';
      await record(r, stage, 'interrupted', true);
      continue;
    }
    await record(r, stage, 'running', stoppedAt === null);
    try {
      await stage.run(r);
      await record(r, stage, 'done', false);
    } catch (e) {
      r.failure ??= failureOf(e, stage.failsAs, r.config.name);
      stoppedAt ??= stage.name;
      await record(r, stage, r.m.signal.aborted ? 'interrupted' : 'failed', false);
    }
  }
  r.st.stage = stoppedAt;
  r.session?.close();
  await r.host?.close().catch(() => undefined);
}

/** Where the earlier run of this config stopped in this trial: its recorded stage, or for a /1 state file what it kept. */
function reentryStage(r: ConfigRun): ConfigStage | null {
  const { st } = r;
  // the recorded stage belongs to another round's visit: this trial starts (or was done) afresh
  if ((st.trial ?? 1) !== r.trial) return null;
  if (st.stage !== undefined) return stageNamed(st.stage) ?? null;
  if (st.status === 'completed') return null;
  return stageNamed(st.completedLevels.length > 0 ? 'sweep' : 'room') ?? null;
}

/** Says where a resumed config re-enters and why it stopped there. */
function logReentry(r: ConfigRun, at: ConfigStage): void {
  const how = r.st.stages?.[at.name]?.status;
  const why =
    how === undefined
      ? 'as far as a state file of an earlier version tells'
      : `where the earlier run stopped (${how === 'running' ? 'cut off while running' : how})`;
  r.m.log(`  ${r.config.name}: resuming at stage ${at.name}, ${why}.`);
}

function outcomeOf(r: ConfigRun): ConfigOutcome {
  const cancelled = r.m.signal.aborted;
  return {
    name: r.config.name,
    status: r.failure ? (cancelled ? 'cancelled' : 'failed') : 'completed',
    dir: r.dir,
    completedLevels: [...r.st.completedLevels],
    failure: r.failure,
    warnings: r.warnings,
  };
}

/** What a config that ran to the end of its visit is now: completed once every trial is, else pending. */
const settledStatus = (r: ConfigRun): ConfigState['status'] =>
  r.failure ? 'failed' : allTrialsDone(r.m.plan, r.st.completedLevels) || r.search ? 'completed' : 'pending';

/** "all levels", or with trials "trial 2". */
const whatKept = (r: ConfigRun): string =>
  r.search
    ? 'the SLO search already completed'
    : matrixTrials(r.m.plan) > 1
      ? `trial ${r.trial} already completed`
      : 'all levels already completed';

/** A new round's visit: the stage records of the previous visit are dropped, the kept results' stay. */
function beginVisit(r: ConfigRun): void {
  const { st } = r;
  if ((st.trial ?? 1) !== r.trial) {
    const kept = Object.entries(st.stages ?? {}).filter(([name]) => stageNamed(name)?.resume === 'keep');
    st.stages = Object.fromEntries(kept);
    st.stage = null;
  }
  if (matrixTrials(r.m.plan) > 1) st.trial = r.trial;
}

/** Every level was kept: only a clean-up a kill cut short is finished; nothing is relaunched. */
async function finishKept(r: ConfigRun, at: ConfigStage | null): Promise<ConfigOutcome> {
  if (at?.always) {
    logReentry(r, at);
    r.finishingCleanup = true;
    await runStages(r, at);
  } else {
    r.m.log(`  ${r.config.name}: ${whatKept(r)} under the same launch spec; not relaunched.`);
  }
  r.st.status = settledStatus(r);
  r.st.failure = r.failure;
  await r.m.save();
  return outcomeOf(r);
}

/** One config through the stage table (its visit in round `trial`); a failure is recorded with its evidence, never thrown. */
export async function runConfig(m: MatrixContext, config: ResolvedConfig, trial = 1): Promise<ConfigOutcome> {
  const trials = matrixTrials(m.plan);
  m.log(`\n── ${config.name}${trials > 1 ? `, trial ${trial}/${trials}` : ''} ──`);
  const r = await openConfigRun(m, config, trial);
  const at = m.resuming ? reentryStage(r) : null;
  if (nothingLeft(r)) return finishKept(r, at);
  // a clean-up stage is no place to re-enter a config that has levels to run again
  if (at && !at.always) logReentry(r, at);
  beginVisit(r);
  r.st.status = 'running';
  r.st.failure = null;
  await m.save();
  await runStages(r, CONFIG_STAGES[0] as ConfigStage);
  const cancelled = m.signal.aborted;
  r.st.failure = r.failure;
  r.st.status = r.failure && cancelled ? 'pending' : settledStatus(r);
  await m.save();
  if (r.failure) {
    m.log(`  ✖ ${r.failure.message}`);
    for (const ev of r.failure.evidence.slice(0, 14)) m.log(`      ${ev}`);
  }
  return outcomeOf(r);
}
