// One run's cell at one level for one metric: its value (withheld when the sample count cannot support
// a percentile), its ratio to a reference run (the baseline, or another run for crossovers) and the 95%
// bootstrap CI of that ratio. Repeated trials are resampled hierarchically (trials, then requests
// within them), as pairs of rounds when the two runs' trials were interleaved (round-pairing.ts); one
// trial per side is widened by a run-to-run noise estimate when the caller gave one, and marked
// 'unknown' when not (run-noise.ts).

import { bootstrapRatioGrouped } from '../metrics/bootstrap.js';
import type { AlignedRow } from './level-alignment.js';
import { METRICS, tailNote } from './metric-catalog.js';
import { interleavedRounds } from './round-pairing.js';
import { noiseFor, type RunNoise, widenForRunNoise } from './run-noise.js';
import type { Cell, MetricId } from './types.js';

export interface CellOptions {
  iterations: number;
  seed: number;
  /** The baseline's name: cells against it keep the seeds they had before crossovers existed. */
  baseline: string;
  /** Run-to-run spreads measured by the caller, for one-trial runs. */
  runNoise?: RunNoise;
}

export function cellFor(m: MetricId, row: AlignedRow, ref: string, run: string, o: CellOptions): Cell {
  const spec = METRICS[m];
  const refLevel = row.perRun.get(ref);
  const own = row.perRun.get(run);
  const l = own?.summary;
  const withheld = l ? tailNote(spec, l) : null;
  const value = l && !withheld ? spec.value(l) : null;
  const refValue = refLevel && !tailNote(spec, refLevel.summary) ? spec.value(refLevel.summary) : null;
  const base = { run, value, n: l ? l.requests.completed : 0, ...(withheld ? { withheld } : {}) };
  if (run === ref || !own || !refLevel || value === null || refValue === null || refValue === 0)
    return { ...base, ratio: null, ci: null, significant: null };
  const statA = spec.statistic(refLevel.summary, refLevel.values);
  const statB = spec.statistic(own.summary, own.values);
  const res =
    statA && statB
      ? bootstrapRatioGrouped(refLevel.groups, own.groups, statA, statB, {
          iterations: o.iterations,
          seed: cellSeed(o.seed, row.id, m, run, ref === o.baseline ? '' : ref),
          paired: interleavedRounds(refLevel, own),
        })
      : null;
  const ratio = value / refValue;
  if (!res) return { ...base, ratio, ci: null, significant: null };
  const cell: Cell = {
    ...base,
    ratio,
    ci: { low: res.low, high: res.high },
    significant: res.significant,
    resampling: res.resampling,
  };
  if (refLevel.groups.length > 1 || own.groups.length > 1) return cell;
  // one trial per side: the interval holds request noise only unless a run-to-run spread widens it
  const noiseA = noiseFor(o.runNoise, ref, row.id, m);
  const noiseB = noiseFor(o.runNoise, run, row.id, m);
  if (!noiseA || !noiseB) return { ...cell, runNoise: 'unknown' };
  const ci = widenForRunNoise(res.ratio, cell.ci!, noiseA, noiseB);
  const source = noiseA.source === noiseB.source ? noiseA.source : `${noiseA.source}; ${noiseB.source}`;
  return { ...cell, ci, significant: ci.low > 1 || ci.high < 1, runNoise: { source } };
}

/** A seed per (level, metric, run), so adding a metric or a run leaves every other CI unchanged. */
function cellSeed(seed: number, ...parts: string[]): number {
  let h = 0x811c9dc5 ^ seed;
  for (const ch of parts.join('|')) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
