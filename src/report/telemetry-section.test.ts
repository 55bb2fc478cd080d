import { describe, expect, it } from 'vitest';
import { type TelemetryRow, telemetryMarkdownLines, telemetryTextLines } from './telemetry-section.js';

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
