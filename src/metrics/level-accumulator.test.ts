import { describe, expect, it } from 'vitest';
import { randomRecords } from '../records/test-support/random-records.js';
import { type LevelInput, summarizeLevel } from './level.js';
import { type LevelContext, summarizeLevelInPasses } from './level-accumulator.js';

const ctx = (extra: Partial<LevelContext> = {}): LevelContext => ({
  levelIndex: 0,
  level: { kind: 'rate', value: 20, maxConcurrency: 8 },
  percentiles: [50, 90, 95, 99, 99.9],
  slo: { ttft_ms: 150, tpot_ms: 20 },
  inFlightAtEnd: 2,
  specCounters: { before: { drafts: 10, acceptedTokens: 5 }, after: { drafts: 30, acceptedTokens: 40 } },
  client: { eventLoopDelayP99Ms: 3, cpuPercentOfOneCore: 40 },
  validity: { valid: true, reasons: [] },
  ...extra,
});

describe('the two-pass level summary', () => {
  it('equals summarizeLevel exactly on varied records (warmup, failures, multi-token chunks, spec steps)', () => {
    for (const seed of [1, 2, 3]) {
      const records = randomRecords(400, seed);
      const c = ctx();
      const expected = summarizeLevel({ ...c, records } as LevelInput);
      expect(summarizeLevelInPasses(c, records)).toEqual(expected);
      expect(expected.requests.failed).toBeGreaterThan(0);
      expect(expected.speculative?.source).toBe('per-request');
    }
  });

  it('equals summarizeLevel on a sub-second window, an empty level and a counters-only level', () => {
    const short = randomRecords(40, 9).map((r) => ({
      ...r,
      specVerifySteps: null,
      sentMs: r.sentMs / 20,
      endMs: r.endMs / 20,
      scheduledMs: r.scheduledMs / 20,
      chunkMs: r.chunkMs.map((t) => t / 20),
    }));
    for (const records of [short, [], randomRecords(3, 4)]) {
      const c = ctx({ slo: {} });
      expect(summarizeLevelInPasses(c, records)).toEqual(summarizeLevel({ ...c, records }));
    }
  });
});
