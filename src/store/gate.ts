// `benchgate gate RUN --against last|RUN_ID`: the regression gate for CI. The reference is the last run
// before RUN with the same config fingerprint and workload fingerprint that was not judged invalid (or the
// run named). Both are read from their directories and compared by the compare engine (bootstrap CIs,
// minimum effect, validity, workload check); a metric that is significantly worse by at least the minimum
// effect at a usable level is a regression. Exit 0 pass, 1 regression, 2 nothing comparable.

import { isBenchgateError } from '../core/errors.js';
import { compareRuns } from '../report/compare.js';
import { METRICS } from '../report/metric-catalog.js';
import type { Comparison, MetricId } from '../report/types.js';
import { DEFAULT_MIN_EFFECT } from '../report/verdicts.js';
import { readRuns } from '../results/read-run.js';
import type { StoreDb } from './db.js';
import { findRun, listRuns, type RunListRow } from './run-query.js';

/** What the gate judges unless --metric says otherwise: throughput and the median latencies. */
export const GATE_METRICS: MetricId[] = ['output_throughput', 'ttft_p50', 'tpot_p50', 'e2e_p50'];

export interface GateOptions {
  run: string;
  against: string;
  metrics?: MetricId[];
  minEffect?: number;
  iterations?: number;
  seed?: number;
  /** Resolves a relative directory argument. */
  cwd: string;
}

export interface GateCheck {
  metric: MetricId;
  level: string;
  /** run / reference; null when either value is missing. */
  ratio: number | null;
  ci: { low: number; high: number } | null;
  outcome: 'regression' | 'improvement' | 'no change' | 'untested';
  text: string;
}

export interface GateResult {
  schema: 'benchgate.gate/1';
  status: 'pass' | 'regression' | 'incomparable';
  exitCode: 0 | 1 | 2;
  reason: string;
  run: { id: string; dir: string };
  reference: { id: string; dir: string } | null;
  minEffect: number;
  checks: GateCheck[];
  verdicts: string[];
  validity: Comparison['validity'] | null;
}

function incomparable(
  run: RunListRow,
  reference: RunListRow | null,
  reason: string,
  minEffect: number,
): GateResult {
  const ref = reference ? { id: reference.id, dir: reference.dir } : null;
  return {
    schema: 'benchgate.gate/1',
    status: 'incomparable',
    exitCode: 2,
    reason,
    run: { id: run.id, dir: run.dir },
    reference: ref,
    minEffect,
    checks: [],
    verdicts: [],
    validity: null,
  };
}

/** The last earlier run of the same configuration and workload that was not judged invalid. */
export async function lastComparable(db: StoreDb, run: RunListRow): Promise<RunListRow | null> {
  if (!run.configFingerprint || !run.workloadFingerprint) return null;
  const same = await listRuns(db, {
    configFingerprint: run.configFingerprint,
    workloadFingerprint: run.workloadFingerprint,
    validity: ['valid', 'suspect'],
    status: 'finished',
  });
  const before = same.filter((r) => r.dir !== run.dir && (r.startedAt ?? '') <= (run.startedAt ?? ''));
  return before.length > 0 ? before[before.length - 1] : null;
}

/** The run's checks against the reference at every usable level, from the comparison's cells. */
function checksOf(
  cmp: Comparison,
  runName: string,
  metrics: readonly MetricId[],
  minEffect: number,
): GateCheck[] {
  const out: GateCheck[] = [];
  for (const row of cmp.levels.filter((r) => r.usable))
    for (const metric of metrics) {
      const cell = row.cells[metric]?.find((c) => c.run === runName);
      if (!cell || cell.value === null) continue;
      const spec = METRICS[metric];
      const change = cell.ratio === null ? null : cell.ratio - 1;
      let outcome: GateCheck['outcome'] = 'untested';
      if (change !== null && Math.abs(change) < minEffect) outcome = 'no change';
      else if (change !== null && cell.significant === false) outcome = 'no change';
      else if (change !== null && cell.significant)
        outcome = change > 0 === spec.higherIsBetter ? 'improvement' : 'regression';
      const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
      const ci = cell.ci ? `, 95% CI ${pct(cell.ci.low - 1)} to ${pct(cell.ci.high - 1)}` : ', no CI';
      const text = `${spec.label} at ${row.label}: ${change === null ? 'no value' : pct(change)}${change === null ? '' : ci} → ${outcome}`;
      out.push({ metric, level: row.label, ratio: cell.ratio, ci: cell.ci, outcome, text });
    }
  return out;
}

export async function runGate(db: StoreDb, o: GateOptions): Promise<GateResult> {
  const minEffect = o.minEffect ?? DEFAULT_MIN_EFFECT;
  const metrics = o.metrics?.length ? o.metrics : GATE_METRICS;
  const run = await findRun(db, o.run, o.cwd);
  if (run.validity === 'invalid')
    return incomparable(
      run,
      null,
      `${run.id} is invalid, so it cannot be judged (\`benchgate runs --format json\` shows why).`,
      minEffect,
    );
  const reference =
    o.against === 'last' ? await lastComparable(db, run) : await findRun(db, o.against, o.cwd);
  if (!reference)
    return incomparable(
      run,
      null,
      run.configFingerprint
        ? `No earlier run in the store has the configuration and workload of ${run.id} and was not invalid.`
        : `${run.id} has no verified configuration (no checkpoint ran), so no run can be called the same configuration.`,
      minEffect,
    );
  if (reference.dir === run.dir)
    return incomparable(run, reference, 'The run and the reference are the same run.', minEffect);
  const loaded = await readRuns([reference.dir, run.dir]);
  let cmp: Comparison;
  try {
    cmp = compareRuns(loaded, {
      baseline: loaded[0].name,
      metrics,
      minEffect,
      iterations: o.iterations,
      seed: o.seed,
    });
  } catch (e) {
    if (isBenchgateError(e)) return incomparable(run, reference, e.message, minEffect);
    throw e;
  }
  if (cmp.verdictsWithheld) return incomparable(run, reference, cmp.verdictsWithheld, minEffect);
  return judged(cmp, run, reference, checksOf(cmp, loaded[1].name, metrics, minEffect), minEffect);
}

/** The gate's verdict from the checks of a comparison that could be drawn. */
function judged(
  cmp: Comparison,
  run: RunListRow,
  reference: RunListRow,
  checks: GateCheck[],
  minEffect: number,
): GateResult {
  const base = {
    schema: 'benchgate.gate/1' as const,
    run: { id: run.id, dir: run.dir },
    reference: { id: reference.id, dir: reference.dir },
    minEffect,
    checks,
    verdicts: cmp.verdicts.map((v) => v.text),
    validity: cmp.validity,
  };
  const effect = `the minimum effect of ${(minEffect * 100).toFixed(1)}% against ${reference.id}`;
  if (checks.length === 0) {
    const why = cmp.levels.map((l) => {
      const reasons = Object.values(l.flags)
        .flat()
        .map((f) => f.reason);
      return `${l.label}: ${reasons.join('; ') || 'no value'}`;
    });
    return {
      ...base,
      status: 'incomparable',
      exitCode: 2,
      reason: `No level could be judged (${why.join('; ')}).`,
    };
  }
  const regressions = checks.filter((c) => c.outcome === 'regression').length;
  if (regressions > 0)
    return {
      ...base,
      status: 'regression',
      exitCode: 1,
      reason: `${regressions} regression(s) beyond ${effect}.`,
    };
  return {
    ...base,
    status: 'pass',
    exitCode: 0,
    reason: `No regression beyond ${effect} (${checks.length} checks).`,
  };
}
