// The simulated prefix cache: SGLang's radix cache and vLLM's automatic prefix caching as one model.
// Prompts are cut into blocks (SGLang: page_size tokens, default 1; vLLM: 16-token blocks); a block is
// identified by the hash of every token up to its end, so a block hits only when the whole prefix
// before it matches. Hits are prompt tokens the scheduler does not prefill, so TTFT falls with them.
// Eviction is least-recently-used over a capacity in tokens (the KV pool). At least one prompt token
// is always computed, as both engines do, so a fully cached prompt still reports length − 1 hits.
// A finished request's prompt plus its output is inserted too (SGLang caches a finished request's
// whole sequence in its radix tree, vLLM keeps full blocks of generated tokens, llama.cpp's slot keeps
// them): a conversation's next turn, which starts with this prompt and this reply, then hits both.

import type { ServedConfig } from './served-config.js';

export interface PrefixCacheStats {
  /** Prompt tokens looked up and found, summed over requests (vLLM prefix_cache_queries / hits). */
  queryTokens: number;
  hitTokens: number;
}

export class PrefixCache {
  private readonly blocks = new Map<number, true>();
  readonly stats: PrefixCacheStats = { queryTokens: 0, hitTokens: 0 };

  constructor(
    readonly blockTokens: number,
    private readonly capacityBlocks: number,
  ) {}

  /** Cached tokens for this prompt, then the prompt is inserted (its blocks become most recent). */
  lookupAndInsert(ids: readonly number[]): number {
    const hits = this.walk(ids);
    const cached = Math.max(0, Math.min(hits, ids.length - 1));
    this.stats.queryTokens += ids.length;
    this.stats.hitTokens += cached;
    return cached;
  }

  /** A finished request's whole sequence (prompt, then output) joins the cache; not counted as a query. */
  insertFinished(promptIds: readonly number[], outputIds: readonly number[]): void {
    this.walk(outputIds.length === 0 ? promptIds : [...promptIds, ...outputIds]);
  }

  /** Empties the cache (a flush or slot erase); returns the tokens it held. */
  clear(): number {
    const tokens = this.blocks.size * this.blockTokens;
    this.blocks.clear();
    return tokens;
  }

  /** Marks every full block of `ids` most recent (inserting the missing ones); returns the leading hits. */
  private walk(ids: readonly number[]): number {
    const B = this.blockTokens;
    let h = 0x811c9dc5;
    let hits = 0;
    let missed = false;
    for (let end = B; end <= ids.length; end += B) {
      for (let i = end - B; i < end; i++) h = Math.imul(h ^ ids[i], 0x01000193) >>> 0;
      const key = h;
      if (!missed && this.blocks.has(key)) hits = end;
      else missed = true;
      this.blocks.delete(key);
      this.blocks.set(key, true);
    }
    while (this.blocks.size > this.capacityBlocks) {
      const oldest = this.blocks.keys().next().value as number;
      this.blocks.delete(oldest);
    }
    return hits;
  }
}

/** The engine's prefix cache as configured, or null when the engine has it off (or has none). */
export function prefixCacheFor(served: ServedConfig): PrefixCache | null {
  const a = served.engineArgs;
  const capacity = Math.max(1, served.maxTotalNumTokens);
  if (served.flavor === 'sglang') {
    if (a.disable_radix_cache === true) return null;
    const page = Math.max(1, Number(a.page_size ?? 1));
    return new PrefixCache(page, Math.floor(capacity / page));
  }
  if (served.flavor === 'vllm') {
    if (a.enable_prefix_caching === false) return null;
    return new PrefixCache(16, Math.floor(capacity / 16));
  }
  if (served.flavor === 'llamacpp') {
    // slot prompt reuse (cache_prompt, on by default): modelled as a token-granular prefix cache
    return new PrefixCache(1, capacity);
  }
  return null;
}
