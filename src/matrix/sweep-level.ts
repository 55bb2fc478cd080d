// One level of a config's session into its own run directory (levels/NN/), its summary written even when
// it was interrupted, so a killed matrix leaves every finished level readable. Used for the plan's levels
// and for each probe of an SLO search (`probe`: a load not in load.levels, judged by the search's SLOs);
// with repeated trials the level carries its trial tag (`trial`), as bench stores it.

import { basename } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import { finishRunStore } from '../results/run-store.js';
import type { LevelOutcome, RunLevelOptions, Session } from '../session/session.js';

/** One level of the session into its own run directory (levels/NN/), summary written even when interrupted. */
export async function sweepOneLevel(
  session: Session,
  idx: number,
  runDir: string,
  signal: AbortSignal,
  afterLevel: () => Promise<{ valid: boolean; reasons: string[] }>,
  more: Pick<RunLevelOptions, 'probe' | 'trial'> = {},
): Promise<LevelOutcome> {
  const store = session.openStore({ runDir });
  let outcome: LevelOutcome | null = null;
  try {
    outcome = await session.runLevel(idx, {
      store,
      signal: AbortSignal.any([signal, store.writeFailed]),
      afterLevel,
      ...more,
    });
  } finally {
    const levels = outcome ? [outcome.summary] : [];
    const done = outcome !== null && !outcome.interrupted;
    finishRunStore(
      store,
      {
        schema: 'benchgate.summary/1',
        runId: store.runId,
        name: basename(runDir),
        levels,
        ...(done ? {} : { incomplete: { reason: 'the level did not finish' } }),
      },
      session.plan.percentiles,
    );
  }
  if (store.writeError) throw store.writeError; // the config fails with the file named; the matrix goes on
  if (outcome.interrupted) {
    throw new BenchgateError('BG_E_ABORTED', 'the level was interrupted before it finished.');
  }
  return outcome;
}
