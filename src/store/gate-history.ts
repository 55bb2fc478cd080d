// The history a gate judges a run against: the earlier runs in the store with the run's configuration
// fingerprint, workload fingerprint and host (finished, not judged invalid, at most `window` of the
// latest), and one metric's value per run and level read from the stored level summaries (a run with
// repeated trials gives the geometric mean of its trials, so each run weighs once). A percentile the tail
// rule withholds gives no value.

import type { LevelSummary } from '../metrics/summary.js';
import { METRICS, tailNote } from '../report/metric-catalog.js';
import type { MetricId } from '../report/types.js';
import type { StoreDb } from './db.js';
import type { RunListRow } from './run-query.js';

/** Earlier runs of the same configuration, workload and host, oldest first, the latest `window` of them. */
export async function gateHistory(db: StoreDb, run: RunListRow, window: number): Promise<string[]> {
  if (!run.configFingerprint || !run.workloadFingerprint) return [];
  const rows = await db.all(
    `SELECT dir FROM runs
     WHERE config_fingerprint = ? AND workload_fingerprint = ?
       AND coalesce(host, '') = coalesce((SELECT host FROM runs WHERE dir = ?), '')
       AND status = 'finished' AND validity IN ('valid', 'suspect') AND dir <> ?
       AND coalesce(started_at, '') <= ?
     ORDER BY started_at NULLS FIRST, id`,
    [run.configFingerprint, run.workloadFingerprint, run.dir, run.dir, run.startedAt ?? ''],
  );
  return rows.slice(-window).map((r) => String(r.dir));
}

/** Per level label: one run's value of `metric` (geometric mean over its trials); withheld values left out. */
export async function levelValues(db: StoreDb, dir: string, metric: MetricId): Promise<Map<string, number>> {
  const spec = METRICS[metric];
  const rows = await db.all('SELECT label, summary FROM levels WHERE dir = ? ORDER BY level_index', [dir]);
  const logs = new Map<string, number[]>();
  for (const r of rows) {
    const level = JSON.parse(String(r.summary)) as LevelSummary;
    const value = tailNote(spec, level) ? null : spec.value(level);
    if (value === null || !(value > 0)) continue;
    const label = String(r.label);
    logs.set(label, [...(logs.get(label) ?? []), Math.log(value)]);
  }
  const out = new Map<string, number>();
  for (const [label, xs] of logs) out.set(label, Math.exp(xs.reduce((a, b) => a + b, 0) / xs.length));
  return out;
}

/** Per level label: the history's values of `metric`, one per earlier run that has the level. */
export async function historyValues(
  db: StoreDb,
  dirs: readonly string[],
  metric: MetricId,
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const dir of dirs)
    for (const [label, v] of await levelValues(db, dir, metric))
      out.set(label, [...(out.get(label) ?? []), v]);
  return out;
}
