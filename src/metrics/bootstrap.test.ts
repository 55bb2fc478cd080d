import { describe, expect, it } from 'vitest';
import { seededRng } from '../core/seeded-random.js';
import { bootstrapRatioCI, meanStat, percentileStat } from './bootstrap.js';

function sample(seed: number, n: number, scale: number): number[] {
  const rng = seededRng(seed);
  return Array.from({ length: n }, () => scale * (50 + 100 * rng()));
}

describe('bootstrapRatioCI', () => {
  it('gives the same interval for the same inputs and seed', () => {
    const a = sample(1, 200, 1);
    const b = sample(2, 200, 1.1);
    const first = bootstrapRatioCI(a, b, meanStat, { iterations: 500, seed: 7 });
    const second = bootstrapRatioCI(a, b, meanStat, { iterations: 500, seed: 7 });
    expect(second).toEqual(first);
    const otherSeed = bootstrapRatioCI(a, b, meanStat, { iterations: 500, seed: 8 });
    expect(otherSeed!.low).not.toBe(first!.low);
  });

  it('reports the full-sample ratio stat(b) / stat(a) with a to be the baseline', () => {
    const ci = bootstrapRatioCI([1, 2, 3], [2, 4, 6], meanStat, { iterations: 50, seed: 1 })!;
    expect(ci.ratio).toBe(2);
    expect(ci.low).toBeLessThanOrEqual(ci.high);
  });

  it('finds a clear 2x shift significant and its interval around 2', () => {
    const a = sample(3, 300, 1);
    const b = sample(4, 300, 2);
    const ci = bootstrapRatioCI(a, b, meanStat, { iterations: 1000, seed: 11 })!;
    expect(ci.significant).toBe(true);
    expect(ci.low).toBeGreaterThan(1.8);
    expect(ci.high).toBeLessThan(2.2);
    expect(ci.low).toBeLessThan(ci.ratio);
    expect(ci.high).toBeGreaterThan(ci.ratio);
  });

  it('does not call two samples of the same distribution different', () => {
    const ci = bootstrapRatioCI(sample(5, 300, 1), sample(6, 300, 1), percentileStat(50), {
      iterations: 1000,
      seed: 3,
    })!;
    expect(ci.low).toBeLessThan(1);
    expect(ci.high).toBeGreaterThan(1);
    expect(ci.significant).toBe(false);
  });

  it('collapses to the exact ratio for constant samples', () => {
    const ci = bootstrapRatioCI([4, 4, 4], [5, 5], meanStat, { iterations: 100, seed: 1 })!;
    expect([ci.ratio, ci.low, ci.high]).toEqual([1.25, 1.25, 1.25]);
    expect(ci.iterations).toBe(100);
  });

  it('returns null when a sample is empty or the baseline statistic is zero', () => {
    expect(bootstrapRatioCI([], [1], meanStat, { iterations: 10, seed: 1 })).toBeNull();
    expect(bootstrapRatioCI([1], [], meanStat, { iterations: 10, seed: 1 })).toBeNull();
    expect(bootstrapRatioCI([0, 0], [1], meanStat, { iterations: 10, seed: 1 })).toBeNull();
  });

  it('does not modify the caller arrays even when the statistic sorts', () => {
    const a = [3, 1, 2];
    const b = [6, 4, 5];
    bootstrapRatioCI(a, b, percentileStat(90), { iterations: 20, seed: 1 });
    expect(a).toEqual([3, 1, 2]);
    expect(b).toEqual([6, 4, 5]);
  });
});
