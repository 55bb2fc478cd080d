import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../records/request-record.js';
import { renderChartSvg } from './chart-svg.js';
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
  it('plot KV-cache usage and the queue over time, and TTFT on the same time axis', () => {
    const specs = telemetryChartSpecs(
      0,
      {
        samples: [
          { tMs: 1000, values: { kvCacheUsage: 0.1, running: 2, waiting: 0 } },
          { tMs: 2000, values: { kvCacheUsage: 0.5, running: 8, waiting: 3 } },
        ],
      },
      [rec({ sentMs: 1500, chunkMs: [1540] }), rec({ sentMs: 1600, chunkMs: [1700], warmup: true })],
    );
    expect(specs.map((s) => s.id)).toEqual(['telemetry-0', 'telemetry-ttft-0']);
    expect(specs[0].series.find((s) => s.name.startsWith('KV'))?.points).toEqual([
      { x: 0, y: 10 },
      { x: 1, y: 50 },
    ]);
    expect(specs[0].series.find((s) => s.name === 'waiting requests')?.points.map((p) => p.y)).toEqual([
      0, 3,
    ]);
    expect(specs[1].series[0].points).toEqual([{ x: 0.5, y: 40 }]);
    expect(renderChartSvg(specs[0])).toContain('<svg');
  });
});
