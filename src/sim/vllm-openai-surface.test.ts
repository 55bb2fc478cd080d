import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle, SimulatorOptions } from './api.js';
import { startSimulator } from './index.js';

const handles: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function sim(o: SimulatorOptions) {
  const h = await startSimulator({ timeScale: 1000, loadTimeS: 0, ...o });
  handles.push(h);
  await h.ready;
  return h;
}

const SPEC = '{"method":"eagle3","model":"org/draft","num_speculative_tokens":3}';

describe('vllm flavour surfaces', () => {
  it('serves /health, /version and /v1/models with id, root and max_model_len', async () => {
    const h = await sim({ flavor: 'vllm', engineArgs: ['--model', 'org/m', '--max-model-len', '4096'] });
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    expect(((await (await fetch(`${h.url}/version`)).json()) as { version: string }).version).toMatch(
      /^\d+\.\d+/,
    );
    const models = (await (await fetch(`${h.url}/v1/models`)).json()) as { data: Record<string, unknown>[] };
    expect(models.data[0]).toMatchObject({
      id: 'org/m',
      root: 'org/m',
      max_model_len: 4096,
      owned_by: 'vllm',
    });
    expect((await fetch(`${h.url}/generate`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it("answers errors in each engine's body and refuses over-long requests at each engine's boundary", async () => {
    const completion = (url: string, maxTokens: number) =>
      fetch(`${url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', prompt: 'a b c d', max_tokens: maxTokens }),
      });
    // vLLM: {"error": {...}}; a total of exactly max_model_len is allowed
    const vllm = await sim({ flavor: 'vllm', engineArgs: ['--max-model-len', '64'] });
    expect((await completion(vllm.url, 60)).status).toBe(200);
    const tooLong = await completion(vllm.url, 61);
    expect(tooLong.status).toBe(400);
    const body = (await tooLong.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'BadRequestError', code: 400, param: null });
    expect(String(body.error.message)).toContain("This model's maximum context length is 64 tokens.");
    // SGLang: {"object": "error", ...}; a total equal to the context length is already refused
    const sglang = await sim({ flavor: 'sglang', engineArgs: ['--context-length', '64'] });
    expect((await completion(sglang.url, 59)).status).toBe(200);
    const atLimit = await completion(sglang.url, 60);
    expect(atLimit.status).toBe(400);
    expect(await atLimit.json()).toMatchObject({ object: 'error', code: 400, type: 'BadRequestError' });
  });

  it('exposes vllm metric names including speculative-decoding counters and cache_config_info labels', async () => {
    const h = await sim({ flavor: 'vllm', engineArgs: ['--speculative-config', SPEC] });
    await fetch(`${h.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'x', prompt: 'a b', max_tokens: 30 }),
    });
    const text = await (await fetch(`${h.url}/metrics`)).text();
    for (const n of ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc']) {
      expect(text).toContain(`# TYPE ${n} gauge`);
    }
    expect(text).toMatch(/^vllm:cache_config_info\{.*block_size="16".*num_gpu_blocks="\d+".*\} 1$/m);
    const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
    const drafts = value('vllm:spec_decode_num_drafts_total');
    const accepted = value('vllm:spec_decode_num_accepted_tokens_total');
    expect(drafts).toBeGreaterThan(0);
    expect(value('vllm:spec_decode_num_draft_tokens_total')).toBe(drafts * 3);
    // 30 tokens = 1 from prefill + one per draft + accepted draft tokens
    expect(1 + drafts + accepted).toBe(30);
    expect(text).toMatch(/^vllm:spec_decode_num_accepted_tokens_per_pos_total\{.*position="0"\} \d+$/m);
  });

  it('serves /server_info only when VLLM_SERVER_DEV_MODE=1', async () => {
    const off = await sim({ flavor: 'vllm', env: {} });
    expect((await fetch(`${off.url}/server_info`)).status).toBe(404);
    const on = await sim({
      flavor: 'vllm',
      env: { VLLM_SERVER_DEV_MODE: '1' },
      engineArgs: ['--speculative-config', SPEC],
    });
    const info = (await (await fetch(`${on.url}/server_info`)).json()) as { vllm_config: string };
    expect(info.vllm_config).toContain("speculative_config=SpeculativeConfig(method='eagle3'");
  });

  it('tokenizes chat messages consistently with the prompt tokens of a chat completion', async () => {
    const h = await sim({ flavor: 'vllm' });
    const messages = [{ role: 'user', content: 'how many tokens is this' }];
    const tok = (await (
      await fetch(`${h.url}/tokenize`, { method: 'POST', body: JSON.stringify({ messages }) })
    ).json()) as {
      count: number;
    };
    const chat = (await (
      await fetch(`${h.url}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'x', messages, max_tokens: 2 }),
      })
    ).json()) as { usage: { prompt_tokens: number } };
    expect(chat.usage.prompt_tokens).toBe(tok.count);
  });
});

describe('the official openai client', () => {
  for (const flavor of ['sglang', 'vllm', 'openai'] as const) {
    it(`streams chat and completions from the ${flavor} flavour without error`, async () => {
      const h = await sim({ flavor });
      const client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'sk-test-not-a-secret' });
      const chat = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 12,
        stream: true,
        stream_options: { include_usage: true },
      });
      let content = '';
      let usage: { completion_tokens: number } | null | undefined = null;
      for await (const c of chat) {
        content += c.choices[0]?.delta?.content ?? '';
        if (c.usage) usage = c.usage;
      }
      expect(content.trim().split(/\s+/)).toHaveLength(12);
      expect(usage?.completion_tokens).toBe(12);
      const comp = await client.completions.create({
        model: 'm',
        prompt: 'a b c',
        max_tokens: 5,
        stream: true,
      });
      let text = '';
      for await (const c of comp) text += c.choices[0]?.text ?? '';
      expect(text.trim().split(/\s+/)).toHaveLength(5);
    });
  }

  it('serves only the OpenAI surface in the openai flavour', async () => {
    const h = await sim({ flavor: 'openai' });
    expect((await fetch(`${h.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${h.url}/v1/models`)).status).toBe(200);
  });
});
