import { describe, expect, it } from 'vitest';
import type { TurnSummary } from '../metrics/summary.js';
import type { LoadedRun } from '../results/layout.js';
import { compareRuns } from './compare.js';
import { multiTurnTables } from './multi-turn-section.js';
import { buildRun, specs } from './test-support.js';

const turn = (n: number, count: number): TurnSummary => ({
  turn: n,
  completed: count,
  failed: 0,
  ttftMs: { count, mean: 12, std: 1, min: 10, max: 30, percentiles: { p50: 11, p99: 29 } },
  historyTokens: { mean: 100 * n, max: 100 * n },
  inputTokensServerMean: 100 * n + 3,
  cachedShare: n > 1 ? 0.8 : 0,
});

describe('the multi-turn table', () => {
  it('applies the tail rule per turn: p99 only where the turn has the samples for it', () => {
    const { manifest, summary, records } = buildRun({
      name: 'mt',
      levels: [
        {
          concurrency: 4,
          specs: specs(40, { e2eMs: 100, ttftMs: 10 }),
          summaryExtra: { multiTurn: [turn(1, 700), turn(2, 40)] },
        },
      ],
    });
    const run: LoadedRun = { name: 'mt', dir: '/x', manifest, summary, records, warnings: [] };
    const [table] = multiTurnTables(compareRuns([run], { iterations: 50 }));
    const p99 = table.header.indexOf('TTFT p99');
    expect(table.rows[0][p99]).toBe('29.0');
    expect(table.rows[1][p99]).toBe('p99 n/a (40 samples; ≥662 needed, up to p84 supported)');
  });
});
