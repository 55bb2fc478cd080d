// Test use only: the small concurrency SLO search the slo_search tests run against the embedded
// simulator (the example's URL is dropped). At time scale 10 one 512-token prefill is ~16 ms, so queueing
// at 16 in flight breaks a 45 ms TTFT; judged for 90% of requests, a probe needs 64 samples in its
// steady window (72 + 2 × N requests), so the search finds a bracket within a few short probes.

import type { Plan } from '../../plan/schema.js';

export function smallConcurrencySearch(p: Plan): void {
  p.target.url = undefined;
  p.slo = { ttft_ms: 45 };
  p.load.slo_search = {
    ...(p.load.slo_search as NonNullable<Plan['load']['slo_search']>),
    over: 'concurrency',
    preset: undefined,
    share: 0.9,
    start: 2,
    min: 1,
    max: 16,
    precision: 1,
    max_probes: 6,
  };
}
