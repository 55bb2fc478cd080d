// `benchgate history METRIC`: one metric of the matching runs over time, per level, each value with its 95%
// bootstrap interval from the run's own request records (the store's requests table), drawn with the same
// metric definitions and per-request statistics compare uses (report/metric-catalog.ts). Each level's
// series (values that are not withheld, of levels not invalid) is searched for change points
// (change-points.ts); the first point after a change carries it.

import { BenchgateError } from '../core/errors.js';
import { bootstrapRatioByIndex } from '../metrics/bootstrap.js';
import type { LevelKey, LevelSummary } from '../metrics/summary.js';
import { levelLabel } from '../report/levels.js';
import { METRICS, tailNote } from '../report/metric-catalog.js';
import type { RequestValues } from '../report/request-values.js';
import type { MetricId } from '../report/types.js';
import { runOwnStatus } from '../results/run-validity.js';
import { changePoints } from './change-points.js';
import type { Row, StoreDb } from './db.js';
import { filterSql, type RunFilter } from './run-query.js';

export interface HistoryPoint {
  runId: string;
  dir: string;
  name: string;
  startedAt: string | null;
  level: LevelKey;
  label: string;
  value: number | null;
  ci: { low: number; high: number } | null;
  /** Measured requests behind the value. */
  n: number;
  /** The level's own validity (the run's own reasons, a failed checkpoint or lossless check, when worse). */
  validity: 'valid' | 'suspect' | 'invalid';
  /** Why the value is withheld (too few samples for the percentile), when it is. */
  withheld: string | null;
  /** Set on the first point after a change point of the level's series: its size (after / before). */
  changePoint: { shift: number } | null;
}

export interface HistoryOptions {
  metric: MetricId;
  filter: RunFilter;
  level?: LevelKey;
  iterations?: number;
  seed?: number;
}

/** `c=64`, `concurrency=64`, `rate=4`, `r=4` or `4/s`, naming the flag on error. */
export function parseLevel(text: string, flag = '--level'): LevelKey {
  const t = text.trim();
  const m = /^(c|concurrency|r|rate)\s*=\s*([0-9.]+)$/i.exec(t) ?? /^([0-9.]+)\s*\/s$/.exec(t);
  const value = Number(m?.[2] ?? m?.[1]);
  if (!m || !(value > 0))
    throw new BenchgateError(
      'BG_E_USAGE',
      `${flag} expects c=N (concurrency) or rate=N (requests/s); found "${text}".`,
    );
  const kind = m.length === 3 && /^c/i.test(m[1]) ? 'concurrency' : 'rate';
  return { kind, value };
}

const worst = (a: string, b: string) =>
  a === 'invalid' || b === 'invalid' ? 'invalid' : a === 'suspect' || b === 'suspect' ? 'suspect' : 'valid';

/** The run's own status from its stored reasons, without its summary of the levels (each level has its own). */
function runOwn(reasons: unknown): string {
  try {
    const r = JSON.parse(String(reasons ?? '[]'));
    return Array.isArray(r) ? runOwnStatus(r) : 'valid';
  } catch {
    return 'valid';
  }
}

function valuesOf(rows: readonly Row[]): RequestValues[] {
  return rows.map((r) => ({
    ttftMs: Number(r.ttft_ms),
    ttftContentMs: (r.ttft_content_ms as number) ?? null,
    e2eInclQueueMs: (r.e2e_incl_queue_ms as number) ?? null,
    inputTokens: Number(r.input_tokens),
    e2eMs: Number(r.e2e_ms),
    tpotMs: (r.tpot_ms as number) ?? null,
    outputTokens: Number(r.output_tokens),
    specVerifySteps: (r.spec_verify_steps as number) ?? null,
  }));
}

/** The requests the metric statistics resample: measured, successful, with a token (as requestValues). */
const VALUES_SQL = `SELECT ttft_ms, ttft_content_ms, e2e_incl_queue_ms, input_tokens, e2e_ms, tpot_ms, output_tokens,
  spec_verify_steps FROM requests WHERE dir = ? AND level_index = ? AND error_code IS NULL
  AND ttft_ms IS NOT NULL AND e2e_ms IS NOT NULL ORDER BY id`;

/**
 * The 95% percentile-bootstrap interval of one level's statistic. The project's one bootstrap resamples
 * ratios of two samples; against a one-element constant sample (statistic 1) the ratio is the statistic.
 */
async function intervalOf(
  db: StoreDb,
  dir: string,
  level: LevelSummary,
  metric: MetricId,
  opts: { iterations: number; seed: number },
): Promise<{ low: number; high: number } | null> {
  const values = valuesOf(await db.all(VALUES_SQL, [dir, level.levelIndex]));
  const stat = METRICS[metric].statistic(level, values);
  if (!stat || values.length < 2) return null;
  const res = bootstrapRatioByIndex(1, values.length, () => 1, stat, opts);
  return res ? { low: res.low, high: res.high } : null;
}

export async function metricHistory(db: StoreDb, o: HistoryOptions): Promise<HistoryPoint[]> {
  const spec = METRICS[o.metric];
  const { sql, params } = filterSql(o.filter);
  const levelSql = o.level ? ' AND l.kind = ? AND l.value = ?' : '';
  const rows = await db.all(
    `SELECT r.id, r.dir, r.name, r.started_at, r.validity_reasons AS run_reasons, l.validity, l.summary
     FROM runs r JOIN levels l ON l.dir = r.dir
     WHERE r.dir IN (SELECT dir FROM runs WHERE ${sql})${levelSql}
     ORDER BY r.started_at NULLS FIRST, r.id, l.kind, l.value`,
    [...params, ...(o.level ? [o.level.kind, o.level.value] : [])],
  );
  const out: HistoryPoint[] = [];
  for (const r of rows) {
    const level = JSON.parse(String(r.summary)) as LevelSummary;
    const withheld = tailNote(spec, level);
    const value = withheld ? null : spec.value(level);
    const ci =
      value === null
        ? null
        : await intervalOf(db, String(r.dir), level, o.metric, {
            iterations: o.iterations ?? 1000,
            seed: o.seed ?? 1,
          });
    out.push({
      runId: String(r.id),
      dir: String(r.dir),
      name: String(r.name),
      startedAt: (r.started_at as string) ?? null,
      level: level.level,
      label: levelLabel(level.level),
      value,
      ci,
      n: level.requests.completed,
      validity: worst(runOwn(r.run_reasons), String(r.validity ?? 'valid')) as HistoryPoint['validity'],
      withheld,
      changePoint: null,
    });
  }
  markChangePoints(out);
  return out;
}

/** Marks the change points of each level's series of judged values (in time order). */
export function markChangePoints(points: HistoryPoint[]): void {
  const byLevel = new Map<string, HistoryPoint[]>();
  for (const p of points)
    if (p.value !== null && p.value > 0 && p.validity !== 'invalid')
      byLevel.set(p.label, [...(byLevel.get(p.label) ?? []), p]);
  for (const series of byLevel.values())
    for (const c of changePoints(series.map((p) => p.value as number)))
      series[c.index].changePoint = { shift: c.shift };
}
