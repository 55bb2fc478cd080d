import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle, SimulatorOptions } from './api.js';
import { startSimulator } from './index.js';
import { post, sseEvents } from './testing/sse.js';

const handles: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function fixedSim(o: SimulatorOptions = {}) {
  const h = await startSimulator({
    flavor: 'vllm',
    profile: 'fixed',
    loadTimeS: 0,
    ttftMs: 0,
    itlMs: 0,
    tokensPerChunk: 1,
    ...o,
  });
  handles.push(h);
  await h.ready;
  return h;
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
}

describe('fixed profile at itl 0 (fastest mode)', () => {
  it('still sends one SSE event per chunk, each carrying tokens-per-chunk tokens, for concurrent streams', async () => {
    const h = await fixedSim({ tokensPerChunk: 3 });
    const maxTokens = 100; // more chunks than one loop run emits per stream
    const streams = await Promise.all(
      Array.from({ length: 8 }, () =>
        post(`${h.url}/v1/chat/completions`, {
          model: 'm',
          messages: [{ role: 'user', content: 'a b c' }],
          max_tokens: maxTokens,
          stream: true,
          stream_options: { include_usage: true, continuous_usage_stats: true },
        }).then(sseEvents),
      ),
    );
    for (const events of streams) {
      expect(events.at(-1)).toBe('[DONE]');
      const parsed = events.slice(0, -1).map((e) => JSON.parse(e));
      const tokenEvents = parsed.slice(1, -1);
      expect(parsed[0].choices[0].delta.role).toBe('assistant');
      expect(tokenEvents).toHaveLength(Math.ceil(maxTokens / 3));
      const counts = tokenEvents.map((e) => e.usage.completion_tokens);
      counts.forEach((n: number, i: number) => {
        expect(n).toBe(Math.min(maxTokens, 3 * (i + 1)));
      });
      expect(tokenEvents.map((e) => e.choices[0].delta.content.trim().split(' ').length)).toEqual(
        counts.map((n: number, i: number) => n - (i === 0 ? 0 : counts[i - 1])),
      );
      expect(parsed.at(-1).usage.completion_tokens).toBe(maxTokens);
    }
    expect(await metric(h.url, 'vllm:num_requests_running')).toBe(0);
    expect(await metric(h.url, 'vllm:kv_cache_usage_perc')).toBe(0);
  });

  it('releases the KV of a stream cut in the middle of a burst (reset-mid-stream)', async () => {
    const h = await fixedSim({ faults: ['reset-mid-stream'] });
    await expect(
      post(`${h.url}/v1/completions`, { model: 'm', prompt: 'a b', max_tokens: 200, stream: true }).then(
        (r) => r.text(),
      ),
    ).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 50));
    expect(await metric(h.url, 'vllm:num_requests_running')).toBe(0);
    expect(await metric(h.url, 'vllm:kv_cache_usage_perc')).toBe(0);
  });
});
