// compareRuns: the whole comparison as data. Aligns levels across runs (trials pooled), computes each
// run's value, its ratio to the baseline with a seeded 95% bootstrap CI from per-request data (trials,
// then requests within them, when a run repeated its levels), then comparability, crossovers, verdicts and
// the one-screen summary. Pure: no I/O; renderers turn the result into text, Markdown, JSON, CSV, HTML.

import { BenchgateError } from '../core/errors.js';
import type { ValidityReason } from '../metrics/validity.js';
import type { LoadedRun } from '../results/layout.js';
import { validityOf } from '../results/run-validity.js';
import { cacheRows } from './cache-section.js';
import type { CellOptions } from './cells.js';
import { cellFor } from './cells.js';
import { diffConfigs } from './comparability.js';
import { type AlignedRow, alignLevels, trialsOf } from './level-alignment.js';
import { buildLevelRows, chartSeries } from './level-rows.js';
import { losslessRows } from './lossless-section.js';
import { DEFAULT_METRICS, METRICS } from './metric-catalog.js';
import type { RunNoise } from './run-noise.js';
import { sloSearchSection } from './slo-search-model.js';
import { steadyRows } from './steady-model.js';
import { summaryLines } from './summary-model.js';
import { telemetryRows } from './telemetry-section.js';
import type { Cell, Comparison, Crossover, LevelRow, MetricId } from './types.js';
import { judgeComparison, type SkippedConfig } from './validity.js';
import { buildVerdicts, DEFAULT_MIN_EFFECT, findCrossovers } from './verdicts.js';

export interface CompareOptions {
  /** Run name to compare against; default: the first run. */
  baseline?: string;
  metrics?: MetricId[];
  /** Bootstrap resamples per (level, metric, run); default 2000. */
  iterations?: number;
  seed?: number;
  /** Smallest relative change called a difference; default 0.02 (2%). */
  minEffect?: number;
  /** Draw verdicts even when the workloads differ (the difference is the point). */
  allowDifferentWorkloads?: boolean;
  /** Matrix configurations that produced no run, shown in the validity section with why. */
  skipped?: SkippedConfig[];
  /** Keys declared as varied on the command line (`compare --varies`), beside the plans' `varies`. */
  varies?: string[];
  /**
   * Run-to-run spreads measured by the caller (the store's earlier runs, or calibrate): without one, a
   * change between one-trial runs is stated but is no confident verdict (run-noise.ts).
   */
  runNoise?: RunNoise;
}

function baselineOf(runs: readonly LoadedRun[], wanted: string | undefined): LoadedRun {
  if (runs.length === 0)
    throw new BenchgateError('BG_E_USAGE', 'compare expects at least one run directory; found none.');
  const names = runs.map((r) => r.name);
  const name = wanted ?? names[0];
  const baseline = runs.find((r) => r.name === name);
  if (!baseline)
    throw new BenchgateError(
      'BG_E_USAGE',
      `--baseline expects one of the run names (${names.join(', ')}); found "${name}".`,
    );
  return baseline;
}

/** Crossovers between every pair of non-baseline runs, on the headline metric only. */
function pairCrossovers(
  aligned: readonly AlignedRow[],
  levels: readonly LevelRow[],
  others: readonly string[],
  metrics: readonly MetricId[],
  cells: CellOptions,
): Crossover[] {
  const headline = metrics.find((m) => METRICS[m].inVerdicts);
  if (!headline) return [];
  const out: Crossover[] = [];
  for (let i = 0; i < others.length; i++)
    for (let j = i + 1; j < others.length; j++) {
      const [ref, run] = [others[i], others[j]];
      const rows = aligned.map((a, k) => ({
        ...levels[k],
        cells: { [headline]: [cellFor(headline, a, ref, run, cells)] } as Record<MetricId, Cell[]>,
      }));
      out.push(...findCrossovers(rows, headline, run, ref));
    }
  return out;
}

/** Comparability of the runs: whether verdicts may be drawn, and the reasons it adds to the validity. */
function comparability(
  baseline: LoadedRun,
  runs: readonly LoadedRun[],
  allowDifferent: boolean,
  varies: readonly string[] = [],
) {
  const { differences, warnings, workloadDifferences } = diffConfigs(
    baseline,
    runs.filter((r) => r !== baseline),
    varies,
  );
  const withheld =
    workloadDifferences.length > 0 && !allowDifferent
      ? `No verdicts: the runs measured different workloads (${workloadDifferences.join('; ')}). Pass --allow-different-workloads, or declare the keys in the plan's varies (or compare --varies), if the difference is the point.`
      : null;
  const reasons: ValidityReason[] = warnings.map((w) => ({
    severity: 'suspect',
    check: 'comparability',
    text: `Not apples to apples: ${w}`,
  }));
  if (withheld) reasons.unshift({ severity: 'invalid', check: 'workload', text: withheld });
  else if (workloadDifferences.length > 0)
    reasons.unshift({
      severity: 'note',
      check: 'workload',
      text: `Different workloads compared on purpose (--allow-different-workloads): ${workloadDifferences.join('; ')}.`,
    });
  return { differences, warnings, withheld, reasons };
}

function runsOf(runs: readonly LoadedRun[], aligned: readonly AlignedRow[]): Comparison['runs'] {
  return runs.map((r) => ({
    name: r.name,
    dir: r.dir,
    source: r.manifest?.source?.tool ?? 'benchgate',
    engine: r.manifest?.verifiedTarget?.engine ?? null,
    model: r.manifest?.verifiedTarget?.model ?? null,
    warnings: r.warnings,
    trials: trialsOf(aligned, r.name),
  }));
}

function findingsOf(runs: readonly LoadedRun[]): Comparison['findings'] {
  return runs.flatMap((r) =>
    (r.manifest?.checkpoint?.findings ?? []).map((f) => ({
      run: r.name,
      id: f.id,
      title: f.title,
      status: f.status,
      expected: f.expected,
      found: f.found,
    })),
  );
}

/** How the comparison's intervals were resampled: paired rounds only when every trial cell was paired. */
function resamplingOf(
  levels: readonly LevelRow[],
  runs: Comparison['runs'],
): Comparison['bootstrap']['resamples'] {
  if (!runs.some((r) => r.trials > 1)) return 'requests';
  const kinds = new Set(
    levels.flatMap((l) => Object.values(l.cells).flatMap((cs) => cs.map((c) => c.resampling))),
  );
  return kinds.has('paired-rounds') && !kinds.has('trials-then-requests')
    ? 'paired-rounds'
    : 'trials-then-requests';
}

export function compareRuns(runs: readonly LoadedRun[], opts: CompareOptions = {}): Comparison {
  const baseline = baselineOf(runs, opts.baseline);
  const names = runs.map((r) => r.name);
  const metrics = opts.metrics && opts.metrics.length > 0 ? opts.metrics : DEFAULT_METRICS;
  const cells: CellOptions = {
    iterations: opts.iterations ?? 2000,
    seed: opts.seed ?? 1,
    baseline: baseline.name,
    runNoise: opts.runNoise,
  };
  const aligned = alignLevels(runs);
  const runValidity = new Map(runs.map((r) => [r.name, validityOf(r)]));
  const levels = buildLevelRows(aligned, names, runValidity, metrics, cells);
  const minEffect = opts.minEffect ?? DEFAULT_MIN_EFFECT;
  const fit = comparability(baseline, runs, opts.allowDifferentWorkloads === true, opts.varies);
  const built = buildVerdicts(levels, metrics, names, baseline.name, minEffect);
  const others = names.filter((n) => n !== baseline.name);
  const runList = runsOf(runs, aligned);
  const cmp: Comparison = {
    schema: 'benchgate.compare/1',
    validity: judgeComparison([...runValidity.values()], opts.skipped ?? [], fit.reasons),
    summary: [],
    minEffect,
    verdictsWithheld: fit.withheld,
    baseline: baseline.name,
    runs: runList,
    metrics,
    levels,
    configDiff: fit.differences,
    comparabilityWarnings: fit.warnings,
    crossovers: fit.withheld
      ? []
      : [...built.crossovers, ...pairCrossovers(aligned, levels, others, metrics, cells)],
    verdicts: fit.withheld ? [] : built.verdicts,
    bootstrap: {
      iterations: cells.iterations,
      seed: cells.seed,
      confidence: 0.95,
      resamples: resamplingOf(levels, runList),
    },
    steadyState: steadyRows(runs),
    findings: findingsOf(runs),
    series: chartSeries(aligned, names, levels),
    // a config left out for its lossless check still shows its divergences (prompt, both continuations)
    lossless: losslessRows([...runs, ...(opts.skipped ?? []).filter((s) => s.lossless)]),
    telemetry: telemetryRows(runs),
    sloSearch: sloSearchSection(runs, baseline.name),
    cache: cacheRows(runs),
  };
  cmp.summary = summaryLines(cmp);
  return cmp;
}
