// The gate's checks, one per metric and level, each judged against the noise a change must exceed. The
// noise comes, first choice, from the history of the same configuration, workload and host in the store
// (at least `minHistory` earlier runs: gate-noise.ts's prediction band); else from repeated trials on both
// sides (the compare engine's interval then resamples trials, so it holds run-to-run noise); else it is
// unknown and a change the within-run interval calls significant is inconclusive, never a regression. A
// level suspect for host timing noise on either side never gives a regression, unless the noise came from
// trials and each side has a trial of that level the host did not delay (the interval then resampled
// delayed and undelayed trials alike, so the delay is inside it); a level the comparison cannot use is
// skipped with the reason. Pure.

import { METRICS } from '../report/metric-catalog.js';
import type { Cell, Comparison, LevelRow, MetricId } from '../report/types.js';
import { judgeByBand, noiseBand } from './gate-noise.js';

export type GateOutcome = 'regression' | 'improvement' | 'no change' | 'inconclusive' | 'skipped';

export interface GateCheck {
  metric: MetricId;
  level: string;
  /** run / reference (the compare engine's); null when either value is missing. */
  ratio: number | null;
  ci: { low: number; high: number } | null;
  outcome: GateOutcome;
  /** What the noise was judged from: the store's history, both sides' trials, or nothing (unknown). */
  noise: 'history' | 'trials' | 'unknown';
  /** With noise from history: the run's value against the history's centre, and the band it had to leave. */
  history: { k: number; ratio: number; low: number; high: number } | null;
  /** Why a check is inconclusive or skipped; null otherwise. */
  reason: string | null;
  /** The run's measured window at the level, in seconds (JUnit `time`). */
  timeS: number;
  text: string;
}

/** A level's host timing noise on either side of the gate. */
export interface HostNoise {
  reason: string;
  /** Some side has no trial of the level free of timing noise. */
  everyTrial: boolean;
}

/** What the checks are judged with, besides the comparison. */
export interface GateEvidence {
  runName: string;
  metrics: readonly MetricId[];
  minEffect: number;
  minHistory: number;
  /** Per metric, per level label: the earlier runs' values, and the run's own value read the same way. */
  history: Map<MetricId, { earlier: Map<string, number[]>; run: Map<string, number> }>;
  /** Both runs have repeated trials (the compare engine's interval resamples them). */
  trials: boolean;
  /** Per level label: why either side is suspect for host timing noise, and whether a side had every trial delayed. */
  hostNoise: Map<string, HostNoise>;
  /** Per level label: the run's measured window, seconds. */
  timeS: Map<string, number>;
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

type Judged = Pick<GateCheck, 'outcome' | 'noise' | 'history' | 'reason'>;

/** The outcome of one check whose values both exist. */
function judgeCell(row: LevelRow, metric: MetricId, cell: Cell, e: GateEvidence): Judged {
  const spec = METRICS[metric];
  const change = (cell.ratio as number) - 1;
  const h = e.history.get(metric);
  const earlier = h?.earlier.get(row.label) ?? [];
  const own = h?.run.get(row.label);
  const band = earlier.length >= e.minHistory && own !== undefined ? noiseBand(earlier) : null;
  let judged: Judged;
  if (band && own !== undefined) {
    const b = judgeByBand(own, band, { higherIsBetter: spec.higherIsBetter, minEffect: e.minEffect });
    const history = { k: band.k, ratio: b.ratio, low: band.low, high: band.high };
    judged = { outcome: b.outcome, noise: 'history', history, reason: null };
  } else {
    const noise = e.trials ? 'trials' : 'unknown';
    let outcome: GateOutcome = 'no change';
    if (Math.abs(change) >= e.minEffect && cell.significant)
      outcome = change > 0 === spec.higherIsBetter ? 'improvement' : 'regression';
    const reason =
      noise === 'unknown' && outcome !== 'no change'
        ? `run-to-run noise unknown: ${earlier.length} of the ${e.minHistory} earlier runs of this configuration, workload and host needed, and no repeated trials (--trials)`
        : null;
    judged = { outcome: reason ? 'inconclusive' : outcome, noise, history: null, reason };
  }
  const noisy = e.hostNoise.get(row.label);
  const inside = judged.noise === 'trials' && noisy?.everyTrial === false;
  if (judged.outcome === 'regression' && noisy && !inside)
    return { ...judged, outcome: 'inconclusive', reason: `suspect for host timing noise: ${noisy.reason}` };
  return judged;
}

function checkText(metric: MetricId, label: string, cell: Cell | undefined, j: Judged): string {
  const spec = METRICS[metric];
  const change = cell?.ratio == null ? null : cell.ratio - 1;
  const ci = cell?.ci ? `, 95% CI ${pct(cell.ci.low - 1)} to ${pct(cell.ci.high - 1)}` : '';
  const band = j.history
    ? `; ${pct(j.history.ratio - 1)} vs the mean of ${j.history.k} earlier runs, noise band ${pct(j.history.low - 1)} to ${pct(j.history.high - 1)}`
    : '';
  const head = `${spec.label} at ${label}: ${change === null ? 'no value' : pct(change)}${ci}${band}`;
  return `${head} → ${j.outcome}${j.reason ? ` (${j.reason})` : ''}`;
}

/** Why a level the comparison flagged cannot be judged, from its flags. */
function flagReason(row: LevelRow): string {
  const reasons = Object.entries(row.flags).flatMap(([run, fs]) => fs.map((f) => `${run}: ${f.reason}`));
  return reasons.join('; ') || 'not usable in the comparison';
}

/** Every check of the comparison: usable levels judged, the rest skipped with the reason. */
export function gateChecks(cmp: Comparison, e: GateEvidence): GateCheck[] {
  const out: GateCheck[] = [];
  for (const row of cmp.levels)
    for (const metric of e.metrics) {
      const cell = row.cells[metric]?.find((c) => c.run === e.runName);
      const base = { metric, level: row.label, timeS: e.timeS.get(row.label) ?? 0 };
      let j: Judged;
      if (!row.usable) j = skipped(flagReason(row));
      else if (!cell || cell.value === null || cell.ratio === null)
        j = skipped(cell?.withheld ?? 'no value on one side');
      else j = judgeCell(row, metric, cell, e);
      out.push({
        ...base,
        ratio: cell?.ratio ?? null,
        ci: cell?.ci ?? null,
        ...j,
        text: checkText(metric, row.label, cell, j),
      });
    }
  return out;
}

const skipped = (reason: string): Judged => ({ outcome: 'skipped', noise: 'unknown', history: null, reason });
