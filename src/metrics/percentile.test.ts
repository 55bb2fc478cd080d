import { describe, expect, it } from 'vitest';
import { seededRng } from '../core/seeded-random.js';
import { distribution } from './distribution.js';
import { percentile, percentileKey, percentileOfSorted, percentilesInPlace } from './percentile.js';

describe('percentile (linear interpolation between order statistics)', () => {
  it('interpolates between the two nearest order statistics', () => {
    // rank = 0.9 * 3 = 2.7 -> 30 + 0.7 * (40 - 30)
    expect(percentile([40, 10, 30, 20], 90)).toBeCloseTo(37, 12);
    expect(percentile([40, 10, 30, 20], 50)).toBe(25);
  });

  it('returns the extremes at p0 and p100', () => {
    expect(percentile([3, 1, 2], 0)).toBe(1);
    expect(percentile([3, 1, 2], 100)).toBe(3);
  });

  it('returns the only sample for every percentile of a single sample', () => {
    for (const p of [0, 1, 50, 99, 99.9, 100]) expect(percentile([7.5], p)).toBe(7.5);
  });

  it('returns NaN for no samples rather than inventing a value', () => {
    expect(percentileOfSorted([], 50)).toBeNaN();
  });

  it('rejects a percentile outside 0..100', () => {
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
  });

  it('sorts numerically, not as strings', () => {
    expect(percentile([100, 9, 20], 0)).toBe(9);
  });

  it('names keys like p50 and p99.9', () => {
    expect(percentileKey(50)).toBe('p50');
    expect(percentileKey(99.9)).toBe('p99.9');
  });
});

describe('distribution', () => {
  it('is null when there are no samples', () => {
    expect(distribution([], [50])).toBeNull();
  });

  it('has population std 0 and every percentile equal to a single sample', () => {
    expect(distribution([42], [50, 99])).toEqual({
      count: 1,
      mean: 42,
      std: 0,
      min: 42,
      max: 42,
      percentiles: { p50: 42, p99: 42 },
    });
  });

  it('uses the population standard deviation (divide by n)', () => {
    // values 2,4,4,4,5,5,7,9: mean 5, population variance 4 (sample variance would be 32/7)
    const d = distribution([2, 4, 4, 4, 5, 5, 7, 9], [50, 99.9])!;
    expect(d.mean).toBe(5);
    expect(d.std).toBe(2);
    expect(d.min).toBe(2);
    expect(d.max).toBe(9);
    expect(d.percentiles.p50).toBe(4.5);
    expect(d.percentiles['p99.9']).toBeCloseTo(9 - 0.007 * 2, 12);
  });
});

describe('percentilesInPlace (selection) agrees with sorting', () => {
  it('gives exactly the sorted-array answer on random data with ties, for many sizes', () => {
    const rng = seededRng(42);
    const ps = [0, 1, 25, 50, 90, 95, 99, 99.9, 100];
    for (const n of [1, 2, 3, 5, 10, 64, 101, 1000, 5003]) {
      const values = Array.from({ length: n }, () => Math.floor(rng() * 50) + (rng() < 0.1 ? rng() : 0));
      const sorted = [...values].sort((a, b) => a - b);
      const expected = ps.map((p) => percentileOfSorted(sorted, p));
      expect(percentilesInPlace(Float64Array.from(values), ps)).toEqual(expected);
    }
  });

  it('handles all-equal values and percentiles given out of order', () => {
    expect(percentilesInPlace(new Float64Array(100).fill(3), [99, 1])).toEqual([3, 3]);
    expect(percentilesInPlace(Float64Array.from([5, 1, 4, 2, 3]), [75, 25])).toEqual([4, 2]);
  });

  it('returns NaN for each percentile of no samples', () => {
    expect(percentilesInPlace(new Float64Array(0), [50, 99])).toEqual([NaN, NaN]);
  });
});
