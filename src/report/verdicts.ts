// Verdicts and crossovers: turns per-level ratios with CIs into plain sentences with their numbers,
// most important first. Only usable levels (present in every run, not client-limited, not invalid) count.

import type { LevelKey } from '../metrics/summary.js';
import { formatChange, formatCi, formatPercent } from './format.js';
import { levelWords } from './levels.js';
import { METRICS } from './metric-catalog.js';
import { familyNote, familyRoles } from './metric-families.js';
import { type DifferenceStatus, judgeDifference } from './run-noise.js';
import type { Cell, Crossover, LevelRow, MetricId, Verdict } from './types.js';
import { hostNoiseAt, hostNoiseClause, isLatencyMetric, suspectClause } from './verdict-caveats.js';

/** A level's status for one metric; host-noise: a latency level a run measured under host timing noise. */
type Status = DifferenceStatus | 'host-noise';

/** Smallest relative change a verdict calls a difference: 2% (docs/verdicts.md). */
export const DEFAULT_MIN_EFFECT = 0.02;

interface Point {
  level: LevelKey;
  row: LevelRow;
  cell: Cell;
  status: Status;
}

const METRIC_PRIORITY: Partial<Record<MetricId, number>> = {
  output_throughput: 9,
  request_throughput: 8,
  ttft_p99: 7,
  tpot_p50: 6,
  ttft_p50: 5,
  e2e_p50: 4,
  tpot_p99: 3,
  e2e_p99: 2,
};

function pointsFor(
  rows: readonly LevelRow[],
  metric: MetricId,
  run: string,
  versus: string,
  minEffect: number,
): Point[] {
  const spec = METRICS[metric];
  const out: Point[] = [];
  for (const row of rows) {
    if (!row.usable) continue;
    const cell = row.cells[metric]?.find((c) => c.run === run);
    if (!cell || cell.value === null) continue;
    const status =
      isLatencyMetric(metric) && hostNoiseAt(row, [run, versus])
        ? 'host-noise'
        : judgeDifference(cell, spec.higherIsBetter, minEffect);
    out.push({ level: row.level, row, cell, status });
  }
  return out;
}

const evidence = (p: Point) =>
  `${formatChange(p.cell.ratio)} at ${p.level.value}${p.cell.ci ? `, ${formatCi(p.cell.ci)}` : ''}`;

const largest = (ps: Point[]) =>
  ps.reduce((best, p) =>
    Math.abs((p.cell.ratio ?? 1) - 1) > Math.abs((best.cell.ratio ?? 1) - 1) ? p : best,
  );

/** "1, 4 and 192": a list of level values the way a sentence names them. */
function valueList(ps: Point[]): string {
  const v = ps.map((p) => String(p.level.value));
  return v.length <= 1 ? v.join('') : `${v.slice(0, -1).join(', ')} and ${v[v.length - 1]}`;
}

/**
 * "every concurrency >= 8", "every concurrency <= 16", "every concurrency tested (1–64)",
 * "concurrency 2 and 8", or "concurrency 16, the only level compared".
 */
function where(selected: Point[], all: Point[]): string {
  const dim = all[0].level.kind === 'concurrency' ? 'concurrency' : 'rate';
  const unit = dim === 'rate' ? ' req/s' : '';
  const idx = selected.map((p) => all.indexOf(p));
  const contiguous = idx.every((v, i) => i === 0 || v === idx[i - 1] + 1);
  if (all.length === 1) return `${dim} ${all[0].level.value}${unit}, the only level compared`;
  if (selected.length === all.length)
    return `every ${dim} tested (${all[0].level.value}–${all[all.length - 1].level.value}${unit})`;
  if (contiguous && idx[idx.length - 1] === all.length - 1 && selected.length > 1)
    return `every ${dim} >= ${selected[0].level.value}${unit}`;
  if (contiguous && idx[0] === 0 && selected.length > 1)
    return `every ${dim} <= ${selected[selected.length - 1].level.value}${unit}`;
  return `${dim} ${valueList(selected)}${unit}`;
}

function adjective(metric: MetricId, better: boolean, noun = METRICS[metric].noun): string {
  const higher = better === METRICS[metric].higherIsBetter;
  return `${higher ? 'higher' : 'lower'} ${noun}`;
}

/** Crossovers of `run` against `versus`: where a significant advantage turns into a significant deficit. */
export function findCrossovers(
  rows: readonly LevelRow[],
  metric: MetricId,
  run: string,
  versus: string,
  minEffect = DEFAULT_MIN_EFFECT,
): Crossover[] {
  const pts = pointsFor(rows, metric, run, versus, minEffect).filter(
    (p) => p.status === 'better' || p.status === 'worse',
  );
  const out: Crossover[] = [];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    if (a.status === b.status) continue;
    const direction = a.status === 'better' ? 'better-to-worse' : 'worse-to-better';
    const spec = METRICS[metric];
    const text =
      `${run} ${a.status === 'better' ? 'stops beating' : 'starts beating'} ${versus} on ${spec.noun} between ` +
      `${levelWords(a.level)} (${evidence(a)}) and ${levelWords(b.level)} (${evidence(b)}).`;
    out.push({ run, versus, metric, from: a.level, to: b.level, direction, text });
  }
  return out;
}

/**
 * A split: better levels then worse ones (or the reverse), without its evidence: "X is faster than B
 * (output throughput) up to concurrency 4, slower from 16" or "X has lower p99 TTFT than B at …, higher at …".
 */
function splitSentence(
  metric: MetricId,
  run: string,
  baseline: string,
  pts: Point[],
  betterFirst: boolean,
): string {
  const noun = METRICS[metric].noun;
  const isThroughput = metric === 'output_throughput' || metric === 'request_throughput';
  const early = pts.filter((p) => p.status === (betterFirst ? 'better' : 'worse'));
  const late = pts.filter((p) => p.status === (betterFirst ? 'worse' : 'better'));
  const earlyWord = isThroughput ? (betterFirst ? 'faster' : 'slower') : adjective(metric, betterFirst, noun);
  const lateWord = isThroughput ? (betterFirst ? 'slower' : 'faster') : adjective(metric, !betterFirst, noun);
  // a clean split (early group is a prefix, late group the suffix) reads "up to X, … from Y"
  const isPrefix = early.every((p, i) => pts[i] === p);
  const isSuffix = late.every((p, i) => pts[pts.length - late.length + i] === p);
  const dim = pts[0].level.kind === 'concurrency' ? 'concurrency' : 'rate';
  const unit = dim === 'rate' ? ' req/s' : '';
  // a one-level prefix is the lowest level tested: "at concurrency 1", not "up to concurrency 1"
  const earlyWhere =
    isPrefix && isSuffix && early.length > 1
      ? `up to ${dim} ${early[early.length - 1].level.value}${unit}`
      : `at ${where(early, pts)}`;
  const lateWhere = isPrefix && isSuffix ? `from ${late[0].level.value}${unit}` : `at ${where(late, pts)}`;
  return (
    `${run} ${isThroughput ? 'is' : 'has'} ${earlyWord} than ${baseline}${isThroughput ? ` (${noun})` : ''} ` +
    `${earlyWhere}, ${lateWord} ${lateWhere}`
  );
}

/** "X and B: no meaningful difference in M (…)", with a note where a CI reaches beyond the band. */
function sameSentence(
  metric: MetricId,
  run: string,
  baseline: string,
  pts: Point[],
  minEffect: number,
): string {
  const p = largest(pts.filter((x) => x.status === 'same'));
  const band = `±${formatPercent(minEffect)}`;
  const wide = pts.filter(
    (x) => x.cell.ci && (x.cell.ci.low < 1 - minEffect || x.cell.ci.high > 1 + minEffect),
  );
  const wideNote = wide.length
    ? ` The CI reaches beyond ${band} at ${where(wide, pts)}: a difference of that size is not ruled out.`
    : '';
  return `${run} and ${baseline}: no meaningful difference in ${METRICS[metric].noun} (every level within ${band} or not significant; largest ${evidence(p)}).${wideNote}`;
}

/** One verdict per run and metric (or none when nothing can be said). */
export function verdictFor(
  rows: readonly LevelRow[],
  metric: MetricId,
  run: string,
  baseline: string,
  minEffect = DEFAULT_MIN_EFFECT,
  family?: { speaksFor: MetricId[]; because: string },
): Verdict | null {
  const spec = METRICS[metric];
  if (!spec.inVerdicts) return null;
  const noun = spec.noun;
  const also = family ? ` ${familyNote(family.speaksFor, family.because)}` : '';
  const tag = family ? { family: family.speaksFor } : {};
  const all = pointsFor(rows, metric, run, baseline, minEffect);
  if (all.length === 0) return null;
  const noisy = all.filter((p) => p.status === 'host-noise');
  const pts = all.filter((p) => p.status !== 'host-noise');
  const hostNote = hostNoiseClause(noisy.map((p) => p.row));
  if (pts.length === 0)
    return { run, metric, ...tag, weight: 1, text: `${run} vs ${baseline}, ${noun}: no verdict.${hostNote}` };
  const caveat = (ps: Point[]) =>
    `${suspectClause(
      ps.map((p) => p.row),
      [run, baseline],
    )}${hostNote}`;
  const priority = METRIC_PRIORITY[metric] ?? 1;
  const better = pts.filter((p) => p.status === 'better');
  const worse = pts.filter((p) => p.status === 'worse');
  const untested = pts.filter((p) => p.status === 'untested');
  const magnitude = (ps: Point[]) => (ps.length ? Math.abs((largest(ps).cell.ratio ?? 1) - 1) : 0);
  const weight = (significant: boolean, mag: number) =>
    (significant ? 1000 : 0) + priority * 100 + Math.min(99, mag * 100);

  if (better.length > 0 && worse.length > 0) {
    const [early, late] = pts.indexOf(better[0]) < pts.indexOf(worse[0]) ? [better, worse] : [worse, better];
    const text = `${splitSentence(metric, run, baseline, pts, early === better)} (${evidence(largest(early))}; ${evidence(largest(late))}).${caveat([...early, ...late])}${also}`;
    return { run, metric, ...tag, weight: weight(true, Math.max(magnitude(better), magnitude(worse))), text };
  }
  if (better.length > 0 || worse.length > 0) {
    const sig = better.length > 0 ? better : worse;
    const text = `${run} has ${adjective(metric, better.length > 0, noun)} than ${baseline} at ${where(sig, pts)} (${evidence(largest(sig))}).${caveat(sig)}${also}`;
    return { run, metric, ...tag, weight: weight(true, magnitude(sig)), text };
  }
  const unknown = pts.filter((p) => p.status === 'noise-unknown');
  if (unknown.length > 0) {
    const p = largest(unknown);
    const direction = adjective(
      metric,
      judgeDifference({ ...p.cell, runNoise: undefined }, spec.higherIsBetter, minEffect) === 'better',
      noun,
    );
    const text = `${run} vs ${baseline}: ${direction} (${evidence(p)} from request-to-request noise only), but run-to-run noise is unknown with one trial per run: no confident verdict (repeat with --trials 3, or give a run-to-run noise estimate).${caveat(unknown)}${also}`;
    return { run, metric, ...tag, weight: weight(false, magnitude(unknown)), text, noiseUnknown: true };
  }
  if (untested.length > 0) {
    const p = largest(untested);
    const text = `${run} vs ${baseline}, ${noun}: not tested for significance (no per-request data); largest difference ${formatChange(p.cell.ratio)} at ${levelWords(p.level)}.${also}`;
    return { run, metric, ...tag, weight: weight(false, magnitude(pts)) / 10, text };
  }
  const text = `${sameSentence(metric, run, baseline, pts, minEffect)}${hostNote}${also}`;
  return { run, metric, ...tag, weight: weight(false, 0) / 10, text };
}

export function buildVerdicts(
  rows: readonly LevelRow[],
  metrics: readonly MetricId[],
  runs: readonly string[],
  baseline: string,
  minEffect = DEFAULT_MIN_EFFECT,
) {
  const verdicts: Verdict[] = [];
  const crossovers: Crossover[] = [];
  for (const run of runs) {
    if (run === baseline) continue;
    // metrics that are one ratio by construction give one verdict, naming the family
    const roles = familyRoles(rows, metrics, run);
    for (const m of metrics) {
      if (!METRICS[m].inVerdicts) continue;
      const role = roles.get(m);
      if (role === null) continue;
      const v = verdictFor(rows, m, run, baseline, minEffect, role);
      if (v) verdicts.push(v);
      crossovers.push(...findCrossovers(rows, m, run, baseline, minEffect));
    }
  }
  verdicts.sort((a, b) => b.weight - a.weight);
  return { verdicts, crossovers };
}
