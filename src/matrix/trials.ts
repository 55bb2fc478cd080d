// Repeated trials in the matrix (load.trials: N): the matrix runs in rounds, round t visiting every
// config for its trial t, so slow drift of the machine hits every config alike. Level i of trial t is
// stored at index (t−1)·L + i with its trial tag, exactly as bench stores it (the layout is
// results/layout.ts trialAt), so a config's assembled run holds every trial and compare pools them
// unchanged.

import type { Plan } from '../plan/schema.js';
import { trialAt } from '../results/layout.js';
import type { RunLevelOptions } from '../session/session-types.js';

type LoadOf = { load: Pick<Plan['load'], 'kind' | 'levels' | 'trials'> };

/** Trials (rounds) the matrix runs: load.trials, 1 for an SLO search (it probes loads of its own). */
export const matrixTrials = (plan: LoadOf): number =>
  plan.load.kind === 'slo_search' ? 1 : Math.max(1, plan.load.trials ?? 1);

/** The trial (1-based) a stored level index belongs to. */
export const trialOfLevel = (plan: LoadOf, idx: number): number =>
  Math.floor(idx / Math.max(1, plan.load.levels.length)) + 1;

/** The plan level (index into load.levels) a stored level index measures. */
export const planLevelOf = (plan: LoadOf, idx: number): number => idx % Math.max(1, plan.load.levels.length);

/** The load value a stored level index measures. */
export const levelValueOf = (plan: LoadOf, idx: number): number | undefined =>
  plan.load.levels[planLevelOf(plan, idx)];

/** The tag the session stores the level with (none when the matrix runs one trial, as bench does). */
export function trialTag(plan: LoadOf, idx: number): RunLevelOptions['trial'] {
  return trialAt(plan.load.levels.length, matrixTrials(plan), idx);
}

/** "4", or with trials "4 of trial 2", for logs. */
export function levelWord(plan: LoadOf, idx: number): string {
  const value = `${levelValueOf(plan, idx) ?? idx}`;
  return matrixTrials(plan) > 1 ? `${value} of trial ${trialOfLevel(plan, idx)}` : value;
}

/** "level 4", or with trials "level 4 of trial 2". */
export const levelName = (plan: LoadOf, idx: number): string => `level ${levelWord(plan, idx)}`;

/** Every stored level index of trials 1…`trial`. */
export function levelsThrough(plan: LoadOf, trial: number): number[] {
  return Array.from({ length: plan.load.levels.length * Math.max(1, trial) }, (_, i) => i);
}

/** The stored level indices of trials 1…`trial` not yet completed (normally trial `trial`'s own). */
export function levelsLeft(plan: LoadOf, trial: number, completed: readonly number[]): number[] {
  return levelsThrough(plan, trial).filter((i) => !completed.includes(i));
}

/** Every trial of the config completed. */
export const allTrialsDone = (plan: LoadOf, completed: readonly number[]): boolean =>
  levelsLeft(plan, matrixTrials(plan), completed).length === 0;

/** Trials with a level still to run: the launches a config still needs. */
export function trialsLeft(plan: LoadOf, completed: readonly number[]): number {
  const left = new Set(levelsLeft(plan, matrixTrials(plan), completed).map((i) => trialOfLevel(plan, i)));
  return left.size;
}
