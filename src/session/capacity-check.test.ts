import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { planSchema } from '../plan/schema.js';
import { CALIBRATION_SCHEMA, type Calibration, type CalibrationLevel } from './calibration-file.js';
import { capacityCheck, overCapacityLevels } from './capacity-check.js';

const level = (concurrency: number, stall: number): CalibrationLevel => ({
  concurrency,
  requests: 100,
  errors: 0,
  wallS: 1,
  clientCpuS: 0.5,
  requestsPerS: 100,
  tokensPerS: 6400,
  requestsPerCoreS: 200,
  tokensPerCoreS: 12_800,
  sseEventsPerCoreS: 12_800,
  clientAddedTtftMeanMs: 0.5,
  clientAddedTtftP99Ms: 2,
  eventLoopStallPercent: stall,
  eventLoopDelayP99Ms: 11,
  cpuPercentOfOneCore: 50,
});

function calibration(firstStalled: number | null, levels = [level(1, 0), level(64, 0)]): Calibration {
  return {
    schema: CALIBRATION_SCHEMA,
    createdAt: '2026-12-03T10:00:00.000Z',
    machine: { cores: 2, cpuModel: 'x', node: 'v20', os: 'linux x64', benchgate: '0.1.0', loadAverage1m: 0 },
    server: 'test',
    outputTokensPerRequest: 64,
    levels,
    capacity: { requestsPerS: 200, tokensPerS: 12_800, sseEventsPerS: 12_800 },
    firstStalledConcurrency: firstStalled,
  };
}

const plan = (load: object, outputTokens = 100) =>
  planSchema.parse({ load, workload: { output_tokens: { fixed: outputTokens } } });

describe('levels over the calibrated capacity', () => {
  it('flags a rate whose streamed tokens/s exceed the calibrated tokens/s, not one below it', () => {
    // 100 req/s × 100 tokens = 10 000 tokens/s (fits); 150 × 100 = 15 000 (does not)
    const notes = overCapacityLevels(plan({ kind: 'rate', levels: [100, 150] }), calibration(null));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^rate 150 req\/s asks for about 15000 streamed tokens\/s, above .* 12800/);
  });

  it('flags a rate above the calibrated requests/s even when its tokens fit', () => {
    const notes = overCapacityLevels(plan({ kind: 'rate', levels: [250] }, 1), calibration(null));
    expect(notes).toEqual([expect.stringMatching(/^rate 250 req\/s is above .* 200 requests\/s/)]);
  });

  it('flags concurrencies from the first stalled one, and beyond the largest calibrated', () => {
    expect(overCapacityLevels(plan({ levels: [1, 64, 128] }), calibration(null))).toEqual([
      expect.stringMatching(/^concurrency 128 is beyond the largest calibrated concurrency \(64\)/),
    ]);
    const stalled = overCapacityLevels(plan({ levels: [1, 16, 64] }), calibration(16));
    expect(stalled).toHaveLength(2);
    expect(stalled[0]).toMatch(/^concurrency 16: .*stalled at concurrency 16/);
  });

  it('judges each worker thread by its share of the level', () => {
    // 150 req/s × 100 tokens over 2 workers = 7 500 tokens/s each (fits); 300 req/s = 15 000 each (does not)
    const notes = overCapacityLevels(plan({ kind: 'rate', levels: [150, 300] }), calibration(null), 2);
    expect(notes).toEqual([
      expect.stringMatching(
        /^rate 300 req\/s asks for about 30000 streamed tokens\/s over 2 workers, above .* 12800 tokens\/s per core, ×2 workers/,
      ),
    ]);
    // concurrency 128 over 2 workers is 64 each: the largest calibrated, not beyond it
    expect(overCapacityLevels(plan({ levels: [128] }), calibration(null), 2)).toEqual([]);
    expect(overCapacityLevels(plan({ levels: [32] }), calibration(16), 2)).toEqual([
      expect.stringMatching(/^concurrency 32 over 2 workers: .*stalled at concurrency 16/),
    ]);
  });
});

describe('reading the saved calibration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bg-capacity-'));

  it('says nothing when no calibration was saved', () => {
    expect(capacityCheck(plan({ levels: [1000] }), join(dir, 'none.json'))).toEqual({});
  });

  it('records an unreadable file instead of treating it as no limit', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"schema": "something else"}');
    const r = capacityCheck(plan({ levels: [1] }), bad);
    expect(r.capacityNotes).toEqual([expect.stringContaining('could not be read')]);
  });

  it('notes each over-capacity level of a readable file', () => {
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(calibration(null)));
    const r = capacityCheck(plan({ levels: [1, 512] }), good);
    expect(r.capacityNotes).toEqual([expect.stringMatching(/^concurrency 512 is beyond/)]);
  });

  it('says each warning once per process, however many stores a matrix opens', () => {
    const good = join(dir, 'once.json');
    writeFileSync(good, JSON.stringify(calibration(null)));
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      for (let i = 0; i < 4; i++) {
        const r = capacityCheck(plan({ levels: [1, 1024] }), good);
        expect(r.capacityNotes).toHaveLength(1); // every manifest still carries the note
      }
    } finally {
      spy.mockRestore();
    }
    expect(written.filter((l) => l.includes('concurrency 1024'))).toHaveLength(1);
  });
});
