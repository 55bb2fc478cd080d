// Monotonic time for every measurement, plus one wall-clock anchor per run.
// All record timestamps are milliseconds relative to a run's monotonic origin, so they stay
// comparable across the whole run and immune to wall-clock steps.

import { performance } from 'node:perf_hooks';

/** Monotonic milliseconds (sub-millisecond resolution). */
export function monoNowMs(): number {
  return performance.now();
}

export interface ClockAnchor {
  /** Monotonic ms at the anchor. */
  monoMs: number;
  /** Wall-clock ISO time at the anchor. */
  wallIso: string;
  /** Wall-clock epoch ms at the anchor. */
  wallEpochMs: number;
}

export function takeAnchor(): ClockAnchor {
  const monoMs = performance.now();
  const wallEpochMs = Date.now();
  return { monoMs, wallEpochMs, wallIso: new Date(wallEpochMs).toISOString() };
}

/** Converts a record timestamp (ms since the run's monotonic anchor) to wall-clock epoch ms. */
export function toWallEpochMs(anchor: ClockAnchor, relMs: number): number {
  return anchor.wallEpochMs + relMs;
}

/** Parses durations such as "15m", "90s", "1h30m", "250ms" or a bare number of seconds into seconds. */
export function parseDurationS(input: string | number): number | null {
  if (typeof input === 'number') return Number.isFinite(input) && input >= 0 ? input : null;
  const s = input.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const v = Number(m[1]);
    total += m[2] === 'h' ? v * 3600 : m[2] === 'm' ? v * 60 : m[2] === 's' ? v : v / 1000;
    consumed = re.lastIndex;
  }
  return consumed === s.length && consumed > 0 ? total : null;
}

/**
 * Resolves after `ms`, or at once when `signal` aborts. The abort listener is removed when the timer
 * fires, so a polling loop sharing one signal does not pile up listeners (MaxListenersExceededWarning).
 */
export function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
