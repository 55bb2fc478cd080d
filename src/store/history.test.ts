// `history` marks change points per level: the first point after a step of one level's series carries the
// step's size, another level's steady series carries none, and invalid or withheld points are left out of
// the series the rule searches.

import { describe, expect, it } from 'vitest';
import { type HistoryPoint, markChangePoints } from './history.js';

function point(
  label: string,
  value: number | null,
  validity: HistoryPoint['validity'] = 'valid',
): HistoryPoint {
  return {
    ...{ runId: `run-${label}-${value}`, dir: '/x', name: 'n', startedAt: null },
    ...{ level: { kind: 'concurrency', value: 8 }, label, value, ci: null, n: 32, validity },
    withheld: value === null ? 'p99 n/a (32 samples; ≥662 needed)' : null,
    changePoint: null,
  };
}

describe('history change points', () => {
  it('marks the first point after a step of a level, and nothing in a steady level', () => {
    const stepped = [100, 101, 99, 100, 80, 81, 79, 80].map((v) => point('c=8', v));
    const steady = [50, 51, 49, 50, 50, 51, 49, 50].map((v) => point('c=2', v));
    const all = stepped.flatMap((p, i) => [p, steady[i]]);
    markChangePoints(all);
    expect(stepped.map((p) => p.changePoint !== null)).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
      false,
      false,
    ]);
    expect(stepped[4].changePoint?.shift).toBeCloseTo(0.8, 2);
    expect(steady.every((p) => p.changePoint === null)).toBe(true);
  });

  it('leaves invalid and withheld points out of the series', () => {
    const series = [
      point('c=8', 100),
      point('c=8', 101),
      point('c=8', 10, 'invalid'),
      point('c=8', null),
      point('c=8', 99),
      point('c=8', 100),
    ];
    markChangePoints(series);
    expect(series.every((p) => p.changePoint === null)).toBe(true);
  });
});
