// Configured versus observed prefix-cache hit rate of a shared-prefix level. Observed comes from what
// the server said per request (SGLang meta_info.cached_tokens; OpenAI-style
// usage.prompt_tokens_details.cached_tokens, which vLLM and llama.cpp send) over the measured requests;
// when no measured request carried the figure, from the server's prefix-cache counters read at the
// measured phase's start and the level's end (vLLM reports hits only as `vllm:prefix_cache_hits` /
// `vllm:prefix_cache_queries`); with neither, the observed rate is unknown (null), never 0.

import { inputTokens, type RequestRecord } from '../records/request-record.js';

/** Prefix-cache counters (prompt tokens) over the measured phase, and the series they came from. */
export interface PrefixCounterDelta {
  hitTokens: number;
  queryTokens: number;
  /** e.g. "vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total". */
  source: string;
}

export interface PrefixHitRates {
  /** The rate the plan states (or a cache keeping every prefix would give). */
  configured: number;
  /** The observed rate (see `source`); null when the server said nothing either way. */
  observed: number | null;
  /** Where `observed` came from: per-request cached tokens, or the named counters; null with no figure. */
  source: 'per-request' | 'metrics-counters' | null;
  /** For `metrics-counters`: the series and the token deltas behind the rate. */
  counters?: PrefixCounterDelta;
  /** Measured requests that reported cached tokens, of all measured requests. */
  reporting: number;
  measured: number;
}

/** Sums what the server said per measured request, one record at a time (records are not kept). */
export class PrefixHitCounter {
  private cached = 0;
  private prompt = 0;
  private reporting = 0;
  private measured = 0;

  add(r: RequestRecord): void {
    if (r.warmup || r.error !== null) return;
    this.measured++;
    if (r.cachedInputTokens === undefined || r.cachedInputTokens === null) return;
    this.reporting++;
    this.cached += r.cachedInputTokens;
    this.prompt += inputTokens(r);
  }

  rates(configured: number, counters: PrefixCounterDelta | null = null): PrefixHitRates {
    const base = { configured, reporting: this.reporting, measured: this.measured };
    if (this.reporting > 0 && this.prompt > 0)
      return { ...base, observed: this.cached / this.prompt, source: 'per-request' };
    if (counters && counters.queryTokens > 0 && counters.hitTokens >= 0)
      return {
        ...base,
        observed: counters.hitTokens / counters.queryTokens,
        source: 'metrics-counters',
        counters,
      };
    return { ...base, observed: null, source: null };
  }
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
