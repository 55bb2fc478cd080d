import { describe, expect, it } from 'vitest';
import { intervalCoverage } from './table-model.js';
import type { Comparison } from './types.js';

// The sentence under every comparison saying what its intervals cover, and by how much few trials widen them.

function comparison(trials: number[]): Comparison {
  return {
    runs: trials.map((n, i) => ({ name: `run${i}`, trials: n })),
    bootstrap: { resamples: trials.some((n) => n > 1) ? 'trials-then-requests' : 'requests' },
  } as unknown as Comparison;
}

describe('what the intervals cover', () => {
  it('names the widening of the fewest trials compared, not a fixed three', () => {
    expect(intervalCoverage(comparison([5, 5]))).toContain('×1.6 for 5 trials');
    expect(intervalCoverage(comparison([3, 10]))).toContain('×2.7 for 3 trials');
    expect(intervalCoverage(comparison([10, 10]))).toContain('×1.2 for 10 trials');
  });

  it('says one trial covers request-to-request noise only', () => {
    expect(intervalCoverage(comparison([1, 1]))).toMatch(/request-to-request noise only/);
  });
});
