// compareRuns: the whole comparison as data. Aligns levels across runs, computes each run's value,
// its ratio to the baseline with a seeded 95% bootstrap CI from per-request data, then comparability,
// crossovers and verdicts. Pure: no I/O; renderers turn the result into text, Markdown, JSON, CSV, HTML.

import { BenchgateError } from '../core/errors.js';
import { bootstrapRatioByIndex } from '../metrics/bootstrap.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Validity, ValidityReason } from '../metrics/validity.js';
import type { LoadedRun } from '../results/layout.js';
import { diffConfigs } from './comparability.js';
import { compareLevelKeys, levelId, levelLabel } from './levels.js';
import { losslessRows } from './lossless-section.js';
import { DEFAULT_METRICS, METRICS, tailNote } from './metric-catalog.js';
import { type RequestValues, requestValues } from './request-values.js';
import { sloSearchSection } from './slo-search-model.js';
import { steadyRows } from './steady-model.js';
import { telemetryRows } from './telemetry-section.js';
import type { Cell, Comparison, Crossover, LevelFlag, LevelRow, MetricId } from './types.js';
import { judgeComparison, judgeRun, type RunValidity, type SkippedConfig } from './validity.js';
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
}

/** Why a level leaves the verdicts: client-limited, or invalid (its own reasons, or its run's). */
function levelFlags(l: LevelSummary, v: Validity | undefined, run: RunValidity | undefined) {
  const out: { flag: LevelFlag; reason: string }[] = [];
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

/** Per-request values of each level of a run, keyed by level index. */
function valuesByLevel(run: LoadedRun): Map<number, RequestValues[]> {
  const m = new Map<number, RequestValues[]>();
  for (const r of run.records) {
    const v = requestValues(r);
    if (!v) continue;
    const list = m.get(r.levelIndex) ?? [];
    m.set(r.levelIndex, list);
    list.push(v);
  }
  return m;
}

export function compareRuns(runs: readonly LoadedRun[], opts: CompareOptions = {}): Comparison {
  if (runs.length === 0)
    throw new BenchgateError('BG_E_USAGE', 'compare expects at least one run directory; found none.');
  const names = runs.map((r) => r.name);
  const baselineName = opts.baseline ?? names[0];
  const baseline = runs.find((r) => r.name === baselineName);
  if (!baseline) {
    throw new BenchgateError(
      'BG_E_USAGE',
      `--baseline expects one of the run names (${names.join(', ')}); found "${baselineName}".`,
    );
  }
  const metrics = opts.metrics && opts.metrics.length > 0 ? opts.metrics : DEFAULT_METRICS;
  const iterations = opts.iterations ?? 2000;
  const seed = opts.seed ?? 1;

  // level id -> per run level summary
  const byLevel = new Map<string, Map<string, LevelSummary>>();
  for (const run of runs) {
    for (const l of run.summary.levels) {
      const id = levelId(l.level);
      const m = byLevel.get(id) ?? new Map<string, LevelSummary>();
      byLevel.set(id, m);
      m.set(run.name, l);
    }
  }
  const common = [...byLevel.values()].filter((m) => m.size === runs.length);
  // SLO searches probe loads of their own: their found loads are compared even when no probe is shared
  const allSearches = runs.every((r) => r.sloSearch?.kind === 'value');
  if (runs.length > 1 && common.length === 0 && !allSearches) {
    const have = runs.map(
      (r) => `${r.name} has ${r.summary.levels.map((l) => levelLabel(l.level)).join(', ') || 'no levels'}`,
    );
    throw new BenchgateError('BG_E_RUN_DIR', `The runs share no load level to compare: ${have.join('; ')}.`);
  }

  const values = new Map(runs.map((r) => [r.name, valuesByLevel(r)]));
  const ordered = [...byLevel.values()].sort((a, b) =>
    compareLevelKeys([...a.values()][0].level, [...b.values()][0].level),
  );
  /** One run's cell at one level for one metric, against a reference run (the baseline, or another run). */
  const cellVs = (m: MetricId, perRun: Map<string, LevelSummary>, ref: LoadedRun, run: LoadedRun): Cell => {
    const spec = METRICS[m];
    const refLevel = perRun.get(ref.name);
    const l = perRun.get(run.name);
    const withheld = l ? tailNote(spec, l) : null;
    const value = l && !withheld ? spec.value(l) : null;
    const refValue = refLevel && !tailNote(spec, refLevel) ? spec.value(refLevel) : null;
    const n = l ? l.requests.completed : 0;
    if (run === ref || !l || !refLevel || value === null || refValue === null || refValue === 0) {
      return {
        run: run.name,
        value,
        ratio: null,
        ci: null,
        significant: null,
        n,
        ...(withheld ? { withheld } : {}),
      };
    }
    const refValues = values.get(ref.name)?.get(refLevel.levelIndex) ?? [];
    const own = values.get(run.name)?.get(l.levelIndex) ?? [];
    const statA = spec.statistic(refLevel, refValues);
    const statB = spec.statistic(l, own);
    const res =
      statA && statB
        ? bootstrapRatioByIndex(refValues.length, own.length, statA, statB, {
            iterations,
            seed: cellSeed(seed, levelId(l.level), m, run.name, ref === baseline ? '' : ref.name),
          })
        : null;
    return {
      run: run.name,
      value,
      ratio: value / refValue,
      ci: res ? { low: res.low, high: res.high } : null,
      significant: res ? res.significant : null,
      n,
    };
  };

  const runValidity = new Map(runs.map((r) => [r.name, judgeRun(r, (l) => levelId(l.level))]));
  const levels: LevelRow[] = ordered.map((perRun) => {
    const key = [...perRun.values()][0].level;
    const flags: LevelRow['flags'] = {};
    const validity: LevelRow['validity'] = {};
    for (const run of runs) {
      const l = perRun.get(run.name);
      const rv = runValidity.get(run.name);
      const v = rv?.levels[levelId(key)];
      if (v) validity[run.name] = { status: v.status, reasons: v.reasons };
      flags[run.name] = l
        ? levelFlags(l, v, rv)
        : [{ flag: 'missing', reason: 'level not measured in this run' }];
    }
    const usable = Object.values(flags).every((f) => f.length === 0);
    const cells = {} as Record<MetricId, Cell[]>;
    for (const m of metrics) cells[m] = runs.map((run) => cellVs(m, perRun, baseline, run));
    return { level: key, label: levelLabel(key), flags, usable, validity, cells };
  });

  // crossovers between every pair of non-baseline runs, on the headline metric only
  const pairCrossovers: Crossover[] = [];
  const headline = metrics.find((m) => METRICS[m].inVerdicts);
  const others = runs.filter((r) => r !== baseline);
  if (headline) {
    for (let i = 0; i < others.length; i++) {
      for (let j = i + 1; j < others.length; j++) {
        const [ref, run] = [others[i], others[j]];
        const rows = ordered.map((perRun, k) => ({
          ...levels[k],
          cells: { [headline]: [cellVs(headline, perRun, ref, run)] } as Record<MetricId, Cell[]>,
        }));
        pairCrossovers.push(...findCrossovers(rows, headline, run.name, ref.name));
      }
    }
  }

  const { differences, warnings, workloadDifferences } = diffConfigs(
    baseline,
    runs.filter((r) => r !== baseline),
  );
  const minEffect = opts.minEffect ?? DEFAULT_MIN_EFFECT;
  const withheld = workloadDifferences.length > 0 && !opts.allowDifferentWorkloads;
  const built = buildVerdicts(levels, metrics, names, baseline.name, minEffect);
  const verdicts = withheld ? [] : built.verdicts;
  const crossovers = withheld ? [] : [...built.crossovers, ...pairCrossovers];
  const verdictsWithheld = withheld
    ? `No verdicts: the runs measured different workloads (${workloadDifferences.join('; ')}). Pass --allow-different-workloads, or declare the keys in the plan's varies, if the difference is the point.`
    : null;
  const extra: ValidityReason[] = warnings.map((w) => ({
    severity: 'suspect',
    check: 'comparability',
    text: `Not apples to apples: ${w}`,
  }));
  if (verdictsWithheld) extra.unshift({ severity: 'invalid', check: 'workload', text: verdictsWithheld });
  else if (workloadDifferences.length > 0)
    extra.unshift({
      severity: 'note',
      check: 'workload',
      text: `Different workloads compared on purpose (--allow-different-workloads): ${workloadDifferences.join('; ')}.`,
    });

  return {
    schema: 'benchgate.compare/1',
    validity: judgeComparison([...runValidity.values()], opts.skipped ?? [], extra),
    minEffect,
    verdictsWithheld,
    baseline: baseline.name,
    runs: runs.map((r) => ({
      name: r.name,
      dir: r.dir,
      source: r.manifest?.source?.tool ?? 'benchgate',
      engine: r.manifest?.verifiedTarget?.engine ?? null,
      model: r.manifest?.verifiedTarget?.model ?? null,
      warnings: r.warnings,
    })),
    metrics,
    levels,
    configDiff: differences,
    comparabilityWarnings: warnings,
    crossovers,
    verdicts,
    bootstrap: { iterations, seed, confidence: 0.95 },
    steadyState: steadyRows(runs),
    findings: runs.flatMap((r) =>
      (r.manifest?.checkpoint?.findings ?? []).map((f) => ({
        run: r.name,
        id: f.id,
        title: f.title,
        status: f.status,
        expected: f.expected,
        found: f.found,
      })),
    ),
    series: runs.map((r) => ({
      run: r.name,
      points: [...r.summary.levels]
        .sort((a, b) => compareLevelKeys(a.level, b.level))
        .map((l) => {
          const rv = runValidity.get(r.name);
          const flags = levelFlags(l, rv?.levels[levelId(l.level)], rv).map((f) => f.flag);
          return { level: l.level, summary: l, flags };
        }),
    })),
    lossless: losslessRows(runs),
    telemetry: telemetryRows(runs),
    sloSearch: sloSearchSection(runs, baseline.name),
  };
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
