// Steady-state window of a closed-loop level: the span in which all N slots are busy, without the ramp-up
// (before the N-th request is in flight) and the drain (after the count leaves N for the last time).
// Definition: sweep the measured records' [sentMs, endMs] intervals in time order (at equal times an end
// is counted before a send); start = the first moment N requests are in flight; end = the last moment the
// count drops below N. The brief hand-off dips of a closed loop (one request ended, its successor not yet
// sent) stay inside the window. Figures over the window: requests wholly inside it (latencies),
// completions and output tokens (chunk arrivals) inside it per second. A level of fewer than two
// requests per slot (a single wave) has no steady state. Pure: no I/O.

import { extent } from '../core/extent.js';
import { outputTokens, type RequestRecord, succeeded } from '../records/request-record.js';
import { percentile } from './percentile.js';
import { requestLatencies } from './request-latency.js';
import { supportsPercentile } from './tail-samples.js';

export interface SteadyState {
  concurrency: number;
  startMs: number;
  endMs: number;
  windowS: number;
  /** Seconds excluded before the window (ramp-up) and after it (drain). */
  rampUpS: number;
  drainS: number;
  /** Measured requests wholly inside the window, and those excluded (they overlap ramp-up or drain). */
  requestsInside: number;
  requestsExcluded: number;
  requestsPerS: number;
  outputTokensPerS: number;
  ttftP50Ms: number | null;
  e2eP50Ms: number | null;
  tpotP50Ms: number | null;
}

/** Requests each slot must send for a level to have a steady state beyond its ramp-up and drain. */
export const MIN_REQUESTS_PER_SLOT = 2;

export type SteadyStateResult = { ok: true; steady: SteadyState } | { ok: false; reason: string };

export function steadyState(records: readonly RequestRecord[], concurrency: number): SteadyStateResult {
  const measured = records.filter((r) => !r.warmup);
  if (measured.length < concurrency)
    return { ok: false, reason: `${measured.length} measured requests never fill ${concurrency} slots` };
  // one request per slot (a single wave, e.g. 192 at concurrency 192) is all ramp-up and drain
  if (measured.length < MIN_REQUESTS_PER_SLOT * concurrency)
    return {
      ok: false,
      reason: `a single wave: ${measured.length} requests at concurrency ${concurrency} (needs ≥${MIN_REQUESTS_PER_SLOT * concurrency}, ${MIN_REQUESTS_PER_SLOT} per slot)`,
    };
  const events = measured.flatMap((r) => [
    { t: r.sentMs, d: 1 },
    { t: r.endMs, d: -1 },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let inFlight = 0;
  let startMs: number | null = null;
  let endMs: number | null = null;
  for (const e of events) {
    const before = inFlight;
    inFlight += e.d;
    if (startMs === null && inFlight >= concurrency) startMs = e.t;
    if (startMs !== null && before >= concurrency && inFlight < concurrency) endMs = e.t;
  }
  if (startMs === null || endMs === null || !(endMs > startMs))
    return { ok: false, reason: `${concurrency} requests were never in flight at once` };
  const firstMs = extent(measured.map((r) => r.sentMs)).min;
  const lastMs = extent(measured.map((r) => r.endMs)).max;
  const s = startMs;
  const e = endMs;
  const inside = measured.filter((r) => r.sentMs >= s && r.endMs <= e);
  const done = inside.filter(succeeded);
  const lat = done.map(requestLatencies);
  // the tail rule of every table: a median needs the samples that support it
  const p50 = (xs: (number | null)[]) => {
    const v = xs.filter((x): x is number => x !== null);
    return supportsPercentile(v.length, 50) ? percentile(v, 50) : null;
  };
  let tokens = 0;
  for (const r of measured.filter(succeeded)) {
    const scale = r.chunkTokens.reduce((a, b) => a + b, 0) || 1;
    const factor = outputTokens(r) / scale;
    r.chunkMs.forEach((t, i) => {
      if (t >= s && t <= e) tokens += (r.chunkTokens[i] ?? 0) * factor;
    });
  }
  const windowS = (e - s) / 1000;
  const completions = measured.filter((r) => succeeded(r) && r.endMs >= s && r.endMs <= e).length;
  return {
    ok: true,
    steady: {
      concurrency,
      startMs: s,
      endMs: e,
      windowS,
      rampUpS: (s - firstMs) / 1000,
      drainS: (lastMs - e) / 1000,
      requestsInside: inside.length,
      requestsExcluded: measured.length - inside.length,
      requestsPerS: completions / windowS,
      outputTokensPerS: tokens / windowS,
      ttftP50Ms: p50(lat.map((l) => l.ttftMs)),
      e2eP50Ms: p50(lat.map((l) => l.e2eMs)),
      tpotP50Ms: p50(lat.map((l) => l.tpotMs)),
    },
  };
}
