// Run-to-run noise from the results store: for each run being compared, the spread of its level
// figures over the earlier runs of the same configuration, workload and host (their config and
// workload fingerprints and plan host), not invalid, leaving out the runs being compared. This is what
// lets `compare` give a verdict between one-trial runs (report/run-noise.ts); a run without such history
// gets no estimate, and its comparison says run-to-run noise is unknown.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { levelId } from '../report/levels.js';
import type { RunNoise, RunNoiseEstimate } from '../report/run-noise.js';
import type { MetricId } from '../report/types.js';
import type { StoreDb } from './db.js';
import { openStoreReadOnly, type StoreLocation } from './store.js';

/** The store's per-level columns that are compare metrics. */
const COLUMN_METRIC: Record<string, MetricId> = {
  requests_per_s: 'request_throughput',
  output_tokens_per_s: 'output_throughput',
  total_tokens_per_s: 'total_throughput',
  ttft_p50_ms: 'ttft_p50',
  ttft_p99_ms: 'ttft_p99',
  tpot_p50_ms: 'tpot_p50',
  tpot_p99_ms: 'tpot_p99',
  token_itl_p50_ms: 'token_itl_p50',
  e2e_p50_ms: 'e2e_p50',
  e2e_p99_ms: 'e2e_p99',
  goodput_requests_per_s: 'goodput',
  acceptance_length: 'acceptance_length',
  energy_per_token_j: 'energy_per_token',
};

/** The fewest earlier measurements of a level whose spread counts (two degrees of freedom). */
export const MIN_STORE_NOISE_RUNS = 3;

/** Sample standard deviation of ln(x) over the positive finite values; null with fewer than the minimum. */
function logSd(values: readonly unknown[]): number | null {
  const logs = values
    .map(Number)
    .filter((v) => Number.isFinite(v) && v > 0)
    .map(Math.log);
  if (logs.length < MIN_STORE_NOISE_RUNS) return null;
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  return Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
}

/** One compared run's estimate from its history, or null when the store has too little of it. */
async function estimateFor(
  db: StoreDb,
  dir: string,
  exclude: readonly string[],
): Promise<RunNoiseEstimate | null> {
  const [run] = await db.all(
    'SELECT config_fingerprint, workload_fingerprint, host FROM runs WHERE dir = ?',
    [dir],
  );
  if (!run?.config_fingerprint || !run.workload_fingerprint) return null;
  const cols = Object.keys(COLUMN_METRIC);
  const rows = await db.all(
    `SELECT l.dir, l.kind, l.value, l.max_concurrency, ${cols.map((c) => `l.${c}`).join(', ')}
     FROM levels l JOIN runs r ON r.dir = l.dir
     WHERE r.config_fingerprint = ? AND r.workload_fingerprint = ? AND r.host IS NOT DISTINCT FROM ?
       AND r.validity <> 'invalid' AND l.validity IS DISTINCT FROM 'invalid' AND NOT l.client_limited
       AND r.dir NOT IN (${exclude.map(() => '?').join(', ')})`,
    [
      String(run.config_fingerprint),
      String(run.workload_fingerprint),
      run.host === null ? null : String(run.host),
      ...exclude,
    ],
  );
  const byLevel = new Map<string, typeof rows>();
  for (const r of rows) {
    const mc = r.max_concurrency === null ? undefined : Number(r.max_concurrency);
    const id = levelId({
      kind: r.kind as 'concurrency' | 'rate',
      value: Number(r.value),
      maxConcurrency: mc,
    });
    byLevel.set(id, [...(byLevel.get(id) ?? []), r]);
  }
  const perLevel: RunNoiseEstimate['perLevel'] = {};
  let fewest = Number.POSITIVE_INFINITY;
  for (const [id, list] of byLevel) {
    if (list.length < MIN_STORE_NOISE_RUNS) continue;
    const sds: Partial<Record<MetricId, number>> = {};
    for (const c of cols) {
      const sd = logSd(list.map((r) => r[c]));
      if (sd !== null) sds[COLUMN_METRIC[c]] = sd;
    }
    perLevel[id] = sds;
    fewest = Math.min(fewest, list.length);
  }
  if (!Number.isFinite(fewest)) return null;
  const runs = new Set(rows.map((r) => r.dir)).size;
  return {
    source: `${runs} earlier run${runs === 1 ? '' : 's'} of the same config, workload and host in the results store`,
    runs: fewest,
    logSd: {},
    perLevel,
  };
}

/** Estimates for the compared run directories that have enough history in the store. */
export async function runNoiseFromStore(
  db: StoreDb,
  runs: readonly { name: string; dir: string }[],
): Promise<RunNoise> {
  const exclude = runs.map((r) => r.dir);
  const byRun: Record<string, RunNoiseEstimate> = {};
  for (const r of runs) {
    const est = await estimateFor(db, r.dir, exclude);
    if (est) byRun[r.name] = est;
  }
  return { byRun };
}

/**
 * The estimates `compare` uses: from the store at `loc` when its file exists (never created for this),
 * for runs that ran one trial. A store that cannot be opened is a note, and the noise stays unknown.
 */
export async function runNoiseForCompare(
  runs: readonly { name: string; dir: string; summary: { levels: { trial?: number }[] } }[],
  loc: StoreLocation,
  note: (line: string) => void,
): Promise<RunNoise> {
  const oneTrial = runs.some((r) => r.summary.levels.every((l) => l.trial === undefined));
  if (runs.length < 2 || !oneTrial || !existsSync(loc.path)) return {};
  let db: StoreDb | null = null;
  try {
    db = await openStoreReadOnly(loc, note);
    return await runNoiseFromStore(
      db,
      runs.map((r) => ({ name: r.name, dir: resolve(r.dir) })),
    );
  } catch (e) {
    note(
      `benchgate: run-to-run noise unknown: the results store ${loc.path} could not be read (${(e as Error).message.split('\n')[0]}).`,
    );
    return {};
  } finally {
    db?.close();
  }
}
