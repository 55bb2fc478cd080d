// How one SLO-search probe is judged from its records and how big it is made: open-loop records come from
// a single-server FIFO queue model (each request served in 1/capacity s after the one before), so a rate
// below the capacity is held and one above it is not, whatever the probe's size.
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../records/request-record.js';
import { buildRecords } from '../report/test-support.js';
import { binomialAtLeast, judgeProbe, probeRequests } from './slo-probe.js';

/** `n` open-loop arrivals at `rate`/s to a FIFO server answering `capacity`/s; TTFT = queue + 10 ms. */
function openLoop(n: number, rate: number, capacity: number): RequestRecord[] {
  const template = buildRecords(0, 1, [{ ttftMs: 10, e2eMs: 50, outputTokens: 8 }])[0];
  let freeAtMs = 0;
  return Array.from({ length: n }, (_, i) => {
    const at = (i * 1000) / rate;
    const start = Math.max(at, freeAtMs);
    freeAtMs = start + 1000 / capacity;
    const first = start + 10;
    const chunkMs = Array.from({ length: 8 }, (_, k) => first + ((freeAtMs - first) * k) / 7);
    return {
      ...template,
      id: i,
      scheduledMs: at,
      sentMs: at,
      chunkMs,
      firstContentMs: first,
      endMs: freeAtMs,
    };
  });
}

const rate = (value: number) => ({ kind: 'rate' as const, value, maxConcurrency: null });
const criteria = { slo: { ttft_ms: 2000 }, share: 0.99, tolerance: 0.95 };

describe('judging an SLO-search probe', () => {
  it('passes a rate the server holds, with the evidence: offered vs achieved, steady window, n against the floor', () => {
    const j = judgeProbe(rate(10), openLoop(779, 10, 20), criteria);
    expect(j.outcome).toBe('pass');
    expect(j.evidence.unit).toBe('req/s');
    expect(j.evidence.achieved / j.evidence.offered).toBeGreaterThanOrEqual(0.95);
    expect(j.evidence.offered).toBeCloseTo(10, 0);
    expect(j.evidence.samples).toBeGreaterThanOrEqual(662);
    expect(j.evidence).toMatchObject({ floor: 662, sent: 779, sustained: true, met: j.evidence.samples });
    expect(j.evidence.steady?.rampUpS).toBeCloseTo(0.05, 2);
  });

  it('fails a rate the server cannot hold, however its requests fared against the SLOs', () => {
    // 20/s offered to a server answering 12/s: TTFT grows but stays under 2 s for the whole probe
    const j = judgeProbe(rate(20), openLoop(300, 20, 12), { ...criteria, slo: { ttft_ms: 60_000 } });
    expect(j.outcome).toBe('fail');
    expect(j.reason).toMatch(/^not sustained: achieved 1[12](\.\d+)? of 20 req\/s \(6\d(\.\d)?%\)/);
    expect(j.evidence.sustained).toBe(false);
  });

  it('is inconclusive on fewer samples than the floor, naming the floor', () => {
    const j = judgeProbe(rate(10), openLoop(100, 10, 20), criteria);
    expect(j.outcome).toBe('inconclusive');
    expect(j.reason).toContain('cannot show 99% (≥662 needed)');
  });

  it('fails on few samples when the misses already rule the share out', () => {
    // 60 ms per request at 10/s is held, but every request's TTFT (10 ms) breaks a 5 ms SLO
    const j = judgeProbe(rate(10), openLoop(100, 10, 20), { ...criteria, slo: { ttft_ms: 5 } });
    expect(j.outcome).toBe('fail');
    expect(j.reason).toContain('too many misses');
  });

  it('judges a closed-loop probe on its steady-state window, as concurrency held', () => {
    const records = buildRecords(
      0,
      4,
      Array.from({ length: 760 }, () => ({ ttftMs: 10, e2eMs: 100, outputTokens: 8 })),
    );
    const j = judgeProbe({ kind: 'concurrency', value: 4 }, records, criteria);
    expect(j.outcome).toBe('pass');
    expect(j.evidence.unit).toBe('concurrency');
    expect(j.evidence.achieved).toBeCloseTo(4, 5);
    expect(j.evidence.samples).toBeGreaterThanOrEqual(662);
  });

  it('is inconclusive without a steady window, and fails when nothing completed', () => {
    const one = buildRecords(0, 1, [{ ttftMs: 10, e2eMs: 100, outputTokens: 8 }]);
    expect(judgeProbe({ kind: 'concurrency', value: 4 }, one, criteria)).toMatchObject({
      outcome: 'inconclusive',
      reason: 'no steady window: 1 measured requests never fill 4 slots',
    });
    const failed = one.map((r) => ({ ...r, error: { code: 'BG_E_CONNECT' as const, message: 'refused' } }));
    expect(judgeProbe(rate(1), failed, criteria).outcome).toBe('fail');
  });
});

describe('sizing an SLO-search probe', () => {
  const bounds = { share: 0.99, atLeast: 0, maxRequests: 10_000, maxS: 300 };
  it('sends enough for the share’s sample floor after the ramp, within the plan’s bounds', () => {
    expect(probeRequests(rate(20), bounds)).toBe(779); // 662 / 0.85
    expect(probeRequests({ kind: 'concurrency', value: 8 }, bounds)).toBe(736 + 16);
    expect(probeRequests(rate(1), bounds)).toBe(300); // 300 s at 1 req/s
    expect(probeRequests(rate(20), { ...bounds, maxRequests: 500 })).toBe(500);
    expect(probeRequests(rate(20), { ...bounds, atLeast: 2000 })).toBe(2000);
    expect(probeRequests(rate(20), { ...bounds, share: 0.9 })).toBe(76); // 64 / 0.85
  });

  it('computes binomial tails', () => {
    expect(binomialAtLeast(3, 0.5, 2)).toBeCloseTo(0.5, 12);
    expect(binomialAtLeast(10, 0.1, 0)).toBe(1);
    expect(binomialAtLeast(10, 0.1, 11)).toBe(0);
    expect(binomialAtLeast(100, 0.01, 5)).toBeCloseTo(0.00343, 4);
  });
});
