import { describe, expect, it } from 'vitest';
import {
  highestSupportedPercentile,
  minSamplesFor,
  supportsPercentile,
  unsupportedNote,
} from './tail-samples.js';

describe('minimum samples per percentile', () => {
  it('reproduces the MLPerf early-stopping minimums: p90 needs 64, p99 needs 662', () => {
    expect(minSamplesFor(90)).toBe(64);
    expect(minSamplesFor(99)).toBe(662);
  });

  it('extends the rule to other percentiles and grows monotonically', () => {
    expect(minSamplesFor(50)).toBe(11);
    expect(minSamplesFor(99.9)).toBeGreaterThan(6000);
    expect(minSamplesFor(95)).toBeGreaterThan(minSamplesFor(90));
    expect(minSamplesFor(95)).toBeLessThan(minSamplesFor(99));
  });

  it('supports a percentile exactly from its minimum on', () => {
    expect(supportsPercentile(661, 99)).toBe(false);
    expect(supportsPercentile(662, 99)).toBe(true);
  });

  it('names the bound 40 samples can support', () => {
    expect(highestSupportedPercentile(40)).toBeLessThan(90);
    expect(highestSupportedPercentile(2)).toBeNull();
    expect(unsupportedNote(99, 40)).toMatch(/^p99 n\/a \(40 samples; ≥662 needed, up to p\d+ supported\)$/);
  });
});
