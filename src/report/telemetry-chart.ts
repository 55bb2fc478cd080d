// A level's server telemetry as charts beside its latency, on one time axis (seconds since the level's
// first telemetry sample): the server's KV-cache usage and queue (running and waiting requests) from
// telemetry-level-NN.json, the client's TTFT (by send time) and chunk ITL (by chunk time) as p50/p99 per
// time bucket from the records, and GPU power and utilisation from gpu-level-NN.json when there are any.
// Buckets keep a long level's chart readable and the HTML small, whatever the request count.

import { percentilesInPlace } from '../metrics/percentile.js';
import { type RequestRecord, succeeded } from '../records/request-record.js';
import type { StoredGpuTelemetry } from '../results/layout.js';
import type { ChartPoint, ChartSpec } from './chart-svg.js';

/** The parts of telemetry-level-NN.json this chart reads (see docs/results-format.md). */
export interface LevelTelemetry {
  samples: { tMs: number; values: Record<string, number | null | undefined> }[];
}

/** At most this many latency buckets per level. */
const MAX_BUCKETS = 120;

const points = (t: LevelTelemetry, key: string, t0: number, scale = 1): ChartPoint[] =>
  t.samples
    .filter((s) => typeof s.values[key] === 'number')
    .map((s) => ({ x: (s.tMs - t0) / 1000, y: (s.values[key] as number) * scale }));

/** p-th percentile of the values in each time bucket, at the bucket's middle. */
function bucketed(
  pairs: { tMs: number; v: number }[],
  t0: number,
  bucketMs: number,
  p: number,
): ChartPoint[] {
  const buckets = new Map<number, number[]>();
  for (const { tMs, v } of pairs) {
    const b = Math.floor((tMs - t0) / bucketMs);
    const list = buckets.get(b) ?? [];
    list.push(v);
    buckets.set(b, list);
  }
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, vs]) => ({
      x: ((b + 0.5) * bucketMs) / 1000,
      y: percentilesInPlace(Float64Array.from(vs), [p])[0],
    }));
}

/** Power summed over GPUs and utilisation averaged over GPUs, per sampling instant (lines of one tick). */
function gpuPoints(g: StoredGpuTelemetry, t0: number): { power: ChartPoint[]; util: ChartPoint[] } {
  const ticks: { tMs: number; powerW: number; util: number[]; gpus: Set<number> }[] = [];
  for (const s of [...g.samples].sort((a, b) => a.tMs - b.tMs)) {
    let tick = ticks[ticks.length - 1];
    // a new tick when this GPU already has a line in the current one
    if (!tick || tick.gpus.has(s.gpu)) {
      tick = { tMs: s.tMs, powerW: 0, util: [], gpus: new Set() };
      ticks.push(tick);
    }
    tick.gpus.add(s.gpu);
    if (s.powerW !== null) tick.powerW += s.powerW;
    if (s.utilizationPct !== null) tick.util.push(s.utilizationPct);
  }
  return {
    power: ticks.map((k) => ({ x: (k.tMs - t0) / 1000, y: k.powerW })),
    util: ticks
      .filter((k) => k.util.length > 0)
      .map((k) => ({ x: (k.tMs - t0) / 1000, y: k.util.reduce((a, b) => a + b, 0) / k.util.length })),
  };
}

/**
 * The charts of one level of one run: server state, client latency and (with GPU samples) GPU power,
 * sharing one x axis. `idPrefix` keeps ids unique across runs; `label` names the level as the report's
 * headings do (c=16, rate 4/s), not by its index.
 */
export function telemetryChartSpecs(
  levelIndex: number,
  t: LevelTelemetry | null,
  records: RequestRecord[],
  gpu: StoredGpuTelemetry | null = null,
  idPrefix = '',
  label = `level ${levelIndex}`,
): ChartSpec[] {
  const measured = records.filter((r) => r.levelIndex === levelIndex && !r.warmup && succeeded(r));
  const gpuSamples = gpu?.available ? gpu.samples : [];
  const starts = [t?.samples[0]?.tMs, gpuSamples[0]?.tMs, ...measured.slice(0, 1).map((r) => r.sentMs)];
  const t0 = Math.min(...starts.filter((x): x is number => typeof x === 'number'));
  if (!Number.isFinite(t0)) return [];
  const ends = [
    t?.samples[t.samples.length - 1]?.tMs ?? t0,
    gpuSamples[gpuSamples.length - 1]?.tMs ?? t0,
    ...measured.map((r) => r.endMs),
  ];
  const spanMs = Math.max(...ends) - t0;
  const xRange: [number, number] = [0, spanMs / 1000];
  const bucketMs = Math.max(1000, Math.ceil(spanMs / MAX_BUCKETS / 1000) * 1000);
  const base = { xLabel: 'time in level (s)', logX: false, sortByX: true, xRange };
  const charts: ChartSpec[] = [];
  if (t) {
    charts.push({
      ...base,
      id: `${idPrefix}telemetry-${levelIndex}`,
      title: `${label}: server KV-cache usage and queue over time`,
      yLabel: 'requests / KV-cache usage (%)',
      series: [
        { name: 'KV-cache usage (%)', points: points(t, 'kvCacheUsage', t0, 100), colorIndex: 0 },
        { name: 'running requests', points: points(t, 'running', t0), colorIndex: 1 },
        { name: 'waiting requests', points: points(t, 'waiting', t0), colorIndex: 2, dashed: true },
      ].filter((s) => s.points.length > 0),
    });
  }
  const ttft = measured.flatMap((r) =>
    r.chunkMs.length > 0 ? [{ tMs: r.sentMs, v: r.chunkMs[0] - r.sentMs }] : [],
  );
  const itl = measured.flatMap((r) => r.chunkMs.slice(1).map((c, i) => ({ tMs: c, v: c - r.chunkMs[i] })));
  charts.push({
    ...base,
    id: `${idPrefix}telemetry-latency-${levelIndex}`,
    title: `${label}: client TTFT (by send time) and chunk ITL (by chunk time), per ${bucketMs / 1000} s`,
    yLabel: 'latency (ms)',
    series: [
      { name: 'TTFT p50 (ms)', points: bucketed(ttft, t0, bucketMs, 50), colorIndex: 3 },
      { name: 'TTFT p99 (ms)', points: bucketed(ttft, t0, bucketMs, 99), colorIndex: 3, dashed: true },
      { name: 'chunk ITL p50 (ms)', points: bucketed(itl, t0, bucketMs, 50), colorIndex: 4 },
      { name: 'chunk ITL p99 (ms)', points: bucketed(itl, t0, bucketMs, 99), colorIndex: 4, dashed: true },
    ].filter((s) => s.points.length > 0),
  });
  if (gpuSamples.length > 0) {
    const g = gpuPoints({ ...(gpu as StoredGpuTelemetry), samples: gpuSamples }, t0);
    charts.push({
      ...base,
      id: `${idPrefix}telemetry-gpu-${levelIndex}`,
      title: `${label}: GPU power (all GPUs) and utilisation (mean over GPUs)`,
      yLabel: 'W / utilisation (%)',
      series: [
        { name: 'power, all GPUs (W)', points: g.power, colorIndex: 5 },
        { name: 'utilisation (%)', points: g.util, colorIndex: 6, dashed: true },
      ].filter((s) => s.points.length > 0),
    });
  }
  return charts.filter((c) => c.series.length > 0);
}
