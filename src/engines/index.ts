// The engine registry: look an adapter up by name, or detect the engine behind a URL with cheap GETs.
// Adding an engine is adding one adapter file and one line in ADAPTERS.

import { llamacppAdapter } from './llamacpp.js';
import { openaiAdapter } from './openai.js';
import { getJsonObject, modelsOwnedBy } from './probe.js';
import { sglangAdapter } from './sglang.js';
import { tgiAdapter } from './tgi.js';
import type { EngineAdapter, EngineName, SpecCounters, TargetHttp } from './types.js';
import { vllmAdapter } from './vllm.js';

export const ADAPTERS: Readonly<Record<EngineName, EngineAdapter>> = {
  sglang: sglangAdapter,
  vllm: vllmAdapter,
  llamacpp: llamacppAdapter,
  tgi: tgiAdapter,
  openai: openaiAdapter,
};

/** Order in which engines are probed; the generic OpenAI adapter is the fallback. */
export const DETECTION_ORDER: readonly EngineName[] = ['sglang', 'vllm', 'llamacpp', 'tgi'];

export function getAdapter(name: EngineName): EngineAdapter {
  return ADAPTERS[name];
}

const OWNED_BY_ENGINE: Record<string, EngineName> = { sglang: 'sglang', vllm: 'vllm', llamacpp: 'llamacpp' };

/**
 * Identifies the engine serving `http.baseUrl`. First `/v1/models` `owned_by` (one GET), then each
 * adapter's own probe in DETECTION_ORDER; 'openai' when nothing more specific answers.
 */
export async function detectEngine(http: TargetHttp): Promise<EngineName> {
  const { json } = await getJsonObject(http, '/v1/models');
  const owner = modelsOwnedBy(json);
  if (owner && owner in OWNED_BY_ENGINE) return OWNED_BY_ENGINE[owner];
  for (const name of DETECTION_ORDER) {
    if (await ADAPTERS[name].detect(http)) return name;
  }
  return 'openai';
}

/** Scrapes /metrics once and reads the engine's speculative-decoding counters; null when unavailable. */
export async function scrapeSpecCounters(
  http: TargetHttp,
  adapter: EngineAdapter,
): Promise<SpecCounters | null> {
  const doc = await http.request('/metrics', { timeoutMs: 5000 });
  return doc.status === 200 && !doc.error ? adapter.specCounters(doc.text) : null;
}
