import { describe, expect, it } from 'vitest';
import { trialOrder } from '../session/bench-sweep.js';
import {
  allTrialsDone,
  levelName,
  levelsLeft,
  matrixTrials,
  trialOfLevel,
  trialsLeft,
  trialTag,
} from './trials.js';

const plan = (trials: number, kind: 'concurrency' | 'slo_search' = 'concurrency') => ({
  load: { kind, levels: [1, 8, 32], trials },
});

describe('matrix trials', () => {
  it('store level i of trial t where bench stores it, with the same tag', () => {
    const p = plan(3);
    const bench = trialOrder(3, 3);
    for (let idx = 0; idx < 9; idx++) expect(trialTag(p, idx)).toEqual(bench[idx]);
    expect(trialTag(plan(1), 2)).toBeUndefined();
    expect(levelName(p, 7)).toBe('level 8 of trial 3');
    expect(levelName(plan(1), 1)).toBe('level 8');
    expect(trialOfLevel(p, 3)).toBe(2);
  });

  it('leave a visit its own trial, plus any earlier trial level a supersede or a failure left undone', () => {
    const p = plan(2);
    expect(levelsLeft(p, 1, [])).toEqual([0, 1, 2]);
    expect(levelsLeft(p, 2, [0, 1, 2])).toEqual([3, 4, 5]);
    expect(levelsLeft(p, 2, [0, 2, 3])).toEqual([1, 4, 5]);
    expect(trialsLeft(p, [0, 2, 3])).toBe(2);
    expect(allTrialsDone(p, [0, 1, 2])).toBe(false);
    expect(allTrialsDone(p, [0, 1, 2, 3, 4, 5])).toBe(true);
  });

  it('are one for an SLO search, whatever load.trials says', () => {
    expect(matrixTrials(plan(4, 'slo_search'))).toBe(1);
    expect(matrixTrials(plan(4))).toBe(4);
  });
});
