// The change-point rule on series whose shape is known: a steady series has none, a step has one at the
// step, two steps give two, and the same step in a series as noisy as the step is not a change.

import { describe, expect, it } from 'vitest';
import { changePoints } from './change-points.js';

describe('change points in a metric series', () => {
  it('finds none in a steady series or one too short to split', () => {
    expect(changePoints([100, 101, 99, 100, 102, 98, 100])).toEqual([]);
    expect(changePoints([100, 50, 100])).toEqual([]);
    expect(changePoints([])).toEqual([]);
  });

  it('marks the first point after a step, with its size', () => {
    const cps = changePoints([100, 101, 99, 100, 80, 81, 79, 80]);
    expect(cps.map((c) => c.index)).toEqual([4]);
    expect(cps[0].shift).toBeCloseTo(0.8, 2);
  });

  it('finds both steps of a series that drops and recovers', () => {
    const cps = changePoints([100, 101, 99, 100, 70, 71, 69, 70, 100, 99, 101, 100]);
    expect(cps.map((c) => c.index)).toEqual([4, 8]);
  });

  it('does not mark a step no bigger than the series noise', () => {
    expect(changePoints([100, 130, 75, 120, 85, 105, 70, 115])).toEqual([]);
  });

  it('does not mark a shift below the minimum effect, however steady the series', () => {
    expect(changePoints([100, 100, 100, 100, 101, 101, 101, 101])).toEqual([]);
    expect(changePoints([100, 100, 100, 100, 110, 110, 110, 110]).map((c) => c.index)).toEqual([4]);
  });

  it('refuses a value that is not positive', () => {
    expect(() => changePoints([100, 0, 100])).toThrow('positive');
  });
});
