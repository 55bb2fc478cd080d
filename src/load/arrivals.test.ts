import { describe, expect, it } from 'vitest';
import { arrivalOffsetsMs } from './arrivals.js';

describe('arrival schedules', () => {
  it('constant arrivals are evenly spaced at 1/rate', () => {
    expect(arrivalOffsetsMs('constant', 4, 4, 1)).toEqual([0, 250, 500, 750]);
  });

  it('poisson and gamma schedules are reproducible from the seed and differ across seeds', () => {
    expect(arrivalOffsetsMs('poisson', 10, 50, 7)).toEqual(arrivalOffsetsMs('poisson', 10, 50, 7));
    expect(arrivalOffsetsMs('poisson', 10, 50, 7)).not.toEqual(arrivalOffsetsMs('poisson', 10, 50, 8));
    expect(arrivalOffsetsMs('gamma', 10, 50, 7, 0.5)).toEqual(arrivalOffsetsMs('gamma', 10, 50, 7, 0.5));
  });

  it('poisson and gamma keep the mean rate over many arrivals', () => {
    for (const [kind, b] of [
      ['poisson', 1],
      ['gamma', 0.5],
      ['gamma', 4],
    ] as const) {
      const n = 20000;
      const offs = arrivalOffsetsMs(kind, 10, n, 3, b);
      const meanGapMs = offs[n - 1] / (n - 1);
      expect(meanGapMs).toBeGreaterThan(95);
      expect(meanGapMs).toBeLessThan(105);
    }
  });

  it('lower gamma shape is burstier (larger gap variance)', () => {
    const cv = (offs: number[]) => {
      const gaps = offs.slice(1).map((t, i) => t - offs[i]);
      const m = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      const v = gaps.reduce((a, g) => a + (g - m) ** 2, 0) / gaps.length;
      return Math.sqrt(v) / m;
    };
    expect(cv(arrivalOffsetsMs('gamma', 10, 5000, 3, 0.25))).toBeGreaterThan(
      cv(arrivalOffsetsMs('gamma', 10, 5000, 3, 4)),
    );
  });
});
