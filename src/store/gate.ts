// `benchgate gate RUN --against last|RUN_ID`: the regression gate for CI. The reference is the last run
// before RUN with the same config fingerprint and workload fingerprint that was not judged invalid (or the
// run named). Both are read from their directories and compared by the compare engine; each metric at each
// level is then judged against the noise a change must exceed (gate-checks.ts): the history of the same
// configuration, workload and host in the store, or both sides' repeated trials. Without either, a change
// is inconclusive, never a regression; so is one at a level suspect for host timing noise.
// Exit 0 pass, 1 regression, 2 nothing comparable, 4 inconclusive.

import { isBenchgateError } from '../core/errors.js';
import type { LevelSummary } from '../metrics/summary.js';
import { compareRuns } from '../report/compare.js';
import { levelLabel } from '../report/levels.js';
import type { Comparison, MetricId } from '../report/types.js';
import { DEFAULT_MIN_EFFECT } from '../report/verdicts.js';
import type { LoadedRun } from '../results/layout.js';
import { readRuns } from '../results/read-run.js';
import type { StoreDb } from './db.js';
import { type GateCheck, type GateEvidence, gateChecks, type HostNoise } from './gate-checks.js';
import { gateHistory, historyValues, levelValues } from './gate-history.js';
import { findRun, listRuns, type RunListRow } from './run-query.js';

export type { GateCheck } from './gate-checks.js';

/** What the gate judges unless --metric says otherwise: throughput and the median latencies. */
export const GATE_METRICS: MetricId[] = ['output_throughput', 'ttft_p50', 'tpot_p50', 'e2e_p50'];
/** Earlier runs of the same configuration, workload and host the history needs before it is the noise. */
export const DEFAULT_MIN_HISTORY = 5;
/** The latest earlier runs the history holds (older ones may predate a change of the host). */
export const DEFAULT_HISTORY_WINDOW = 20;
/** The gate's exit codes: 3 is taken by the results disk (README). */
export const GATE_EXIT = { pass: 0, regression: 1, incomparable: 2, inconclusive: 4 } as const;

export interface GateOptions {
  run: string;
  against: string;
  metrics?: MetricId[];
  minEffect?: number;
  /** Earlier runs needed before their spread is the noise (default DEFAULT_MIN_HISTORY). */
  minHistory?: number;
  /** At most this many of the latest earlier runs (default DEFAULT_HISTORY_WINDOW). */
  window?: number;
  iterations?: number;
  seed?: number;
  /** Resolves a relative directory argument. */
  cwd: string;
}

export type GateStatus = keyof typeof GATE_EXIT;

export interface GateResult {
  schema: 'benchgate.gate/2';
  status: GateStatus;
  exitCode: (typeof GATE_EXIT)[GateStatus];
  reason: string;
  run: { id: string; dir: string };
  reference: { id: string; dir: string } | null;
  minEffect: number;
  /** The earlier runs of the same configuration, workload and host the noise was judged from. */
  history: { runs: number; needed: number };
  checks: GateCheck[];
  verdicts: string[];
  validity: Comparison['validity'] | null;
}

type Base = Omit<GateResult, 'status' | 'exitCode' | 'reason'>;

const result = (base: Base, status: GateStatus, reason: string): GateResult => ({
  ...base,
  status,
  exitCode: GATE_EXIT[status],
  reason,
});

function bare(run: RunListRow, reference: RunListRow | null, o: Settings): Base {
  return {
    schema: 'benchgate.gate/2',
    run: { id: run.id, dir: run.dir },
    reference: reference ? { id: reference.id, dir: reference.dir } : null,
    minEffect: o.minEffect,
    history: { runs: 0, needed: o.minHistory },
    checks: [],
    verdicts: [],
    validity: null,
  };
}

interface Settings {
  minEffect: number;
  minHistory: number;
  window: number;
  metrics: MetricId[];
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

export async function runGate(db: StoreDb, o: GateOptions): Promise<GateResult> {
  const s: Settings = {
    minEffect: o.minEffect ?? DEFAULT_MIN_EFFECT,
    minHistory: o.minHistory ?? DEFAULT_MIN_HISTORY,
    window: o.window ?? DEFAULT_HISTORY_WINDOW,
    metrics: o.metrics?.length ? o.metrics : GATE_METRICS,
  };
  const run = await findRun(db, o.run, o.cwd);
  if (run.validity === 'invalid')
    return result(
      bare(run, null, s),
      'incomparable',
      `${run.id} is invalid, so it cannot be judged (\`benchgate runs --format json\` shows why).`,
    );
  const reference =
    o.against === 'last' ? await lastComparable(db, run) : await findRun(db, o.against, o.cwd);
  if (!reference)
    return result(
      bare(run, null, s),
      'incomparable',
      run.configFingerprint
        ? `No earlier run in the store has the configuration and workload of ${run.id} and was not invalid.`
        : `${run.id} has no verified configuration (no checkpoint ran), so no run can be called the same configuration.`,
    );
  if (reference.dir === run.dir)
    return result(bare(run, reference, s), 'incomparable', 'The run and the reference are the same run.');
  const loaded = await readRuns([reference.dir, run.dir]);
  let cmp: Comparison;
  try {
    cmp = compareRuns(loaded, {
      baseline: loaded[0].name,
      metrics: s.metrics,
      minEffect: s.minEffect,
      iterations: o.iterations,
      seed: o.seed,
    });
  } catch (e) {
    if (isBenchgateError(e)) return result(bare(run, reference, s), 'incomparable', e.message);
    throw e;
  }
  if (cmp.verdictsWithheld) return result(bare(run, reference, s), 'incomparable', cmp.verdictsWithheld);
  const { evidence, historyRuns } = await evidenceOf(db, run, reference, loaded, s);
  const base: Base = {
    ...bare(run, reference, s),
    history: { runs: historyRuns, needed: s.minHistory },
    checks: gateChecks(cmp, evidence),
    verdicts: cmp.verdicts.map((v) => v.text),
    validity: cmp.validity,
  };
  return judged(base, reference, s);
}

/** Trials, host-noise suspicion and each level's window, from the loaded runs and the store's validity. */
async function evidenceOf(
  db: StoreDb,
  run: RunListRow,
  reference: RunListRow,
  loaded: LoadedRun[],
  s: Settings,
): Promise<{ evidence: GateEvidence; historyRuns: number }> {
  const earlier = await gateHistory(db, run, s.window);
  const history: GateEvidence['history'] = new Map();
  for (const metric of s.metrics)
    history.set(metric, {
      earlier: await historyValues(db, earlier, metric),
      run: await levelValues(db, run.dir, metric),
    });
  const timeS = new Map<string, number>();
  for (const l of loaded[1].summary.levels)
    timeS.set(levelLabel(l.level), (timeS.get(levelLabel(l.level)) ?? 0) + l.windowS);
  const trials = loaded.every((r) => r.summary.levels.some((l) => (l.trial ?? 1) > 1));
  const evidence: GateEvidence = {
    runName: loaded[1].name,
    metrics: s.metrics,
    minEffect: s.minEffect,
    minHistory: s.minHistory,
    history,
    trials,
    hostNoise: await hostNoise(db, [reference.dir, run.dir]),
    timeS,
  };
  return { evidence, historyRuns: earlier.length };
}

/**
 * Per level label: the timing noise of either run, from the store's level rows (one per trial): the
 * stored validity's reason, and whether some side had every trial of the level delayed.
 */
async function hostNoise(db: StoreDb, dirs: string[]): Promise<Map<string, HostNoise>> {
  const rows = await db.all(
    'SELECT dir, label, validity_reasons, summary FROM levels WHERE dir IN (?, ?) ORDER BY level_index',
    dirs,
  );
  const reasons = new Map<string, string>();
  const trials = new Map<string, { all: number; delayed: number }>(); // per dir and label
  for (const r of rows) {
    const label = String(r.label);
    const stored = JSON.parse(String(r.validity_reasons ?? '[]')) as { check: string; text: string }[];
    const noise = stored.find((x) => x.check === 'timing-noise');
    if (noise && !reasons.has(label)) reasons.set(label, noise.text);
    const delayed = Boolean((JSON.parse(String(r.summary)) as LevelSummary).client?.timingNoise);
    const key = `${r.dir}\u0000${label}`;
    const t = trials.get(key) ?? { all: 0, delayed: 0 };
    trials.set(key, { all: t.all + 1, delayed: t.delayed + (delayed ? 1 : 0) });
  }
  const out = new Map<string, HostNoise>();
  for (const [label, reason] of reasons) {
    const sides = dirs.map((d) => trials.get(`${d}\u0000${label}`));
    out.set(label, { reason, everyTrial: sides.some((t) => !t || t.delayed >= t.all) });
  }
  return out;
}

/** The gate's status from its checks. */
function judged(base: Base, reference: RunListRow, s: Settings): GateResult {
  const count = (o: GateCheck['outcome']) => base.checks.filter((c) => c.outcome === o).length;
  const effect = `the minimum effect of ${(s.minEffect * 100).toFixed(1)}% and the run-to-run noise, against ${reference.id}`;
  const regressions = count('regression');
  if (regressions > 0) return result(base, 'regression', `${regressions} regression(s) beyond ${effect}.`);
  const open = count('inconclusive') + count('skipped');
  const judgedCount = base.checks.length - open;
  if (count('inconclusive') > 0 || judgedCount === 0) {
    const why = [...new Set(base.checks.map((c) => c.reason).filter((r) => r !== null))];
    return result(
      base,
      'inconclusive',
      `${open} of ${base.checks.length} checks could not be judged (${why.join('; ') || 'no level to judge'}).`,
    );
  }
  const skippedNote = open > 0 ? `; ${open} skipped` : '';
  return result(base, 'pass', `No regression beyond ${effect} (${judgedCount} checks${skippedNote}).`);
}
