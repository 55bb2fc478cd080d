// Test use only: the small concurrency SLO search the slo_search tests run against the simulator. At
// time scale 10 one 512-token prefill is ~16 ms, so queueing at 16 in flight breaks a 45 ms TTFT and the
// search finds a bracket within a few probes of 8 requests each.

import type { Plan } from '../../plan/schema.js';

export function smallConcurrencySearch(p: Plan): void {
  p.load.requests = 8;
  p.slo = { ttft_ms: 45 };
  p.load.slo_search = {
    ...(p.load.slo_search as NonNullable<Plan['load']['slo_search']>),
    over: 'concurrency',
    preset: undefined,
    start: 2,
    min: 1,
    max: 16,
    precision: 1,
    max_probes: 6,
  };
}
