// Goodput: measured requests that met every service-level objective given, per second and as a fraction.
// A request meets the SLOs when it completed without error and: TTFT <= ttft_ms; TPOT <= tpot_ms (a request
// with fewer than 2 output tokens has no decode phase and meets tpot_ms vacuously); E2E <= e2e_ms. TTFT and E2E
// are measured from the send (see request-latency.ts). fraction = good / measured (failed requests count, as misses).

import type { RequestLatencies } from './request-latency.js';
import type { SloSpec } from './summary.js';

export function hasAnySlo(slo: SloSpec): boolean {
  return slo.ttft_ms !== undefined || slo.tpot_ms !== undefined || slo.e2e_ms !== undefined;
}

/** Whether one completed request's latencies meet every SLO given. */
export function meetsSlo(lat: RequestLatencies, slo: SloSpec): boolean {
  if (slo.ttft_ms !== undefined && (lat.ttftMs === null || lat.ttftMs > slo.ttft_ms)) return false;
  if (slo.tpot_ms !== undefined && lat.tpotMs !== null && lat.tpotMs > slo.tpot_ms) return false;
  if (slo.e2e_ms !== undefined && (lat.e2eMs === null || lat.e2eMs > slo.e2e_ms)) return false;
  return true;
}
