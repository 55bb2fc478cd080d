// The history chart: one metric of the matching runs over time, one colour per load level, each point with
// its 95% bootstrap interval, invalid levels hollow. Used by `benchgate history --chart` and the dashboard.

import { labelWithUnit } from '../report/format.js';
import { METRICS } from '../report/metric-catalog.js';
import type { MetricId } from '../report/types.js';
import type { HistoryPoint } from '../store/history.js';
import { type PlotSeries, renderPointChart } from './point-chart.js';

export function historyChartSvg(
  metric: MetricId,
  points: readonly HistoryPoint[],
  opts: { title?: string; href?: (p: HistoryPoint) => string } = {},
): string {
  const spec = METRICS[metric];
  const byLevel = new Map<string, PlotSeries>();
  for (const p of points) {
    if (p.value === null || p.startedAt === null) continue;
    const s = byLevel.get(p.label) ?? { name: p.label, points: [], line: true };
    byLevel.set(p.label, s);
    s.points.push({
      x: Date.parse(p.startedAt),
      y: p.value,
      low: p.ci?.low,
      high: p.ci?.high,
      hollow: p.validity === 'invalid',
      href: opts.href?.(p),
      note: `${p.runId}, ${p.label}, ${p.validity}${p.ci ? `, 95% CI ${p.ci.low.toFixed(2)}–${p.ci.high.toFixed(2)}` : ''}`,
    });
  }
  return renderPointChart({
    id: `history-${metric}`,
    title: opts.title ?? `${spec.label} over time`,
    xLabel: 'run start (UTC)',
    yLabel: labelWithUnit(spec.label, spec.unit),
    xKind: 'time',
    series: [...byLevel.values()],
  });
}
