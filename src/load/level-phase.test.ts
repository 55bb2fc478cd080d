import { describe, expect, it } from 'vitest';
import { sleepUntil } from './level-phase.js';

// The phase's waits (a common start over worker threads, a back-off hold) end at their time, never
// before it: Node's timers may fire up to a millisecond early, which once let a worker send before the
// level's common start.

describe('sleepUntil', () => {
  it('never resolves before the time it waits for, sub-millisecond delays included', async () => {
    const never = new AbortController().signal;
    for (let i = 0; i < 60; i++) {
      const atMs = performance.now() + 0.2 + (i % 12) * 0.45;
      await sleepUntil(atMs, never);
      expect(performance.now()).toBeGreaterThanOrEqual(atMs);
    }
  });

  it('resolves at once when aborted, however far the time is', async () => {
    const stop = new AbortController();
    const t0 = performance.now();
    const waiting = sleepUntil(t0 + 60_000, stop.signal);
    stop.abort();
    await waiting;
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
