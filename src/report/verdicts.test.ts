// Verdict wording on hand-built level rows: the sentences name the levels the way a reader would
// (no "every concurrency tested (1–1)", no "up to concurrency 1", lists joined with "and").

import { describe, expect, it } from 'vitest';
import type { Cell, LevelRow, MetricId } from './types.js';
import { verdictFor } from './verdicts.js';

/** A usable concurrency level where `run` has `ratio` to `base` on output throughput (significant unless 1). */
function row(concurrency: number, ratio: number): LevelRow {
  const significant = ratio !== 1;
  const cells: Cell[] = [
    { run: 'base', value: 100, ratio: null, ci: null, significant: null, n: 50 },
    {
      run: 'spec',
      value: 100 * ratio,
      ratio,
      ci: { low: ratio - (significant ? 0.02 : 0.1), high: ratio + (significant ? 0.02 : 0.1) },
      significant,
      n: 50,
    },
  ];
  return {
    level: { kind: 'concurrency', value: concurrency },
    label: `c=${concurrency}`,
    flags: { base: [], spec: [] },
    usable: true,
    validity: {},
    cells: { output_throughput: cells } as Record<MetricId, Cell[]>,
  };
}

const verdict = (rows: LevelRow[]) => verdictFor(rows, 'output_throughput', 'spec', 'base')?.text;

describe('verdict wording', () => {
  it('names the single usable level instead of a range from it to itself', () => {
    expect(verdict([row(16, 1.3)])).toBe(
      'spec has higher output throughput than base at concurrency 16, the only level compared (+30% at 16, CI +28% to +32%).',
    );
  });

  it('says "at" the lowest level when only that level goes the first way', () => {
    expect(verdict([row(1, 0.8), row(16, 1.3), row(64, 1.2)])).toMatch(
      /^spec is slower than base \(output throughput\) at concurrency 1, faster from 16 \(/,
    );
  });

  it('keeps "up to X, from Y" for a clean split with several levels on each side', () => {
    expect(verdict([row(1, 1.3), row(4, 1.2), row(16, 0.8), row(64, 0.7)])).toMatch(
      /^spec is faster than base \(output throughput\) up to concurrency 4, slower from 16 \(/,
    );
  });

  it('joins levels that are not a range with "and"', () => {
    expect(verdict([row(1, 0.85), row(16, 1.3), row(192, 0.7)])).toMatch(
      /^spec is slower than base \(output throughput\) at concurrency 1 and 192, faster at concurrency 16 \(/,
    );
    expect(verdict([row(1, 1.2), row(4, 1), row(16, 1.25), row(64, 1), row(192, 1.1)])).toMatch(
      /^spec has higher output throughput than base at concurrency 1, 16 and 192 \(/,
    );
  });
});
