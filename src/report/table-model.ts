// The per-metric comparison table as plain strings, shared by the terminal and Markdown renderers:
// one row per level, one column per run; other runs show the change vs baseline with its CI.

import { fewTrialsFactor } from '../metrics/bootstrap-trials.js';
import { formatChange, formatValue, labelWithUnit } from './format.js';
import { MIN_VERDICT_WINDOW_S } from './level-rows.js';
import { METRICS } from './metric-catalog.js';
import type { Cell, Comparison, LevelRow, MetricId } from './types.js';

export interface TableCell {
  text: string;
  /** For colouring: better/worse than baseline with significance, or neutral. */
  tone: 'better' | 'worse' | 'neutral' | 'muted';
}

export interface MetricTable {
  metric: MetricId;
  title: string;
  header: string[];
  rows: TableCell[][];
}

export function cellTone(cell: Cell, higherIsBetter: boolean): TableCell['tone'] {
  if (cell.ratio === null || !cell.significant) return 'neutral';
  return cell.ratio > 1 === higherIsBetter ? 'better' : 'worse';
}

/** "client-limited: a, b; invalid: c" ("all runs" when every run has the flag). */
export function flagNote(row: LevelRow): string {
  const byFlag = new Map<string, string[]>();
  const runs = Object.keys(row.flags);
  for (const [run, flags] of Object.entries(row.flags)) {
    for (const f of flags) byFlag.set(f.flag, [...(byFlag.get(f.flag) ?? []), run]);
  }
  return [...byFlag]
    .map(
      ([flag, who]) =>
        `${flag}: ${who.length === runs.length && runs.length > 1 ? 'all runs' : who.join(', ')}`,
    )
    .join('; ');
}

/** Why there are no verdicts, or which levels the verdicts leave out; null when every level counts. */
export function exclusionNote(cmp: Comparison): string | null {
  if (cmp.runs.length < 2) return null;
  if (cmp.verdictsWithheld && !cmp.levels.some((l) => !l.usable)) return cmp.verdictsWithheld;
  const common = cmp.levels.filter(
    (l) => !Object.values(l.flags).some((fs) => fs.some((f) => f.flag === 'missing')),
  );
  const excluded = common.filter((l) => !l.usable);
  if (excluded.length === 0)
    return cmp.verdicts.length === 0
      ? 'No verdicts: no metric shown has a value at a level the runs share (see the tables for why).'
      : null;
  const list = excluded.map((l) => `${l.label} (${flagNote(l)})`).join('; ');
  if (excluded.length === common.length) return `No verdicts: every common level is excluded: ${list}.`;
  if (cmp.verdictsWithheld) return `${cmp.verdictsWithheld} Excluded levels: ${list}.`;
  return `Excluded from verdicts: ${list}.`;
}

export function cellText(cell: Cell): string {
  if (cell.withheld) return cell.withheld;
  const v = formatValue(cell.value);
  if (cell.ratio === null) return v;
  const ci = cell.ci ? ` [${formatChange(cell.ci.low)}, ${formatChange(cell.ci.high)}]` : ' [no CI]';
  return `${v} ${formatChange(cell.ratio)}${ci}${cell.significant ? ' *' : ''}`;
}

export function metricTables(cmp: Comparison): MetricTable[] {
  const names = cmp.runs.map((r) => r.name);
  return cmp.metrics.map((metric) => {
    const spec = METRICS[metric];
    const rows = cmp.levels.map((row) => {
      const cells = row.cells[metric] ?? [];
      const out: TableCell[] = [{ text: row.label, tone: 'neutral' }];
      for (const name of names) {
        const cell = cells.find((c) => c.run === name);
        out.push(
          cell
            ? {
                // goodput exists only where the plan set SLOs: say so instead of a bare dash
                text:
                  metric === 'goodput' && cell.value === null
                    ? 'n/a (no SLO in the plan)'
                    : metric === 'energy_per_token' && cell.value === null
                      ? 'n/a (no GPU power data)'
                      : cellText(cell),
                tone: row.usable ? cellTone(cell, spec.higherIsBetter) : 'muted',
              }
            : { text: '—', tone: 'muted' },
        );
      }
      const note = flagNote(row);
      out.push({
        text: note ? (cmp.runs.length > 1 ? `excluded (${note})` : note) : '',
        tone: note ? 'muted' : 'neutral',
      });
      return out;
    });
    return {
      metric,
      title: `${labelWithUnit(spec.label, spec.unit)}, ${spec.higherIsBetter ? 'higher' : 'lower'} is better`,
      header: ['level', ...names.map((n) => (n === cmp.baseline ? `${n} (baseline)` : n)), 'notes'],
      rows,
    };
  });
}

/** What the intervals cover: request noise only with one trial, or between-run variance with trials. */
export function intervalCoverage(cmp: Comparison): string {
  const resamples = cmp.bootstrap.resamples;
  if (resamples === 'trials-then-requests' || resamples === 'paired-rounds') {
    const t = cmp.runs.map((r) => `${r.name} ${r.trials}`).join(', ');
    // the factor of the fewest trials compared: the widest any interval was made
    const fewest = Math.min(...cmp.runs.map((r) => r.trials).filter((n) => n > 1));
    const factor = Number.isFinite(fewest)
      ? ` (×${fewTrialsFactor(fewest).toFixed(1)} for ${fewest} trials)`
      : '';
    const how =
      resamples === 'paired-rounds'
        ? 'Intervals resample interleaved rounds as pairs (A_t with B_t), then requests within them, so drift shared by a round cancels and run-to-run variance is inside them'
        : 'Intervals resample trials, then requests within them, so run-to-run variance is inside them';
    return `${how}; the spread between few trials is widened as a t interval would${factor} (trials: ${t}).`;
  }
  const noise = runNoiseSource(cmp);
  if (noise)
    return `One trial per run: the intervals are widened by a run-to-run noise estimate (${noise}); levels measured for under ${MIN_VERDICT_WINDOW_S} s get no verdict.`;
  return `One trial per run: the intervals cover request-to-request noise only, not run-to-run variance, so no change is a confident verdict (repeat with --trials N, or give a run-to-run noise estimate); levels measured for under ${MIN_VERDICT_WINDOW_S} s get no verdict.`;
}

/** Where the run-to-run spread of one-trial cells came from, when one was given. */
function runNoiseSource(cmp: Comparison): string | null {
  for (const row of cmp.levels ?? [])
    for (const cells of Object.values(row.cells))
      for (const c of cells) if (c.runNoise && c.runNoise !== 'unknown') return c.runNoise.source;
  return null;
}

export function bootstrapNote(cmp: Comparison): string {
  const what = {
    'trials-then-requests': 'trials, then of requests within them',
    'paired-rounds': 'paired rounds, then of requests within them',
    requests: 'requests',
  }[cmp.bootstrap.resamples];
  const itl = cmp.metrics.some((m) => m.includes('_itl_'))
    ? ' ITL rows have no CI and give no verdict: their samples are gaps inside requests, not independent requests.'
    : '';
  return `Change vs ${cmp.baseline} with ${Math.round(cmp.bootstrap.confidence * 100)}% percentile-bootstrap CI (${cmp.bootstrap.iterations} resamples of ${what}, seed ${cmp.bootstrap.seed}); * = CI excludes no change. ${intervalCoverage(cmp)}${itl}`;
}

/** One line per flagged level and run, with the reason the producer gave (e.g. the client's loop lag). */
export function flagReasons(cmp: Comparison): string[] {
  const out: string[] = [];
  for (const row of cmp.levels) {
    for (const [run, flags] of Object.entries(row.flags)) {
      for (const f of flags)
        if (f.flag !== 'missing') out.push(`${row.label}, ${run}: ${f.flag} (${f.reason})`);
    }
  }
  return out;
}
