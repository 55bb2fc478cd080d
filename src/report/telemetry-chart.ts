// A level's server telemetry as charts beside its latency: KV-cache usage and queue length (running
// and waiting requests) over time from telemetry-level-NN.json, and each request's TTFT at its send
// time on the same time axis. A separate section so the report renderers only add one call.

import { type RequestRecord, succeeded } from '../records/request-record.js';
import type { ChartSpec } from './chart-svg.js';

/** The parts of telemetry-level-NN.json this chart reads (see docs/results-format.md). */
export interface LevelTelemetry {
  samples: { tMs: number; values: Record<string, number | null | undefined> }[];
}

const points = (t: LevelTelemetry, key: string, t0: number, scale = 1) =>
  t.samples
    .filter((s) => typeof s.values[key] === 'number')
    .map((s) => ({ x: (s.tMs - t0) / 1000, y: (s.values[key] as number) * scale }));

/** Two charts for one level: server state over time, and client TTFT over the same seconds. */
export function telemetryChartSpecs(
  levelIndex: number,
  t: LevelTelemetry,
  records: RequestRecord[],
): ChartSpec[] {
  const t0 = t.samples[0]?.tMs ?? 0;
  const measured = records.filter((r) => r.levelIndex === levelIndex && !r.warmup && succeeded(r));
  const state: ChartSpec = {
    id: `telemetry-${levelIndex}`,
    title: `Level ${levelIndex}: server KV-cache usage and queue over time`,
    xLabel: 'time in level (s)',
    yLabel: 'requests / KV-cache usage (%)',
    logX: false,
    sortByX: true,
    series: [
      { name: 'KV-cache usage (%)', points: points(t, 'kvCacheUsage', t0, 100), colorIndex: 0 },
      { name: 'running requests', points: points(t, 'running', t0), colorIndex: 1 },
      { name: 'waiting requests', points: points(t, 'waiting', t0), colorIndex: 2, dashed: true },
    ].filter((s) => s.points.length > 0),
  };
  const latency: ChartSpec = {
    id: `telemetry-ttft-${levelIndex}`,
    title: `Level ${levelIndex}: TTFT of each request at its send time`,
    xLabel: 'time in level (s)',
    yLabel: 'TTFT (ms)',
    logX: false,
    sortByX: true,
    series: [
      {
        name: 'TTFT (ms)',
        colorIndex: 3,
        points: measured
          .filter((r) => r.chunkMs.length > 0)
          .map((r) => ({ x: (r.sentMs - t0) / 1000, y: r.chunkMs[0] - r.sentMs })),
      },
    ],
  };
  return [state, latency].filter((c) => c.series.length > 0);
}
