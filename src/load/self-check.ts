// The client watching itself during a level: event-loop lag (perf_hooks histogram) and process CPU
// as a share of one core, so levels where benchgate was the bottleneck can be flagged.
//
// monitorEventLoopDelay samples with a timer that fires every `resolution` ms and records the time
// between consecutive firings, so an idle loop records about `resolution` ms, not 0. The lag is what
// a firing came late: the recorded value minus the resolution (never below 0).

import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** The sampling interval of the event-loop histogram, ms. */
export const EVENT_LOOP_RESOLUTION_MS = 10;

export interface SelfCheckReading {
  /** Event-loop lag p99, ms, with the sampling interval subtracted (field name kept for stored runs). */
  eventLoopDelayP99Ms: number | null;
  cpuPercentOfOneCore: number | null;
}

export interface SelfCheck {
  stop(): SelfCheckReading;
}

/** The lag a recorded inter-firing time stands for: what exceeded the sampling interval. */
export function lagFromRecordedMs(recordedMs: number, resolutionMs: number): number {
  return Math.max(0, recordedMs - resolutionMs);
}

export function startSelfCheck(): SelfCheck {
  const h = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  h.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  return {
    stop() {
      h.disable();
      const cpu = process.cpuUsage(cpu0);
      const wallMs = performance.now() - t0;
      const p99 = h.count > 0 ? lagFromRecordedMs(h.percentile(99) / 1e6, EVENT_LOOP_RESOLUTION_MS) : null;
      return {
        eventLoopDelayP99Ms: p99,
        cpuPercentOfOneCore: wallMs > 0 ? ((cpu.user + cpu.system) / 1000 / wallMs) * 100 : null,
      };
    },
  };
}
