import { describe, expect, it } from 'vitest';
import { buildRecords, specs } from '../report/test-support.js';
import { summarizeLevelInPasses } from './level-accumulator.js';
import type { LevelSummary } from './summary.js';
import { poolTrials } from './trials.js';

const key = { kind: 'concurrency', value: 2 } as const;

/** Trial t of one level: 40 requests, e2e scaled by `f`, stored at level index t − 1. */
function trial(t: number, f: number, firstId: number) {
  const records = buildRecords(t - 1, 2, specs(40, { e2eMs: 200 * f, ttftMs: 20 * f, tokens: 16 }), firstId);
  const summary: LevelSummary = {
    ...summarizeLevelInPasses(
      { levelIndex: t - 1, level: key, percentiles: [50, 99], slo: {}, inFlightAtEnd: 0 },
      records,
    ),
    trial: t,
  };
  return { records, summary };
}

describe('pooling the trials of one level', () => {
  const one = trial(1, 1, 0);
  const two = trial(2, 1.5, 40);
  two.summary.client = { ...two.summary.client, timingNoise: 'event-loop lag p99 30 ms' };
  two.summary.validity = { valid: false, reasons: ['server restarted during the level'] };
  const pooled = poolTrials([one.summary, two.summary], [...one.records, ...two.records]);

  it('takes every trial’s requests for the distributions, and rates over the summed windows', () => {
    expect(pooled.ttftMs?.count).toBe(80);
    expect(pooled.requests.completed).toBe(80);
    expect(pooled.windowS).toBeCloseTo(one.summary.windowS + two.summary.windowS, 12);
    expect(pooled.throughput.outputTokensPerS).toBeCloseTo((80 * 16) / pooled.windowS, 9);
    expect(pooled.throughput.requestsPerS).toBeCloseTo(80 / pooled.windowS, 9);
  });

  it('keeps the worst of the trials’ client checks and validity, naming the trial', () => {
    expect(pooled.client.timingNoise).toBe('trial 2: event-loop lag p99 30 ms');
    expect(pooled.validity).toEqual({
      valid: false,
      reasons: ['trial 2: server restarted during the level'],
    });
  });

  it('returns a single trial as it is', () => {
    expect(poolTrials([one.summary], one.records)).toBe(one.summary);
  });
});
