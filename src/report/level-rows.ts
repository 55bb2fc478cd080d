// The per-level rows of a comparison: each run's flags (why a level leaves the verdicts: client-limited,
// invalid, missing, or a measured window too short to trust without repeated trials), its validity, and
// one cell per metric. Also the chart series, one point per level and run (trials pooled).

import type { LevelSummary } from '../metrics/summary.js';
import type { Validity } from '../metrics/validity.js';
import { type CellOptions, cellFor } from './cells.js';
import type { AlignedLevel, AlignedRow } from './level-alignment.js';
import { levelLabel } from './levels.js';
import type { Comparison, LevelFlag, LevelRow, MetricId } from './types.js';
import type { RunValidity } from './validity.js';

/**
 * A level measured for less than this, in one trial, gets no verdict: a host hiccup of a few tens of ms
 * (seen as event-loop lag) is then a material share of the window, and resampling the requests of one
 * run cannot see it. Repeated trials put that variance inside the interval, so they lift the rule.
 */
export const MIN_VERDICT_WINDOW_S = 1;

type Flags = { flag: LevelFlag; reason: string }[];

/** Why a level leaves the verdicts: client-limited, invalid (its own reasons, or its run's), short window. */
export function levelFlags(l: LevelSummary, v: Validity | undefined, run: RunValidity | undefined): Flags {
  const out: Flags = [];
  if (l.client?.clientLimited)
    out.push({ flag: 'client-limited', reason: l.client.reason ?? 'the client was the bottleneck' });
  const own = (v?.reasons ?? []).filter((r) => r.severity === 'invalid' && r.check !== 'client-limited');
  const runWhy =
    run?.status === 'invalid'
      ? run.reasons.filter((r) => r.severity === 'invalid' && r.check !== 'levels')
      : [];
  const why = [...runWhy, ...own].map((r) => r.text.replace(/\.$/, ''));
  if (why.length > 0) out.push({ flag: 'invalid', reason: why.join('; ') });
  else if (l.validity && !l.validity.valid)
    out.push({ flag: 'invalid', reason: l.validity.reasons.join('; ') || 'marked invalid' });
  return out;
}

/** The short-window flag of a level that ran once for less than MIN_VERDICT_WINDOW_S. */
function shortWindow(level: AlignedLevel): Flags {
  if (level.trials.length > 1 || !(level.summary.windowS < MIN_VERDICT_WINDOW_S)) return [];
  return [
    {
      flag: 'short-window',
      reason: `measured window ${level.summary.windowS.toFixed(2)} s < ${MIN_VERDICT_WINDOW_S} s in one trial: too short for a verdict (repeat it with --trials, or measure longer)`,
    },
  ];
}

export function buildLevelRows(
  aligned: readonly AlignedRow[],
  runs: readonly string[],
  runValidity: ReadonlyMap<string, RunValidity>,
  metrics: readonly MetricId[],
  cells: CellOptions,
): LevelRow[] {
  return aligned.map((row) => {
    const flags: LevelRow['flags'] = {};
    const validity: LevelRow['validity'] = {};
    for (const run of runs) {
      const level = row.perRun.get(run);
      const rv = runValidity.get(run);
      const v = rv?.levels[row.id];
      if (v) validity[run] = { status: v.status, reasons: v.reasons };
      flags[run] = level
        ? [...levelFlags(level.summary, v, rv), ...shortWindow(level)]
        : [{ flag: 'missing', reason: 'level not measured in this run' }];
    }
    const usable = Object.values(flags).every((f) => f.length === 0);
    const byMetric = {} as Record<MetricId, LevelRow['cells'][MetricId]>;
    for (const m of metrics) byMetric[m] = runs.map((run) => cellFor(m, row, cells.baseline, run, cells));
    return { level: row.key, label: levelLabel(row.key), flags, usable, validity, cells: byMetric };
  });
}

/** Chart points: every level each run has (trials pooled), with the flags that exclude it from verdicts. */
export function chartSeries(
  aligned: readonly AlignedRow[],
  runs: readonly string[],
  rows: readonly LevelRow[],
): Comparison['series'] {
  return runs.map((run) => ({
    run,
    points: aligned.flatMap((a, k) => {
      const level = a.perRun.get(run);
      if (!level) return [];
      const flags = (rows[k]?.flags[run] ?? []).map((f) => f.flag);
      return [{ level: a.key, summary: level.summary, flags }];
    }),
  }));
}
