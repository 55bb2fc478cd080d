import { describe, expect, it } from 'vitest';
import { buildRecords } from '../report/test-support.js';
import { steadyState } from './steady-state.js';

describe('steady-state window of a closed-loop level', () => {
  it('starts when all slots are busy, ends when the count leaves N for the last time, and says what it cut', () => {
    // 2 lanes; lane 0 sends at 0, 100, 200; lane 1 starts 50 ms late (ramp-up) and finishes last (drain)
    const records = buildRecords(0, 2, [
      { ttftMs: 10, e2eMs: 100, outputTokens: 10 },
      { ttftMs: 10, e2eMs: 150, outputTokens: 10 },
      { ttftMs: 10, e2eMs: 100, outputTokens: 10 },
      { ttftMs: 10, e2eMs: 150, outputTokens: 10 },
      { ttftMs: 10, e2eMs: 100, outputTokens: 10 },
      { ttftMs: 10, e2eMs: 150, outputTokens: 10 },
    ]);
    records[1].sentMs = 50;
    records[1].scheduledMs = 50;
    const r = steadyState(records, 2);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // in flight: 0 → 1 at 0, 2 at 50; lane 0 ends at 300; lane 1's last request ends at 450
    expect(r.steady.startMs).toBe(50);
    expect(r.steady.endMs).toBe(300);
    expect(r.steady.rampUpS).toBeCloseTo(0.05, 9);
    expect(r.steady.drainS).toBeCloseTo(0.15, 9);
    expect(r.steady.requestsInside + r.steady.requestsExcluded).toBe(6);
    expect(r.steady.requestsExcluded).toBeGreaterThan(0);
  });

  it('gives a reason instead of a window when the slots never fill', () => {
    const records = buildRecords(0, 1, [{ ttftMs: 10, e2eMs: 100, outputTokens: 10 }]);
    expect(steadyState(records, 4)).toEqual({ ok: false, reason: '1 measured requests never fill 4 slots' });
  });

  it('has no steady state for a single wave: every slot sent one request (e.g. 192 at concurrency 192)', () => {
    const wave = buildRecords(
      0,
      8,
      Array.from({ length: 8 }, () => ({ ttftMs: 10, e2eMs: 100, outputTokens: 10 })),
    );
    expect(steadyState(wave, 8)).toEqual({
      ok: false,
      reason: 'a single wave: 8 requests at concurrency 8 (needs ≥16, 2 per slot)',
    });
  });
});
