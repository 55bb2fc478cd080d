// Configured versus observed prefix-cache hit rate of a shared-prefix level. Observed comes from what
// the server said per request (SGLang meta_info.cached_tokens; OpenAI-style
// usage.prompt_tokens_details.cached_tokens, which vLLM and llama.cpp send) over the measured requests;
// when no measured request carried the figure the observed rate is unknown (null), never 0.

import { inputTokens, type RequestRecord } from '../records/request-record.js';

export interface PrefixHitRates {
  /** The rate the plan states (or a cache keeping every prefix would give). */
  configured: number;
  /** Σ cached / Σ prompt tokens over measured requests reporting cached tokens; null when none did. */
  observed: number | null;
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

  rates(configured: number): PrefixHitRates {
    return {
      configured,
      observed: this.reporting > 0 && this.prompt > 0 ? this.cached / this.prompt : null,
      reporting: this.reporting,
      measured: this.measured,
    };
  }
}

export function prefixHitNote(h: PrefixHitRates): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const seen =
    h.observed === null
      ? 'unknown (the server reported no cached tokens)'
      : `${pct(h.observed)} (${h.reporting}/${h.measured} requests reported cached tokens)`;
  return `benchgate: prefix-cache hit rate: configured ${pct(h.configured)}, observed ${seen}.`;
}
