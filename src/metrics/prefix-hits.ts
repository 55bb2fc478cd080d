// Configured versus observed prefix-cache hit rate of a shared-prefix level (prefix-cache-level-NN.json
// and the note printed after the level). The observed rate is the level's cache evidence
// (cache-share.ts: per request first, else the server's prefix-cache counters over the measured phase);
// with neither, it is unknown (null), never 0.

import type { CacheCounterDelta, CacheEvidence } from './cache-share.js';

export interface PrefixHitRates {
  /** The rate the plan states (or a cache keeping every prefix would give). */
  configured: number;
  /** The observed rate (see `source`); null when the server said nothing either way. */
  observed: number | null;
  /** Where `observed` came from: per-request cached tokens, or the named counters; null with no figure. */
  source: 'per-request' | 'metrics-counters' | null;
  /** For `metrics-counters`: the series and the token deltas behind the rate. */
  counters?: CacheCounterDelta;
  /** Measured requests that reported cached tokens, of all measured requests. */
  reporting: number;
  measured: number;
}

/** The shared-prefix account of a level's cache evidence. */
export function prefixHitRates(configured: number, cache: CacheEvidence | undefined): PrefixHitRates {
  const base = { configured, reporting: cache?.reporting ?? 0, measured: cache?.measured ?? 0 };
  if (!cache || cache.share === null || cache.source === null)
    return { ...base, observed: null, source: null };
  if (cache.source === 'metrics-counters' && cache.counters)
    return { ...base, observed: cache.share, source: cache.source, counters: cache.counters };
  return { ...base, observed: cache.share, source: cache.source };
}

export function prefixHitNote(h: PrefixHitRates): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const seen =
    h.observed === null
      ? 'unknown (the server reported no cached tokens and exposed no prefix-cache counters)'
      : h.source === 'metrics-counters' && h.counters
        ? `${pct(h.observed)} (from /metrics counters ${h.counters.source}: ${h.counters.hitTokens} of ${h.counters.queryTokens} prompt tokens over the measured requests)`
        : `${pct(h.observed)} (${h.reporting}/${h.measured} requests reported cached tokens)`;
  return `benchgate: prefix-cache hit rate: configured ${pct(h.configured)}, observed ${seen}.`;
}
