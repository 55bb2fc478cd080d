import { describe, expect, it } from 'vitest';
import { normal, seededRng } from '../core/seeded-random.js';
import {
  bootstrapRatioByIndex,
  bootstrapRatioCI,
  bootstrapRatioGrouped,
  meanStat,
  percentileStat,
} from './bootstrap.js';
import { fewTrialsFactor } from './bootstrap-trials.js';

function normalSample(n: number, mu: number, sigma: number, seed: number): number[] {
  const rng = seededRng(seed);
  return Array.from({ length: n }, () => mu + sigma * normal(rng));
}

function sample(seed: number, n: number, scale: number): number[] {
  const rng = seededRng(seed);
  return Array.from({ length: n }, () => scale * (50 + 100 * rng()));
}

/** The mean of xs over the drawn indices, as an index statistic. */
const mean = (xs: number[]) => (idx: Uint32Array) => {
  let s = 0;
  for (let i = 0; i < idx.length; i++) s += xs[idx[i]];
  return s / idx.length;
};

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

  it('brackets the true ratio of means with the normal-theory width', () => {
    // means 100 and 110, sd 10, n 400: ratio 1.1, sd of ratio ≈ 1.1*sqrt((0.1²+0.0909²)/400) ≈ 0.00743
    const a = normalSample(400, 100, 10, 3);
    const b = normalSample(400, 110, 10, 4);
    const ci = bootstrapRatioCI(a, b, meanStat, { seed: 1, iterations: 2000 })!;
    expect(ci.low).toBeLessThan(1.1);
    expect(ci.high).toBeGreaterThan(1.1);
    const halfWidth = (ci.high - ci.low) / 2;
    expect(halfWidth).toBeGreaterThan(1.96 * 0.00743 * 0.8);
    expect(halfWidth).toBeLessThan(1.96 * 0.00743 * 1.2);
    expect(ci.significant).toBe(true);
  });
});

describe('bootstrapRatioByIndex', () => {
  it('gives the value form interval when each statistic reads its own column through the indices', () => {
    const a = sample(12, 150, 1);
    const b = sample(13, 120, 1.3);
    const meanOf = (column: number[]) => (idx: Uint32Array) => {
      let sum = 0;
      for (const i of idx) sum += column[i]!;
      return sum / idx.length;
    };
    const opts = { iterations: 300, seed: 5 };
    const byIndex = bootstrapRatioByIndex(a.length, b.length, meanOf(a), meanOf(b), opts);
    expect(byIndex).toEqual(bootstrapRatioCI(a, b, meanStat, opts));
  });

  it('lets a statistic combine two per-request columns, e.g. tokens per second of busy time', () => {
    const tokens = [100, 200, 300, 400];
    const seconds = [1, 2, 3, 4];
    const rate = (scale: number) => (idx: Uint32Array) => {
      let t = 0;
      let s = 0;
      for (const i of idx) {
        t += tokens[i]! * scale;
        s += seconds[i]!;
      }
      return t / s;
    };
    const ci = bootstrapRatioByIndex(4, 4, rate(1), rate(3), { iterations: 100, seed: 2 })!;
    expect([ci.ratio, ci.low, ci.high]).toEqual([3, 3, 3]);
    expect(ci.significant).toBe(true);
  });

  it('returns null for an empty side and rejects a confidence outside (0, 1)', () => {
    const one = () => 1;
    expect(bootstrapRatioByIndex(0, 3, one, one, { iterations: 10, seed: 1 })).toBeNull();
    expect(() => bootstrapRatioByIndex(3, 3, one, one, { iterations: 10, seed: 1, confidence: 1 })).toThrow(
      RangeError,
    );
  });
});

describe('bootstrapRatioGrouped (repeated trials)', () => {
  // three trials per side whose means differ far more than their requests do (a host slowdown in one)
  const trials = (means: number[], n: number, seed: number) =>
    means.flatMap((m, t) => normalSample(n, m, m * 0.01, seed + t));
  const a = trials([100, 120, 95], 200, 1);
  const b = trials([112, 104, 108], 200, 11);
  const opts = { iterations: 2000, seed: 5 };

  it('puts the variance between trials inside the interval, which resampling requests alone misses', () => {
    const flat = bootstrapRatioGrouped([600], [600], mean(a), mean(b), opts)!;
    const nested = bootstrapRatioGrouped([200, 200, 200], [200, 200, 200], mean(a), mean(b), opts)!;
    expect(nested.ratio).toBeCloseTo(flat.ratio, 12);
    expect(flat.high - flat.low).toBeLessThan(0.03);
    expect(flat.significant).toBe(true);
    expect(nested.high - nested.low).toBeGreaterThan(0.1);
    expect(nested.significant).toBe(false);
  });

  it('with one trial per side is the plain request bootstrap, draw for draw', () => {
    const x = normalSample(300, 10, 1, 3);
    const y = normalSample(250, 11, 1, 4);
    expect(bootstrapRatioGrouped([300], [250], mean(x), mean(y), opts)).toEqual(
      bootstrapRatioByIndex(300, 250, mean(x), mean(y), opts),
    );
  });

  it('widens only the spread between few trials, as a t interval with G − 1 degrees of freedom would', () => {
    expect(fewTrialsFactor(1)).toBe(1);
    expect(fewTrialsFactor(3)).toBeCloseTo(2.69, 2);
    expect(fewTrialsFactor(5)).toBeCloseTo(1.58, 2);
    expect(fewTrialsFactor(10)).toBeCloseTo(1.22, 2);
    // trials that agree: the interval is the requests' own noise, not blown up by the factor
    const same = (seed: number) => [1, 2, 3].flatMap((t) => normalSample(200, 100, 5, seed + t));
    const x = same(20);
    const y = same(30);
    const flat = bootstrapRatioGrouped([600], [600], mean(x), mean(y), opts)!;
    const nested = bootstrapRatioGrouped([200, 200, 200], [200, 200, 200], mean(x), mean(y), opts)!;
    expect(nested.high - nested.low).toBeLessThan(1.6 * (flat.high - flat.low));
  });
});

describe('bootstrapRatioGrouped (interleaved rounds, paired)', () => {
  // three rounds A_t, B_t on one host whose speed drifts a lot between rounds; B is 10% slower in each
  const drift = [100, 150, 220];
  const rounds = (scale: number, seed: number) =>
    drift.flatMap((m, t) => normalSample(200, m * scale, m * scale * 0.02, seed + t));
  const a = rounds(1, 40);
  const b = rounds(1.1, 50);
  const opts = { iterations: 2000, seed: 9 };

  it('cancels drift shared by a round: the paired interval is narrow where the unpaired one is wide', () => {
    const unpaired = bootstrapRatioGrouped([200, 200, 200], [200, 200, 200], mean(a), mean(b), opts)!;
    const paired = bootstrapRatioGrouped([200, 200, 200], [200, 200, 200], mean(a), mean(b), {
      ...opts,
      paired: true,
    })!;
    expect(paired.ratio).toBeCloseTo(unpaired.ratio, 12);
    expect(unpaired.resampling).toBe('trials-then-requests');
    expect(unpaired.significant).toBe(false);
    expect(paired.resampling).toBe('paired-rounds');
    expect(paired.significant).toBe(true);
    expect(paired.low).toBeLessThan(1.1);
    expect(paired.high).toBeGreaterThan(1.1);
    expect(paired.high - paired.low).toBeLessThan((unpaired.high - unpaired.low) / 5);
  });

  it('falls back to the unpaired bootstrap, and says so, when the sides ran different numbers of rounds', () => {
    const short = a.slice(0, 400);
    const ci = bootstrapRatioGrouped([200, 200], [200, 200, 200], mean(short), mean(b), {
      ...opts,
      paired: true,
    })!;
    expect(ci.resampling).toBe('trials-then-requests');
    const one = bootstrapRatioGrouped([600], [600], mean(a), mean(b), { ...opts, paired: true })!;
    expect(one.resampling).toBe('requests');
  });
});
