// The levels of a `bench` run, all into one run store: the plan's levels in order (the whole sweep again
// for each of load.trials), or the SLO search's probes, stopping at an interrupt, a failed write or a
// level whose stop ends the run (a dead server, a failed re-check after a drift), and the summary
// written whatever happened, saying why it is incomplete when it is.

import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { trialAt } from '../results/layout.js';
import { finishRunStore, type RunStore } from '../results/run-store.js';
import type { LevelValidity, Session } from './session-types.js';
import { runSloSearch } from './slo-search-run.js';

export interface BenchSweep {
  levels: LevelSummary[];
  interrupted: boolean;
  /** The run ended before its last level (dead server, failed re-check after a drift). */
  endedEarly: { code: string; message: string } | null;
  /** The error that stopped the sweep, when one did. */
  failure: string | null;
}

export const newBenchSweep = (): BenchSweep => ({
  levels: [],
  interrupted: false,
  endedEarly: null,
  failure: null,
});

export interface SweepOptions {
  signal: AbortSignal;
  afterLevel?: (levelIndex: number) => Promise<LevelValidity>;
  note: (line: string) => void;
  /** Awaited just before the first level's first request (a shard's wait for the common start). */
  beforeFirstSend?: () => Promise<void>;
}

/**
 * The order levels run in: plan levels 0…L−1 once (no trial tag), or, with N > 1 trials, the sweep N
 * times, level i of trial t stored at index (t−1)·L + i.
 */
export function trialOrder(
  levels: number,
  trials: number,
): ({ index: number; planLevel: number } | undefined)[] {
  return Array.from({ length: levels * Math.max(1, trials) }, (_, k) => trialAt(levels, trials, k));
}

/** Sweeps every level (or the SLO search) into `store`, recording progress in `sweep` as it goes. */
export async function sweepLevels(
  session: Session,
  store: RunStore,
  sweep: BenchSweep,
  o: SweepOptions,
): Promise<void> {
  const { plan } = session;
  if (plan.load.kind === 'slo_search') {
    await o.beforeFirstSend?.();
    const s = await runSloSearch(session, store, o);
    sweep.levels.push(...s.levels);
    sweep.interrupted = s.interrupted;
    if (store.writeError) throw store.writeError;
    return;
  }
  // repeated trials run the whole sweep again (1 2 3, 1 2 3), each trial a level of its own
  const order = trialOrder(plan.load.levels.length, plan.load.trials);
  for (let li = 0; li < order.length && !o.signal.aborted; li++) {
    const r = await session
      .runLevel(li, {
        store,
        signal: o.signal,
        afterLevel: o.afterLevel,
        beforeSend: li === 0 ? o.beforeFirstSend : undefined,
        trial: order[li],
      })
      .catch((e: unknown) => {
        // a level cut while it was prepared (its prompts counted by a server that froze): an interrupt
        if (o.signal.aborted && !store.writeError) return null;
        throw e;
      });
    if (store.writeError) throw store.writeError;
    if (r === null) {
      sweep.interrupted = true;
      return;
    }
    sweep.levels.push(r.summary);
    sweep.interrupted = r.interrupted;
    if (sweep.interrupted) return;
    if (r.stop?.endsRun) {
      sweep.endedEarly = { code: r.stop.code, message: r.stop.message };
      return;
    }
  }
}

/** Writes the run's summary (and closes the store); the reason says why a run is incomplete. */
export function finishBenchSweep(store: RunStore, name: string, sweep: BenchSweep, plan: Plan): RunSummary {
  const summary: RunSummary = {
    schema: 'benchgate.summary/1',
    runId: store.runId,
    name,
    levels: sweep.levels,
  };
  if (sweep.failure !== null) summary.incomplete = { reason: `stopped by an error: ${sweep.failure}` };
  else if (sweep.endedEarly !== null)
    summary.incomplete = { reason: `${sweep.endedEarly.message} [${sweep.endedEarly.code}]` };
  else if (sweep.interrupted)
    summary.incomplete = { reason: 'interrupted; the levels and records complete so far are kept' };
  finishRunStore(store, summary, plan.percentiles);
  return summary;
}
