// The shared-prefix workload: G groups of prompts, each prompt its group's prefix of P tokens plus a
// unique suffix, so a server's prefix cache (SGLang radix cache, vLLM automatic prefix caching,
// llama.cpp slot reuse) decides TTFT. One priming prompt per group is sent before the level, unmeasured,
// so the measured requests find their prefix cached; the expected hit rate is what a cache that keeps
// every prefix would give, reported beside the rate the server says it observed.

import { seededRng } from '../core/seeded-random.js';
import type { TokenLength } from '../plan/schema.js';
import { type PromptItem, randomPrompt, saltedSeed, sampleLength } from './prompts.js';
import type { PromptTokenizer } from './tokenizer.js';

export interface SharedPrefixSpec {
  groups: number;
  prefixTokens: number;
  /** Unique suffix length per request. */
  suffixTokens: TokenLength;
  outputTokens: TokenLength;
  seed: number;
  /** The run's salt: other words for the prefixes and suffixes, the same lengths (see prompts.ts). */
  salt?: number;
}

export interface SharedPrefixPrompts {
  /** One prompt per group, sent first and not measured. */
  priming: PromptItem[];
  /** Request i belongs to group i mod G. */
  measured: PromptItem[];
  /** Σ prefix tokens / Σ prompt tokens over the measured prompts: the hit rate of a cache keeping every prefix. */
  expectedHitRate: number;
}

export async function buildSharedPrefixPrompts(
  spec: SharedPrefixSpec,
  count: number,
  levelIndex: number,
  tokenizer: PromptTokenizer,
): Promise<SharedPrefixPrompts> {
  const rng = seededRng(spec.seed * 1_000_003 + levelIndex * 7919 + 17);
  const ratio = { tokensPerWord: 1 };
  const words = () => seededRng(saltedSeed(Math.floor(rng() * 2 ** 32), spec.salt));
  const prefixes: { prompt: string; tokens: number }[] = [];
  for (let g = 0; g < spec.groups; g++)
    prefixes.push(await randomPrompt(spec.prefixTokens, words(), tokenizer, ratio));
  const one = async (g: number): Promise<PromptItem> => {
    const suffixTokens = sampleLength(spec.suffixTokens, rng);
    const outputTokens = sampleLength(spec.outputTokens, rng);
    const suffix = await randomPrompt(suffixTokens, words(), tokenizer, ratio);
    const prompt = `${prefixes[g].prompt} ${suffix.prompt}`;
    return { prompt, inputTokens: await tokenizer.count(prompt), outputTokens };
  };
  const priming: PromptItem[] = [];
  for (let g = 0; g < spec.groups; g++) priming.push(await one(g));
  const measured: PromptItem[] = [];
  for (let i = 0; i < count; i++) measured.push(await one(i % spec.groups));
  const prefixSum = measured.reduce((a, _, i) => a + prefixes[i % spec.groups].tokens, 0);
  const totalSum = measured.reduce((a, p) => a + p.inputTokens, 0);
  return { priming, measured, expectedHitRate: totalSum > 0 ? Math.min(1, prefixSum / totalSum) : 0 };
}
