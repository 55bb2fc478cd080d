// The Pareto view of a matrix: every level of every config as a point, per-user output speed (x, 1000 /
// median TPOT) against output throughput per GPU (y), and the frontier: the points no other point beats on
// both. Every point carries its level's label; invalid levels (by the run's stored judgement: its own
// reasons, a failed lossless check included, and the level's) are shown hollow and struck through with
// the reason and never make the frontier; configs of the matrix with no point are listed with why.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidityReason } from '../metrics/validity.js';
import { runOwnStatus } from '../results/run-validity.js';
import type { StoreDb } from '../store/db.js';
import { type PlotSeries, renderPointChart } from './point-chart.js';

export interface ParetoPoint {
  runId: string;
  name: string;
  label: string;
  perUserTokS: number;
  perGpuTokS: number;
  gpus: number;
  validity: 'valid' | 'suspect' | 'invalid';
  /** Why the point is not valid (the run's own reasons, then the level's), null when it is. */
  reason: string | null;
  onFrontier: boolean;
}

/** A config of the matrix with no point on the chart (failed, cancelled, no level), with why. */
export interface AbsentConfig {
  name: string;
  status: string;
  reason: string;
}

const reasonsOf = (v: unknown): ValidityReason[] => {
  try {
    const r = JSON.parse(String(v ?? '[]'));
    return Array.isArray(r) ? r : [];
  } catch {
    return [];
  }
};
const RANK = { valid: 0, suspect: 1, invalid: 2 } as const;

/** Marks the points on the frontier (maximising both axes); invalid points are never on it. */
export function markFrontier(points: ParetoPoint[]): ParetoPoint[] {
  const eligible = points.filter((p) => p.validity !== 'invalid');
  for (const p of points)
    p.onFrontier =
      p.validity !== 'invalid' &&
      !eligible.some(
        (q) =>
          q !== p &&
          q.perUserTokS >= p.perUserTokS &&
          q.perGpuTokS >= p.perGpuTokS &&
          (q.perUserTokS > p.perUserTokS || q.perGpuTokS > p.perGpuTokS),
      );
  return points;
}

export async function paretoPoints(db: StoreDb, matrixDir: string): Promise<ParetoPoint[]> {
  const rows = await db.all(
    `SELECT r.id, r.name, r.gpus, r.validity_reasons AS run_reasons, l.label, l.validity, l.validity_reasons,
       l.output_tokens_per_s, l.tpot_p50_ms
     FROM runs r JOIN levels l ON l.dir = r.dir WHERE r.matrix_dir = ? AND l.tpot_p50_ms > 0
     ORDER BY r.name, l.value`,
    [matrixDir],
  );
  const points = rows.map((r): ParetoPoint => {
    const gpus = Number(r.gpus) > 0 ? Number(r.gpus) : 1;
    // the run's own reasons (checkpoint, lossless), not its summary of the levels, plus the level's
    const own = reasonsOf(r.run_reasons).filter((x) => x.check !== 'levels');
    const level = String(r.validity ?? 'valid') as ParetoPoint['validity'];
    const ownStatus = runOwnStatus(own);
    const validity = RANK[ownStatus] > RANK[level] ? ownStatus : level;
    const why = [...own, ...reasonsOf(r.validity_reasons)].filter((x) => x.severity !== 'note');
    return {
      runId: String(r.id),
      name: String(r.name),
      label: String(r.label),
      perUserTokS: 1000 / Number(r.tpot_p50_ms),
      perGpuTokS: Number(r.output_tokens_per_s) / gpus,
      gpus,
      validity,
      reason: validity === 'valid' ? null : why.map((x) => x.text).join(' ') || validity,
      onFrontier: false,
    };
  });
  return markFrontier(points);
}

export function paretoChartSvg(points: readonly ParetoPoint[]): string {
  const byConfig = new Map<string, PlotSeries>();
  for (const p of points) {
    const s = byConfig.get(p.name) ?? { name: p.name, points: [], line: true };
    byConfig.set(p.name, s);
    s.points.push({
      x: p.perUserTokS,
      y: p.perGpuTokS,
      hollow: p.validity === 'invalid',
      ring: p.onFrontier,
      href: `/run?id=${encodeURIComponent(p.runId)}`,
      label: p.label,
      note: `${p.label}, ${p.perUserTokS.toFixed(1)} tok/s/user, ${p.validity}${p.onFrontier ? ', on the frontier' : ''}`,
    });
  }
  const frontier = points
    .filter((p) => p.onFrontier)
    .sort((a, b) => a.perUserTokS - b.perUserTokS)
    .map((p) => ({ x: p.perUserTokS, y: p.perGpuTokS }));
  return renderPointChart({
    id: 'pareto',
    title: 'Throughput per GPU vs per-user speed',
    xLabel: 'output tokens/s per user (1000 / median TPOT)',
    yLabel: 'output tokens/s per GPU',
    xKind: 'linear',
    series: [...byConfig.values()],
    frontier,
  });
}

/**
 * The matrix's configs that have no point (matrix-state.json beside the configs): a failed config is
 * named with its failure, never silently missing from the view.
 */
export function absentConfigs(matrixDir: string, points: readonly ParetoPoint[]): AbsentConfig[] {
  let state: { configs?: Record<string, { status?: string; failure?: { message?: string } | null }> };
  try {
    state = JSON.parse(readFileSync(join(matrixDir, 'matrix-state.json'), 'utf8'));
  } catch {
    return [];
  }
  const shown = new Set(points.map((p) => p.name));
  return Object.entries(state.configs ?? {})
    .filter(([name]) => !shown.has(name))
    .map(([name, c]) => ({
      name,
      status: String(c.status ?? 'unknown'),
      reason: c.failure?.message ?? 'no measured level in the store',
    }));
}
