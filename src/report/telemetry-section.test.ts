import { describe, expect, it } from 'vitest';
import type { LoadedRun } from '../results/layout.js';
import {
  type TelemetryRow,
  telemetryMarkdownLines,
  telemetryRows,
  telemetryTextLines,
} from './telemetry-section.js';
import { buildRun, specs } from './test-support.js';

const row = (label: string, energyNote: string | null): TelemetryRow => ({
  run: 'base',
  levelIndex: 0,
  label,
  server: null,
  gpu: null,
  energyPerTokenJ: energyNote === null ? 0.5 : null,
  energyNote,
  line: `base level ${label}: …`,
  charts: [],
});

describe('telemetry lines', () => {
  it('says why energy per token is unknown once per reason, not on every level', () => {
    const noSmi = 'nvidia-smi could not be started on local';
    const lines = telemetryTextLines([row('c=1', noSmi), row('c=16', noSmi)]);
    expect(lines.filter((l) => l.includes(noSmi))).toEqual([
      `  energy per token unknown at every level: ${noSmi}`,
    ]);
  });

  it('names the levels a reason applies to when it is not all of them', () => {
    const md = telemetryMarkdownLines([row('c=1', null), row('c=16', 'no GPU samples')], (s) => s);
    expect(md).toContain('- energy per token unknown at base c=16: no GPU samples');
  });
});

describe('telemetry figures carry their sample counts', () => {
  const run = (samples: { kv: number; waiting: number }[]): LoadedRun => {
    const { manifest, summary, records } = buildRun({
      name: 'base',
      levels: [{ concurrency: 1, specs: specs(20, { e2eMs: 100, ttftMs: 10 }) }],
    });
    const server = {
      intervalMs: 1000,
      sources: {},
      samples: samples.map((s, i) => ({
        tMs: i * 1000,
        values: { kvCacheUsage: s.kv, waiting: s.waiting, running: 1 },
      })),
      failedScrapes: 0,
    };
    return {
      name: 'base',
      dir: '/x',
      manifest,
      summary,
      records,
      warnings: [],
      telemetry: { 0: { server, gpu: null } },
    };
  };

  it('shows peaks and means with how many scrapes stand behind them', () => {
    const [r] = telemetryRows([run([0.1, 0.3, 0.2].map((kv) => ({ kv, waiting: 0 })))]);
    expect(r.line).toContain(
      'KV-cache peak 30.0%, mean 20.0%; queue (waiting) peak 0; running peak 1 (3 scrapes, 0 failed)',
    );
  });

  it('gives no confident zero from a single scrape', () => {
    const [r] = telemetryRows([run([{ kv: 0, waiting: 0 }])]);
    expect(r.line).toContain('only 1 /metrics scrape (≥3 needed to summarise KV cache and queue)');
    expect(r.line).not.toMatch(/peak 0/);
  });
});
