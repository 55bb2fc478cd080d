// The last stage: the config's completed levels (levels/NN/) assembled into one ordinary run directory
// that report and compare read, marked incomplete with the failure when the config did not finish.

import { assembleConfigRun } from './assemble-run.js';
import type { ConfigRun } from './config-run.js';

export const hasLevels = (r: ConfigRun): boolean => r.st.completedLevels.length > 0;

/** Assembles the config's run directory; a full disk fails the config, the levels stay for --resume. */
export async function assemble(r: ConfigRun): Promise<void> {
  await assembleConfigRun({
    configDir: r.dir,
    runId: `${r.m.state.matrixId}/${r.config.name}`,
    name: r.config.name,
    plan: r.config.plan,
    planPath: r.m.planPath,
    completedLevels: r.st.completedLevels,
    checkpoint: r.checkpoint,
    incomplete: r.failure ? r.failure.message : null,
  });
}
