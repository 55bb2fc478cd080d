// The Pareto view of a matrix: every level of every config as a point, per-user output speed (x, 1000 /
// median TPOT) against output throughput per GPU (y), and the frontier: the points no other point beats on
// both. Invalid levels are shown hollow and never make the frontier; each point links to its run.

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
  onFrontier: boolean;
}

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
    `SELECT r.id, r.name, r.gpus, r.validity AS run_validity, l.label, l.validity, l.output_tokens_per_s, l.tpot_p50_ms
     FROM runs r JOIN levels l ON l.dir = r.dir WHERE r.matrix_dir = ? AND l.tpot_p50_ms > 0
     ORDER BY r.name, l.value`,
    [matrixDir],
  );
  const points = rows.map((r): ParetoPoint => {
    const gpus = Number(r.gpus) > 0 ? Number(r.gpus) : 1;
    const validity = [r.run_validity, r.validity].includes('invalid')
      ? 'invalid'
      : [r.run_validity, r.validity].includes('suspect')
        ? 'suspect'
        : 'valid';
    return {
      runId: String(r.id),
      name: String(r.name),
      label: String(r.label),
      perUserTokS: 1000 / Number(r.tpot_p50_ms),
      perGpuTokS: Number(r.output_tokens_per_s) / gpus,
      gpus,
      validity,
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
