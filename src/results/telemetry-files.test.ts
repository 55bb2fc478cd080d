import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTelemetryFiles } from './telemetry-files.js';

const server = {
  intervalMs: 1000,
  sources: { running: 'vllm:num_requests_running' },
  failedScrapes: 0,
  samples: [{ tMs: 5, values: { running: 2 } }],
};
const gpu = {
  available: true,
  reason: null,
  host: 'local',
  intervalMs: 1000,
  unreadableLines: 0,
  samples: [{ tMs: 5, gpu: 0, powerW: 100 }],
};

describe('reading a run’s telemetry files', () => {
  it('loads each level’s server and GPU files by level index; a level without files has none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-tel-'));
    writeFileSync(join(dir, 'telemetry-level-00.json'), JSON.stringify(server));
    writeFileSync(join(dir, 'gpu-level-00.json'), JSON.stringify(gpu));
    writeFileSync(join(dir, 'telemetry-level-2.json'), JSON.stringify(server)); // unpadded, as early runs wrote
    const r = await readTelemetryFiles(dir);
    expect(r.warnings).toEqual([]);
    expect(Object.keys(r.levels)).toEqual(['0', '2']);
    expect(r.levels[0].server?.samples[0].values.running).toBe(2);
    expect(r.levels[0].gpu?.samples[0].powerW).toBe(100);
    expect(r.levels[2].gpu).toBeNull();
    expect(r.levels[1]).toBeUndefined();
  });

  it('reports a file that does not parse or has another shape, and keeps the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-tel-'));
    writeFileSync(join(dir, 'telemetry-level-00.json'), '{"samples": [');
    writeFileSync(join(dir, 'gpu-level-00.json'), JSON.stringify({ samples: 'none' }));
    writeFileSync(join(dir, 'telemetry-level-01.json'), JSON.stringify(server));
    const r = await readTelemetryFiles(dir);
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/gpu-level-00\.json is not a gpu telemetry file of the expected shape/);
    expect(r.warnings[1]).toMatch(/telemetry-level-00\.json could not be read/);
    expect(r.levels[0]).toBeUndefined();
    expect(r.levels[1].server).not.toBeNull();
  });
});
