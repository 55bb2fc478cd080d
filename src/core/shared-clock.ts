// One monotonic clock across threads. `performance.now()` counts from its thread's time origin, and
// Node versions differ on whether a worker thread shares the process's origin; process.hrtime is
// CLOCK_MONOTONIC on Linux (mach_absolute_time / QueryPerformanceCounter elsewhere), one clock for every
// thread of the process. A time that crosses a thread boundary travels as hrtime ms and is converted at
// each end with that thread's offset, so records taken in a worker thread land on the session's anchor
// exactly as in-process ones do.

import { performance } from 'node:perf_hooks';

/** The process-wide monotonic clock, ms (sub-microsecond resolution). */
export function sharedNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * performance.now() − sharedNowMs() for the calling thread: a constant per thread, because both read
 * the same monotonic clock and differ only by the thread's time origin. Taken as the median of a few
 * bracketed readings, so a preemption between two reads does not skew it.
 */
export function localClockOffsetMs(): number {
  const offsets: { offset: number; spread: number }[] = [];
  for (let i = 0; i < 5; i++) {
    const a = sharedNowMs();
    const p = performance.now();
    const b = sharedNowMs();
    offsets.push({ offset: p - (a + b) / 2, spread: b - a });
  }
  offsets.sort((x, y) => x.spread - y.spread);
  return offsets[0]!.offset;
}

/** Converts between this thread's performance.now() scale and the shared clock. */
export interface ThreadClock {
  toShared(localMs: number): number;
  toLocal(sharedMs: number): number;
}

export function threadClock(offsetMs = localClockOffsetMs()): ThreadClock {
  return { toShared: (localMs) => localMs - offsetMs, toLocal: (sharedMs) => sharedMs + offsetMs };
}
