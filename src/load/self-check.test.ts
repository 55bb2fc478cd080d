import { describe, expect, it } from 'vitest';
import {
  EVENT_LOOP_RESOLUTION_MS,
  lagFromRecordedMs,
  startSelfCheck,
  threadCpuMs,
  worstOf,
} from './self-check.js';

describe('client self-check', () => {
  it('reports the lag beyond the sampling interval, not the interval itself', () => {
    // an idle loop records one firing per interval: no lag
    expect(lagFromRecordedMs(EVENT_LOOP_RESOLUTION_MS, EVENT_LOOP_RESOLUTION_MS)).toBe(0);
    expect(lagFromRecordedMs(23.5, 10)).toBe(13.5);
    // timer granularity can fire a hair early: never a negative lag
    expect(lagFromRecordedMs(9.8, 10)).toBe(0);
  });

  it('reads a lag and a CPU share from a real event loop', async () => {
    const check = startSelfCheck();
    await new Promise((r) => setTimeout(r, 60));
    const reading = check.stop();
    expect(reading.eventLoopDelayP99Ms).not.toBeNull();
    expect(reading.eventLoopDelayP99Ms!).toBeGreaterThanOrEqual(0);
    expect(reading.cpuPercentOfOneCore).not.toBeNull();
  });

  it("reads this thread's own CPU where Linux exposes it", async () => {
    if (process.platform !== 'linux') return;
    expect(threadCpuMs()).not.toBeNull();
    const check = startSelfCheck({ thread: true });
    const until = Date.now() + 30;
    while (Date.now() < until); // busy: this thread's CPU must show it
    const reading = check.stop();
    expect(reading.cpuPercentOfOneCore).toBeGreaterThan(0);
  });

  it("keeps every worker's reading and takes the worst of each figure, unknowns left out", () => {
    const w = [
      { eventLoopDelayP99Ms: 2, cpuPercentOfOneCore: null },
      { eventLoopDelayP99Ms: 0.5, cpuPercentOfOneCore: 71 },
    ];
    expect(worstOf(w)).toEqual({ eventLoopDelayP99Ms: 2, cpuPercentOfOneCore: 71, workers: w });
    expect(
      worstOf([{ eventLoopDelayP99Ms: null, cpuPercentOfOneCore: null }]).cpuPercentOfOneCore,
    ).toBeNull();
  });
});
