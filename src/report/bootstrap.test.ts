import { describe, expect, it } from 'vitest';
import { normal, seededRng } from '../core/seeded-random.js';
import { bootstrapRatioCI, quantileInPlace, quantileOf, sortedQuantile } from './bootstrap.js';

const mean = (s: ArrayLike<number>) => Array.from(s).reduce((a, b) => a + b, 0) / s.length;

function normalSample(n: number, mu: number, sigma: number, seed: number): number[] {
  const rng = seededRng(seed);
  return Array.from({ length: n }, () => mu + sigma * normal(rng));
}

describe('quantileInPlace', () => {
  it('matches the sorted linear-interpolation quantile for every q and size, ties included', () => {
    const rng = seededRng(9);
    for (const n of [1, 2, 3, 10, 101]) {
      const values = Array.from({ length: n }, () => Math.round(rng() * 20));
      const sorted = Float64Array.from(values).sort();
      for (const q of [0, 0.01, 0.5, 0.9, 0.99, 1]) {
        expect(quantileInPlace(Float64Array.from(values), n, q)).toBeCloseTo(sortedQuantile(sorted, q), 12);
      }
    }
  });
});

describe('bootstrapRatioCI', () => {
  it('gives the same interval for the same seed and a different one for another seed', () => {
    const a = normalSample(200, 100, 10, 1);
    const b = normalSample(200, 110, 10, 2);
    const x = bootstrapRatioCI(a, b, mean, { seed: 7, iterations: 500 });
    const y = bootstrapRatioCI(a, b, mean, { seed: 7, iterations: 500 });
    const z = bootstrapRatioCI(a, b, mean, { seed: 8, iterations: 500 });
    expect(x).toEqual(y);
    expect(z!.low).not.toBe(x!.low);
  });

  it('brackets the true ratio of means and matches the normal-theory width', () => {
    // means 100 and 110, sd 10, n 400: ratio 1.1, sd of ratio ≈ 1.1*sqrt((0.1²+0.0909²)/400) ≈ 0.00743
    const a = normalSample(400, 100, 10, 3);
    const b = normalSample(400, 110, 10, 4);
    const ci = bootstrapRatioCI(a, b, mean, { seed: 1, iterations: 2000 })!;
    expect(ci.ratio).toBeCloseTo(mean(b) / mean(a), 12);
    expect(ci.low).toBeLessThan(1.1);
    expect(ci.high).toBeGreaterThan(1.1);
    const halfWidth = (ci.high - ci.low) / 2;
    expect(halfWidth).toBeGreaterThan(1.96 * 0.00743 * 0.8);
    expect(halfWidth).toBeLessThan(1.96 * 0.00743 * 1.2);
    expect(ci.significant).toBe(true);
  });

  it('is not significant when both samples come from the same distribution', () => {
    const a = normalSample(300, 50, 5, 5);
    const b = normalSample(300, 50, 5, 6);
    const ci = bootstrapRatioCI(a, b, (s) => quantileOf(s, 0.5), { seed: 2, iterations: 1000 })!;
    expect(ci.low).toBeLessThan(1);
    expect(ci.high).toBeGreaterThan(1);
    expect(ci.significant).toBe(false);
  });

  it('returns null for an empty sample or a zero baseline', () => {
    expect(bootstrapRatioCI([], [1, 2], mean)).toBeNull();
    expect(bootstrapRatioCI([0, 0], [1, 2], mean)).toBeNull();
  });
});
