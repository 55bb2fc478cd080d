// The client watching itself during a level: event-loop lag (perf_hooks histogram) and process CPU
// as a share of one core, so levels where benchgate was the bottleneck can be flagged.
// In a worker thread (worker-pool.ts) process.cpuUsage() counts every thread of the process, so a
// worker reads its own thread's on-CPU time instead (Linux /proc/thread-self/schedstat; unknown where
// that file does not exist), and the level carries each worker's reading and the worst of them.
//
// monitorEventLoopDelay samples with a timer that fires every `resolution` ms and records the time
// between consecutive firings, so an idle loop records about `resolution` ms, not 0. The lag is what
// a firing came late: the recorded value minus the resolution (never below 0).

import { readFileSync } from 'node:fs';
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

/** The level's reading with worker threads: the worst of the workers', and each worker's in order. */
export interface PooledSelfCheckReading extends SelfCheckReading {
  workers: SelfCheckReading[];
}

/** The calling thread's on-CPU time, ms (first field of schedstat, ns), or null where unreadable. */
export function threadCpuMs(): number | null {
  try {
    const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : null;
  } catch {
    return null;
  }
}

/** Worst of each figure over the workers (unknown readings are left out; all unknown: unknown). */
export function worstOf(workers: SelfCheckReading[]): PooledSelfCheckReading {
  const worst = (f: (r: SelfCheckReading) => number | null): number | null => {
    const xs = workers.map(f).filter((x): x is number => x !== null);
    return xs.length > 0 ? Math.max(...xs) : null;
  };
  return {
    eventLoopDelayP99Ms: worst((r) => r.eventLoopDelayP99Ms),
    cpuPercentOfOneCore: worst((r) => r.cpuPercentOfOneCore),
    workers,
  };
}

/** The lag a recorded inter-firing time stands for: what exceeded the sampling interval. */
export function lagFromRecordedMs(recordedMs: number, resolutionMs: number): number {
  return Math.max(0, recordedMs - resolutionMs);
}

/** Starts watching; `thread: true` reads this thread's CPU instead of the whole process's. */
export function startSelfCheck(o: { thread?: boolean } = {}): SelfCheck {
  const h = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  h.enable();
  const cpu0 = process.cpuUsage();
  const thread0 = o.thread ? threadCpuMs() : null;
  const t0 = performance.now();
  const cpuMs = (): number | null => {
    if (!o.thread) {
      const cpu = process.cpuUsage(cpu0);
      return (cpu.user + cpu.system) / 1000;
    }
    const now = threadCpuMs();
    return now === null || thread0 === null ? null : now - thread0;
  };
  return {
    stop() {
      h.disable();
      const usedMs = cpuMs();
      const wallMs = performance.now() - t0;
      const p99 = h.count > 0 ? lagFromRecordedMs(h.percentile(99) / 1e6, EVENT_LOOP_RESOLUTION_MS) : null;
      return {
        eventLoopDelayP99Ms: p99,
        cpuPercentOfOneCore: wallMs > 0 && usedMs !== null ? (usedMs / wallMs) * 100 : null,
      };
    },
  };
}
