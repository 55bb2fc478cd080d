// Cache evidence of one level: the share of its measured prompt tokens the server served from its
// prefix cache, and where that figure came from. Per request first (SGLang meta_info.cached_tokens,
// OpenAI-style usage.prompt_tokens_details.cached_tokens, llama.cpp timings.cache_n), else the server's
// prefix-cache counters read at the measured phase's start and the level's end (vLLM
// prefix_cache_hits/queries, SGLang cached_tokens/prompt_tokens); with neither, unknown, never 0.
// Whether a share is material for a workload not meant to share is judged in validity.ts. Pure.

import type { CacheFlush } from '../engines/cache-flush.js';
import { inputTokens, type RequestRecord } from '../records/request-record.js';

/** Prefix-cache counter deltas (prompt tokens) over the measured phase, and the series they came from. */
export interface CacheCounterDelta {
  hitTokens: number;
  queryTokens: number;
  /** e.g. "vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total". */
  source: string;
}

export interface CacheEvidence {
  /** Σ cached / Σ prompt tokens over the measured requests (see `source`); null when the server said nothing. */
  share: number | null;
  source: 'per-request' | 'metrics-counters' | null;
  /** Prompt tokens served from the cache and looked up, behind `share` (null when unknown). */
  cachedTokens: number | null;
  promptTokens: number | null;
  /** Measured completed requests that carried a cached-token figure, of all measured completed requests. */
  reporting: number;
  measured: number;
  /** The counter deltas, when the server exposed them (kept even when per-request figures were used). */
  counters?: CacheCounterDelta;
  /** shared_prefix workloads: the share a cache keeping every prefix would give (the plan's, or computed). */
  expectedShare?: number;
  /** load.cache: flush — what the flush before the level did. Absent when the plan kept the cache. */
  flush?: CacheFlush;
}

/** What the level sweep knows beside the records: counter deltas and the workload's expected share. */
export interface CacheContext {
  counters: CacheCounterDelta | null;
  expectedShare: number | null;
  flush?: CacheFlush | null;
}

/** Sums cached and prompt tokens over measured, successful requests, one record at a time. */
export class CacheTally {
  private cached = 0;
  private prompt = 0;
  private reporting = 0;
  private measured = 0;

  /** Call with successful measured records only. */
  add(r: RequestRecord): void {
    this.measured++;
    if (r.cachedInputTokens === undefined || r.cachedInputTokens === null) return;
    this.reporting++;
    this.cached += r.cachedInputTokens;
    this.prompt += inputTokens(r);
  }

  /** The evidence, or undefined when there is nothing to say (no context, no request reported). */
  finish(ctx: CacheContext | undefined): CacheEvidence | undefined {
    if (!ctx && this.reporting === 0) return undefined;
    const base = { reporting: this.reporting, measured: this.measured };
    const extra = {
      ...(ctx?.counters ? { counters: ctx.counters } : {}),
      ...(ctx?.expectedShare != null ? { expectedShare: ctx.expectedShare } : {}),
      ...(ctx?.flush ? { flush: ctx.flush } : {}),
    };
    const found = (source: CacheEvidence['source'], cached: number, prompt: number): CacheEvidence => ({
      share: cached / prompt,
      source,
      cachedTokens: cached,
      promptTokens: prompt,
      ...base,
      ...extra,
    });
    if (this.reporting > 0 && this.prompt > 0) return found('per-request', this.cached, this.prompt);
    const c = ctx?.counters;
    if (c && c.queryTokens > 0 && c.hitTokens >= 0 && c.hitTokens <= c.queryTokens)
      return found('metrics-counters', c.hitTokens, c.queryTokens);
    return { share: null, source: null, cachedTokens: null, promptTokens: null, ...base, ...extra };
  }
}

/** `{ cache }` when there is evidence, else nothing (the summary field stays absent). */
export function withCache(c: CacheEvidence | undefined): { cache?: CacheEvidence } {
  return c ? { cache: c } : {};
}

/** "41% of prompt tokens (per request: 96/96 requests reported)" — the words every format uses. */
export function cacheShareText(c: CacheEvidence | undefined): string {
  if (!c) return 'unknown (not recorded)';
  const expected =
    c.expectedShare !== undefined ? `; ${(c.expectedShare * 100).toFixed(1)}% expected by the workload` : '';
  const flushed = c.flush ? `; ${flushText(c.flush)}` : '';
  if (c.share === null)
    return `unknown (the server reported no cached tokens per request and exposed no prefix-cache counters)${expected}${flushed}`;
  return `${(c.share * 100).toFixed(1)}% of prompt tokens (${cacheSourceText(c)})${expected}${flushed}`;
}

/** "flushed before the level (POST /flush_cache)", or why it was not. */
export function flushText(f: CacheFlush): string {
  return f.flushed
    ? `flushed before the level (${f.how})`
    : `not flushed before the level (${f.how}: ${f.evidence})`;
}

/** Where the share came from, e.g. "per request, 96/96 reported" or "counters sglang:cached_tokens_total / …". */
export function cacheSourceText(c: CacheEvidence): string {
  if (c.source === 'per-request') return `per request, ${c.reporting}/${c.measured} reported`;
  if (c.source === 'metrics-counters' && c.counters)
    return `/metrics ${c.counters.source}: ${c.counters.hitTokens} of ${c.counters.queryTokens} tokens`;
  return 'not reported';
}
