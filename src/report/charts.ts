// The report's chart set, built from a Comparison's series: throughput, TTFT p50/p99, TPOT, the
// throughput-latency trade-off and acceptance length, each against the load level. A percentile is
// drawn only where its sample count supports it (metrics/tail-samples.ts), as the tables show it.

import { minSamplesFor, supportedPercentile } from '../metrics/tail-samples.js';
import type { ChartSeries, ChartSpec } from './chart-svg.js';
import type { Comparison } from './types.js';

type Point = Comparison['series'][number]['points'][number];

function levelAxis(cmp: Comparison): string {
  const kinds = new Set(cmp.series.flatMap((s) => s.points.map((p) => p.level.kind)));
  return kinds.size === 1 && kinds.has('rate') ? 'Offered rate (req/s)' : 'Concurrency (requests in flight)';
}

function series(
  cmp: Comparison,
  pick: (p: Point) => number | null | undefined,
  suffix = '',
  dashed = false,
): ChartSeries[] {
  return cmp.series.map((s, i) => ({
    name: `${s.run}${suffix}`,
    colorIndex: i,
    dashed,
    points: s.points
      .map((p) => ({
        x: p.level.value,
        y: pick(p) ?? Number.NaN,
        flagged: p.flags.length > 0,
        note: p.flags.join(', ') || undefined,
      }))
      .filter((p) => Number.isFinite(p.y)),
  }));
}

/** TTFT p50 and p99; p99 points only where ≥662 samples support them, and the title says when some are left out. */
function ttftChart(cmp: Comparison, x: string): ChartSpec {
  const p99 = series(cmp, (p) => supportedPercentile(p.summary.ttftMs, 99), ' p99', true);
  const levels = cmp.series.reduce((n, s) => n + s.points.filter((p) => p.summary.ttftMs).length, 0);
  const drawn = p99.reduce((n, s) => n + s.points.length, 0);
  const note =
    drawn === levels
      ? ''
      : drawn === 0
        ? ` (no p99: no level has the ${minSamplesFor(99)} samples it needs)`
        : ` (p99 only where ≥${minSamplesFor(99)} samples support it)`;
  return {
    id: 'ttft',
    title: `TTFT p50 (solid) and p99 (dashed) vs load${note}`,
    xLabel: x,
    yLabel: 'Time to first token (ms)',
    series: [
      ...series(cmp, (p) => supportedPercentile(p.summary.ttftMs, 50), ' p50'),
      ...p99.filter((s) => s.points.length > 0),
    ],
  };
}

export function chartSpecs(cmp: Comparison): ChartSpec[] {
  const x = levelAxis(cmp);
  const specs: ChartSpec[] = [
    {
      id: 'output-throughput',
      title: 'Output throughput vs load',
      xLabel: x,
      yLabel: 'Output tokens/s',
      series: series(cmp, (p) => p.summary.throughput.outputTokensPerS),
    },
    ttftChart(cmp, x),
    {
      id: 'tpot',
      title: 'TPOT p50 vs load',
      xLabel: x,
      yLabel: 'Time per output token (ms)',
      series: series(cmp, (p) => supportedPercentile(p.summary.tpotMs, 50)),
    },
    {
      id: 'tradeoff',
      title: 'Throughput–latency trade-off (points in level order)',
      xLabel: 'TPOT p50 (ms)',
      yLabel: 'Output tokens/s',
      logX: false,
      sortByX: false,
      series: cmp.series.map((s, i) => ({
        name: s.run,
        colorIndex: i,
        points: s.points
          .map((p) => ({
            x: supportedPercentile(p.summary.tpotMs, 50) ?? Number.NaN,
            y: p.summary.throughput.outputTokensPerS,
            flagged: p.flags.length > 0,
            note: `level ${p.level.value}`,
          }))
          .filter((p) => Number.isFinite(p.x)),
      })),
    },
  ];
  const acc = series(cmp, (p) => p.summary.speculative?.acceptanceLength);
  const reported = acc.some((s) => s.points.length > 0);
  specs.push({
    id: 'acceptance-length',
    title: `Speculative acceptance length vs load${reported ? '' : ' (no run reports it)'}`,
    xLabel: x,
    yLabel: 'Accepted tokens per verify step',
    series: acc,
  });
  return specs;
}
