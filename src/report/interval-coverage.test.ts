import { describe, expect, it } from 'vitest';
import { bootstrapNote, intervalCoverage } from './table-model.js';
import type { Comparison } from './types.js';

// The sentence under every comparison saying what its intervals cover, and by how much few trials widen them.

function comparison(trials: number[], metrics = ['output_throughput']): Comparison {
  return {
    baseline: 'run0',
    metrics,
    runs: trials.map((n, i) => ({ name: `run${i}`, trials: n })),
    bootstrap: {
      resamples: trials.some((n) => n > 1) ? 'trials-then-requests' : 'requests',
      confidence: 0.95,
      iterations: 2000,
      seed: 1,
    },
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

  it('says why ITL rows have no interval, only when they are shown', () => {
    const why = 'ITL rows have no CI and give no verdict: their samples are gaps inside requests';
    expect(bootstrapNote(comparison([1, 1], ['output_throughput', 'chunk_itl_p50']))).toContain(why);
    expect(bootstrapNote(comparison([1, 1]))).not.toContain('ITL');
  });
});
