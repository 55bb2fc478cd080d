// Steady-state figures of closed-loop levels next to the full-window ones, as a plain table for every
// renderer: what the ramp-up and drain were, how many requests they held, and the throughput and median
// latencies over the window where all N slots were busy (definition: metrics/steady-state.ts).

import { steadyState } from '../metrics/steady-state.js';
import type { LoadedRun } from '../results/layout.js';
import { formatValue } from './format.js';
import { compareLevelKeys, levelLabel } from './levels.js';
import type { Comparison } from './types.js';

export type SteadyRow = Comparison['steadyState'][number];

/** One row per closed-loop level of every run with per-request records. */
export function steadyRows(runs: readonly LoadedRun[]): SteadyRow[] {
  const out: SteadyRow[] = [];
  for (const run of runs) {
    const levels = [...run.summary.levels].sort((a, b) => compareLevelKeys(a.level, b.level));
    for (const l of levels) {
      if (l.level.kind !== 'concurrency') continue;
      const records = run.records.filter((r) => r.levelIndex === l.levelIndex);
      if (records.length === 0) continue;
      const res = steadyState(records, l.level.value);
      out.push({
        run: run.name,
        level: l.level,
        label: `${levelLabel(l.level)}${l.trial !== undefined ? ` trial ${l.trial}` : ''}`,
        full: {
          windowS: l.windowS,
          requestsPerS: l.throughput.requestsPerS,
          outputTokensPerS: l.throughput.outputTokensPerS,
        },
        ...(res.ok ? { steady: res.steady } : { reason: res.reason }),
      });
    }
  }
  return out;
}

export const STEADY_TITLE = 'Steady state (closed-loop levels: all N slots busy; ramp-up and drain excluded)';

export const STEADY_HEADER = [
  'level',
  'run',
  'window s (full)',
  'ramp-up s',
  'drain s',
  'requests excluded',
  'req/s steady (full)',
  'output tok/s steady (full)',
  'TTFT p50 ms steady',
];

export function steadyTable(cmp: Comparison): string[][] {
  return cmp.steadyState.map((r) => {
    const s = r.steady;
    if (!s)
      return [
        r.label,
        r.run,
        formatValue(r.full.windowS),
        `no steady window: ${r.reason}`,
        '',
        '',
        '',
        '',
        '',
      ];
    return [
      r.label,
      r.run,
      `${formatValue(s.windowS)} (${formatValue(r.full.windowS)})`,
      formatValue(s.rampUpS),
      formatValue(s.drainS),
      String(s.requestsExcluded),
      `${formatValue(s.requestsPerS)} (${formatValue(r.full.requestsPerS)})`,
      `${formatValue(s.outputTokensPerS)} (${formatValue(r.full.outputTokensPerS)})`,
      formatValue(s.ttftP50Ms),
    ];
  });
}
