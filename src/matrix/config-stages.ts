// One config's life in the matrix as a table of named stages, run in order over one ConfigRun. Each
// stage's outcome is recorded in matrix-state.json under its name, so --resume re-enters a config at
// the stage it stopped at. Adding a stage is adding a row; the clean-up rows (`always`: tear down,
// GPU release, assembling the config's run directory) run whatever happened before them. On --resume a stage before the re-entry point runs again when its result does
// not outlive the process (`resume: 'redo'`: the port check, the launch, the ready wait and the
// checkpoint belong to a server that is gone), and is skipped when its result is kept on disk
// (`resume: 'keep'`: the lossless answers of the same launch spec and configuration).

import type { ConfigRun } from './config-run.js';
import { assemble, hasLevels } from './stage-assemble.js';
import { answersKept, collectAnswers, verify, wantsAnswers } from './stage-checkpoint.js';
import { clearPort, launch, makeRoom, waitReady } from './stage-launch.js';
import { sweep } from './stage-sweep.js';
import { checkGpusReleased, launchedSomething, tearDownServer } from './stage-teardown.js';
import type { ConfigFailure } from './state.js';

export interface ConfigStage {
  /** The name recorded in the state file and shown to the user. */
  name: string;
  /** What a failure in this stage is reported as (ConfigFailure.stage). */
  failsAs: ConfigFailure['stage'];
  /** On --resume: run again (`redo`) or, when its recorded result is still on disk, skip (`keep`). */
  resume: 'redo' | 'keep';
  /** A clean-up stage: runs after a failure or an interrupt too. */
  always?: boolean;
  /** False when the stage does not apply to this config (no lossless section, nothing launched). */
  applies?: (r: ConfigRun) => boolean;
  /** For `keep` stages: the result an earlier run recorded is still there. */
  kept?: (r: ConfigRun) => Promise<boolean>;
  run: (r: ConfigRun) => Promise<void>;
}

export const CONFIG_STAGES: readonly ConfigStage[] = [
  { name: 'room', failsAs: 'launch', resume: 'redo', run: makeRoom },
  { name: 'leftovers', failsAs: 'leftovers', resume: 'redo', run: clearPort },
  { name: 'launch', failsAs: 'launch', resume: 'redo', run: launch },
  { name: 'ready', failsAs: 'ready', resume: 'redo', run: waitReady },
  { name: 'checkpoint', failsAs: 'checkpoint', resume: 'redo', run: verify },
  {
    name: 'lossless',
    failsAs: 'lossless',
    resume: 'keep',
    applies: wantsAnswers,
    kept: answersKept,
    run: collectAnswers,
  },
  { name: 'sweep', failsAs: 'sweep', resume: 'redo', run: sweep },
  {
    name: 'teardown',
    failsAs: 'teardown',
    resume: 'redo',
    always: true,
    applies: launchedSomething,
    run: tearDownServer,
  },
  {
    name: 'gpu-release',
    failsAs: 'teardown',
    resume: 'redo',
    always: true,
    applies: launchedSomething,
    run: checkGpusReleased,
  },
  { name: 'assemble', failsAs: 'sweep', resume: 'redo', always: true, applies: hasLevels, run: assemble },
];

/** The stage named `name`, or undefined (a name from another version's state file). */
export const stageNamed = (name: string | null | undefined): ConfigStage | undefined =>
  CONFIG_STAGES.find((s) => s.name === name);
