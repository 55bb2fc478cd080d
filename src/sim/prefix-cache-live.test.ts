import { describe, expect, it } from 'vitest';
import type { RequestTruth } from './simulator.js';
import { simulatorsClosedAfterEach } from './testing/fast-sim.js';
import { post } from './testing/sse.js';

const fast = simulatorsClosedAfterEach();
const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');
const prefix = words(2000, 'shared');

describe('the simulator prefix cache, served', () => {
  it('sglang: reports meta_info.cached_tokens and prefills less, so simulated TTFT falls', async () => {
    const { h } = await fast.sim();
    const gen = async (text: string) =>
      (await (await post(`${h.url}/generate`, { text, sampling_params: { max_new_tokens: 2 } })).json()) as {
        meta_info: { cached_tokens: number; prompt_tokens: number };
      };
    expect((await gen(`${prefix} ${words(50, 'a')}`)).meta_info.cached_tokens).toBe(0);
    const second = await gen(`${prefix} ${words(50, 'b')}`);
    expect(second.meta_info).toMatchObject({ cached_tokens: 2000, prompt_tokens: 2050 });
    const truth = (await (await fetch(`${h.url}/_sim/requests`)).json()) as { requests: RequestTruth[] };
    const ttftS = truth.requests.map((r) => (r.firstTokenSimS as number) - r.arrivalSimS);
    expect(ttftS[1]).toBeLessThan(ttftS[0] / 3);
  });

  it('sglang: --disable-radix-cache turns it off', async () => {
    const { h } = await fast.sim({ engineArgs: ['--disable-radix-cache'] });
    for (let i = 0; i < 2; i++) {
      const r = await post(`${h.url}/generate`, { text: prefix, sampling_params: { max_new_tokens: 1 } });
      expect(((await r.json()) as { meta_info: { cached_tokens: number } }).meta_info.cached_tokens).toBe(0);
    }
  });

  it('vllm: counts queried and hit prompt tokens in its prefix-cache counters (16-token blocks)', async () => {
    const { h } = await fast.sim({ flavor: 'vllm' });
    for (const s of ['x', 'y']) {
      await post(`${h.url}/v1/completions`, { model: 'm', prompt: `${words(100, 'p')} ${s}`, max_tokens: 1 });
    }
    const text = await (await fetch(`${h.url}/metrics`)).text();
    expect(text).toMatch(/^vllm:prefix_cache_queries_total\{[^}]*\} 202$/m);
    expect(text).toMatch(/^vllm:prefix_cache_hits_total\{[^}]*\} 96$/m);
  });

  it('sglang: counts cached and all prompt tokens in /metrics, so the cached share of a level is known on the OpenAI routes', async () => {
    const { h } = await fast.sim();
    for (const s of ['x', 'y'])
      await post(`${h.url}/v1/completions`, { model: 'm', prompt: `${words(100, 'p')} ${s}`, max_tokens: 1 });
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(value('sglang:prompt_tokens_total')).toBe(202);
    // page size 1: the second prompt finds its first 100 tokens
    expect(value('sglang:cached_tokens_total')).toBe(100);
  });

  it('llamacpp: splits prompt tokens into evaluated and reused from the cache, as llama-server counts them', async () => {
    const { h } = await fast.sim({ flavor: 'llamacpp', engineArgs: ['--metrics'] });
    const prompts: number[] = [];
    for (const s of ['x', 'y']) {
      const r = await post(`${h.url}/v1/completions`, {
        model: 'm',
        prompt: `${words(100, 'p')} ${s}`,
        max_tokens: 1,
      });
      prompts.push(((await r.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens);
    }
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^llamacpp:${name} (\\d+)$`, 'm').exec(text)?.[1]);
    // the second prompt reuses the first one's 100 shared words from the slot
    expect(value('prompt_tokens_cached_total')).toBeGreaterThanOrEqual(100);
    expect(value('prompt_tokens_total') + value('prompt_tokens_cached_total')).toBe(prompts[0] + prompts[1]);
  });
});
