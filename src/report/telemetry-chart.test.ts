import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../records/request-record.js';
import { renderChartSvg } from './chart-svg.js';
import { labelWithUnit } from './format.js';
import { telemetryChartSpecs } from './telemetry-chart.js';

const rec = (over: Partial<RequestRecord>): RequestRecord =>
  ({
    v: 1,
    id: 0,
    levelIndex: 0,
    warmup: false,
    scheduledMs: 0,
    sentMs: 0,
    headersMs: 1,
    chunkMs: [],
    chunkTokens: [],
    chunkTokenSource: 'server-per-chunk',
    firstContentMs: null,
    endMs: 0,
    inputTokensServer: null,
    inputTokensClient: null,
    outputTokensServer: null,
    outputTokensClient: null,
    requestedOutputTokens: 1,
    specVerifySteps: null,
    finishReason: 'length',
    httpStatus: 200,
    error: null,
    ...over,
  }) as RequestRecord;

describe('telemetry charts', () => {
  it('plot KV-cache usage and the queue over time, and latency percentiles per bucket on the same time axis', () => {
    const specs = telemetryChartSpecs(
      0,
      {
        samples: [
          { tMs: 1000, values: { kvCacheUsage: 0.1, running: 2, waiting: 0 } },
          { tMs: 2000, values: { kvCacheUsage: 0.5, running: 8, waiting: 3 } },
          { tMs: 3000, values: { kvCacheUsage: 0.2, running: 1, waiting: 0 } },
        ],
      },
      [
        rec({ sentMs: 1500, chunkMs: [1540, 1560, 1600], endMs: 1600 }),
        rec({ sentMs: 1600, chunkMs: [1700], warmup: true }),
        rec({ sentMs: 2100, chunkMs: [2400], endMs: 2400 }),
      ],
    );
    expect(specs.map((s) => s.id)).toEqual(['telemetry-0', 'telemetry-latency-0']);
    expect(specs[0].series.find((s) => s.name.startsWith('KV'))?.points).toEqual([
      { x: 0, y: 10 },
      { x: 1, y: 50 },
      { x: 2, y: 20 },
    ]);
    expect(specs[0].series.find((s) => s.name === 'waiting requests')?.points.map((p) => p.y)).toEqual([
      0, 3, 0,
    ]);
    // 1 s buckets from the first sample: the request sent at 0.5 s (TTFT 40) and the one at 1.1 s (TTFT 300)
    const ttft = specs[1].series.find((s) => s.name === 'TTFT p50 (ms)')?.points;
    expect(ttft).toEqual([
      { x: 0.5, y: 40 },
      { x: 1.5, y: 300 },
    ]);
    expect(specs[1].series.find((s) => s.name === 'chunk ITL p50 (ms)')?.points).toEqual([{ x: 0.5, y: 30 }]);
    expect(specs.every((s) => s.xRange?.[0] === 0 && s.xRange?.[1] === 2)).toBe(true);
    expect(renderChartSvg(specs[0])).toContain('<svg');
  });

  it('add a GPU power chart (summed over GPUs per sampling instant) when nvidia-smi samples exist', () => {
    const gpu = {
      available: true,
      reason: null,
      host: 'local',
      intervalMs: 1000,
      unreadableLines: 0,
      samples: [0, 1000].flatMap((t) =>
        [0, 1].map((g) => ({
          tMs: 1000 + t + g,
          gpu: g,
          utilizationPct: 50 + g * 10,
          memoryUsedMiB: 100,
          powerW: 200 + g * 100,
          smClockMHz: 1000,
          graphicsClockMHz: 1000,
        })),
      ),
    };
    const specs = telemetryChartSpecs(0, { samples: [{ tMs: 1000, values: { running: 1 } }] }, [], gpu);
    const power = specs.find((s) => s.id === 'telemetry-gpu-0');
    expect(power?.series[0].points).toEqual([
      { x: 0, y: 500 },
      { x: 1, y: 500 },
    ]);
    expect(power?.series[1].points.map((p) => p.y)).toEqual([55, 55]);
  });

  it('name the level as the report headings do, not by its index', () => {
    const specs = telemetryChartSpecs(
      2,
      { samples: [{ tMs: 1000, values: { running: 1 } }] },
      [],
      null,
      '',
      'c=16',
    );
    expect(specs.map((c) => c.title.split(':')[0])).toEqual(['c=16']);
  });
});

describe('chart titles', () => {
  it('wrap inside the chart instead of overflowing it, and push the plot down', () => {
    const long = 'TTFT p50 (solid) and p99 (dashed) vs load (no p99: no level has the 662 samples it needs)';
    const svg = renderChartSvg({
      id: 't',
      title: long,
      xLabel: 'x',
      yLabel: 'y',
      width: 560,
      series: [{ name: 'a', points: [{ x: 1, y: 1 }] }],
    });
    const lines = [...svg.matchAll(/<text [^>]*font-weight="bold"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(' ')).toBe(long);
    for (const l of lines) expect(l.length * 10).toBeLessThanOrEqual(560 - 24);
  });

  it('say a unit once: a label that already carries it gets no bracket', () => {
    expect(labelWithUnit('Output tok/s', 'tok/s')).toBe('Output tok/s');
    expect(labelWithUnit('TTFT p50', 'ms')).toBe('TTFT p50 (ms)');
  });
});
