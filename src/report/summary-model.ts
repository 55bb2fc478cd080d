// The one-screen summary every report opens with (under its validity headline), before the details:
// which config is best in each band of load (on the headline metric, only where the difference is
// significant and at least the minimum effect), what failed, was skipped or excluded and why, which
// levels are suspect of serving from the prefix cache, and what the intervals cover (one trial or
// repeated trials). Plain sentences
// from the Comparison, so every format says the same.

import { formatChange, formatValue } from './format.js';
import { METRICS } from './metric-catalog.js';
import { judgeDifference } from './run-noise.js';
import { exclusionNote, intervalCoverage } from './table-model.js';
import type { Cell, Comparison, LevelRow, MetricId } from './types.js';

/** The run that is best at this level on `metric`, or null when no difference is meaningful. */
function winnerAt(row: LevelRow, metric: MetricId, cmp: Comparison): { run: string; cell: Cell } | null {
  const spec = METRICS[metric];
  const cells = (row.cells[metric] ?? []).filter((c) => c.value !== null);
  if (cells.length < 2) return null;
  const meaningful = (c: Cell) =>
    c.ratio !== null &&
    c.significant === true &&
    c.runNoise !== 'unknown' &&
    Math.abs(c.ratio - 1) >= cmp.minEffect;
  const better = (c: Cell) => meaningful(c) && (c.ratio as number) > 1 === spec.higherIsBetter;
  const best = cells.reduce((a, b) =>
    (b.value as number) > (a.value as number) === spec.higherIsBetter ? b : a,
  );
  if (best.run === cmp.baseline) {
    const others = cells.filter((c) => c.run !== cmp.baseline);
    return others.every((c) => meaningful(c) && !better(c)) ? { run: best.run, cell: best } : null;
  }
  return better(best) ? { run: best.run, cell: best } : null;
}

/** A band of adjacent levels with one answer: the best run there (null: no meaningful difference). */
export interface AnswerBand {
  /** "c=1–c=16" or "c=192". */
  label: string;
  best: string | null;
  /**
   * By how much, at the band's last level: the best run's cell (its ratio to the baseline), or where the
   * baseline is best, the closest challenger's cell (how far behind it is).
   */
  evidence: { level: string; cell: Cell } | null;
  /** No best named because run-to-run noise is unknown (one trial, no estimate), not because none differs. */
  noiseUnknown: boolean;
}

/** The non-baseline cell closest to the baseline's value on `metric` (the strongest challenger). */
function challenger(row: LevelRow, metric: MetricId, cmp: Comparison): Cell | null {
  const higher = METRICS[metric].higherIsBetter;
  const others = (row.cells[metric] ?? []).filter((c) => c.run !== cmp.baseline && c.ratio !== null);
  if (others.length === 0) return null;
  return others.reduce((a, b) => ((b.ratio as number) > (a.ratio as number) === higher ? b : a));
}

/** The answer per load band on `metric`, over the levels verdicts may use; [] when verdicts are withheld. */
export function answerBands(cmp: Comparison, metric: MetricId): AnswerBand[] {
  const rows = cmp.levels.filter((r) => r.usable);
  if (rows.length === 0 || cmp.verdictsWithheld) return [];
  const bands: {
    best: string | null;
    noiseUnknown: boolean;
    rows: LevelRow[];
    evidence: AnswerBand['evidence'];
  }[] = [];
  for (const row of rows) {
    const w = winnerAt(row, metric, cmp);
    const best = w?.run ?? null;
    const unknown =
      !w &&
      (row.cells[metric] ?? []).some(
        (c) => judgeDifference(c, METRICS[metric].higherIsBetter, cmp.minEffect) === 'noise-unknown',
      );
    // the baseline best, or no verdict for want of a noise estimate: the size is still said (the challenger's)
    const against = w?.run === cmp.baseline || unknown ? challenger(row, metric, cmp) : (w?.cell ?? null);
    const evidence = against ? { level: row.label, cell: against } : null;
    const last = bands.at(-1);
    if (last && last.best === best && last.noiseUnknown === unknown) {
      last.rows.push(row);
      if (evidence) last.evidence = evidence;
    } else bands.push({ best, noiseUnknown: unknown, rows: [row], evidence });
  }
  return bands.map((b) => ({
    label: b.rows.length === 1 ? b.rows[0].label : `${b.rows[0].label}–${b.rows[b.rows.length - 1].label}`,
    best: b.best,
    evidence: b.evidence,
    noiseUnknown: b.noiseUnknown,
  }));
}

/** Who a band names: its best run, or why none is named. */
export function bandWho(b: AnswerBand): string {
  if (b.best) return `${b.best} best`;
  return b.noiseUnknown ? 'no confident verdict (run-to-run noise unknown)' : 'no meaningful difference';
}

/** "c=1–c=16: eagle3 best (+38% at c=16); c=192: baseline best" on the headline metric. */
function bandsLine(cmp: Comparison, metric: MetricId): string | null {
  const bands = answerBands(cmp, metric);
  if (bands.length === 0) return null;
  const text = bands.map(
    (b) =>
      `${b.label}: ${bandWho(b)}${b.evidence && b.best !== cmp.baseline && b.best ? ` (${formatChange(b.evidence.cell.ratio)} at ${b.evidence.level})` : ''}`,
  );
  return `Best by ${METRICS[metric].noun} (vs ${cmp.baseline}): ${text.join('; ')}.`;
}

/** A single run: its levels and where its headline figure peaks. */
function singleRunLine(cmp: Comparison, metric: MetricId): string | null {
  const cells = cmp.levels.flatMap((r) =>
    (r.cells[metric] ?? []).filter((c) => c.value !== null).map((c) => ({ row: r, cell: c })),
  );
  if (cells.length === 0) return null;
  const spec = METRICS[metric];
  const best = cells.reduce((a, b) =>
    (b.cell.value as number) > (a.cell.value as number) === spec.higherIsBetter ? b : a,
  );
  const span =
    cmp.levels.length === 1 ? cmp.levels[0].label : `${cmp.levels[0].label}–${cmp.levels.at(-1)?.label}`;
  return `${cmp.runs[0].name}: ${cmp.levels.length} level${cmp.levels.length === 1 ? '' : 's'} (${span}); best ${spec.noun} ${formatValue(best.cell.value)} ${spec.unit} at ${best.row.label}.`;
}

/** Suspect and invalid level reasons, grouped by check, naming the levels: what to distrust first. */
export function distrustLines(cmp: Comparison): string[] {
  const byCheck = new Map<string, Map<string, Set<string>>>();
  for (const row of cmp.levels)
    for (const [run, v] of Object.entries(row.validity))
      for (const r of v.reasons) {
        if (r.severity === 'note' || r.check === 'recorded') continue;
        const runs = byCheck.get(r.check) ?? new Map<string, Set<string>>();
        byCheck.set(r.check, runs);
        runs.set(run, (runs.get(run) ?? new Set<string>()).add(row.label));
      }
  const single = cmp.runs.length === 1;
  const total = cmp.levels.reduce((n, row) => n + Object.keys(row.validity).length, 0);
  // one line per cause, how many levels it touched first: "6 of 9 levels had host timing noise: …"
  return [...byCheck].map(([check, runs]) => {
    const where = [...runs].map(([run, labels]) => `${single ? '' : `${run} `}${[...labels].join(', ')}`);
    const n = [...runs.values()].reduce((k, labels) => k + labels.size, 0);
    const words = DISTRUST_WORDS[check] ?? `flagged by the ${check} check`;
    return `${n} of ${total} level${total === 1 ? '' : 's'} ${words}: ${where.join('; ')}.`;
  });
}

const DISTRUST_WORDS: Record<string, string> = {
  'prefix-cache':
    'served from the prefix cache in a workload not meant to share (SUSPECT; see the prefix-cache section)',
  'error-rate': 'had failed requests',
  'no-requests': 'completed no request',
  'timing-noise': 'had host timing noise',
  'output-length': 'did not get the requested output lengths',
  'client-limited': 'client-limited (excluded from verdicts)',
};

export function summaryLines(cmp: Comparison): string[] {
  const metric = cmp.metrics.find((m) => METRICS[m].inVerdicts) ?? cmp.metrics[0];
  const out: string[] = [];
  // an SLO search's answer is what its run is for: it leads
  const searches = cmp.sloSearch?.runs ?? [];
  for (const r of searches)
    out.push(`${r.run}: ${r.status === 'read' ? r.answer : `SLO search unreadable: ${r.reason}`}`);
  out.push(...(cmp.sloSearch?.verdicts ?? []));
  const lead = metric ? (cmp.runs.length > 1 ? bandsLine(cmp, metric) : singleRunLine(cmp, metric)) : null;
  const unsure = cmp.verdicts.some((v) => v.noiseUnknown) && !cmp.verdicts.some((v) => v.weight >= 1000);
  if (unsure)
    out.push(
      'No confident verdict: one trial per run covers request-to-request noise only and run-to-run noise is unknown. Repeat with --trials 3 (interleaved rounds are compared as pairs), or keep earlier runs of these configs in the results store so compare can measure their spread.',
    );
  if (lead && searches.length === 0) out.push(lead);
  for (const s of cmp.validity.skipped) out.push(`Skipped: config ${s.name}: ${s.reason}`);
  if (cmp.verdictsWithheld) out.push(cmp.verdictsWithheld);
  const excluded = exclusionNote(cmp);
  if (excluded && excluded !== cmp.verdictsWithheld) out.push(excluded);
  out.push(...distrustLines(cmp).slice(0, 5));
  if (cmp.runs.length > 1) {
    out.push(intervalCoverage(cmp));
    const first = cmp.verdicts[0];
    if (first)
      out.push(`${cmp.verdicts.length} verdict${cmp.verdicts.length === 1 ? '' : 's'}; first: ${first.text}`);
  }
  return out;
}
