import { describe, expect, it } from 'vitest';
import type { SimulatorOptions } from './api.js';
import { startSimulator } from './index.js';
import type { RequestTruth } from './simulator.js';
import { EAGLE3_TOPK1_ARGS, simulatorsClosedAfterEach } from './testing/fast-sim.js';
import { post, sseEvents } from './testing/sse.js';

interface Chunk {
  choices: { finish_reason: string | null; delta: { role?: string } }[];
  usage?: { completion_tokens: number; prompt_tokens: number; total_tokens: number };
}

const fast = simulatorsClosedAfterEach();
const closeAfterTest = fast.closeAfterTest;
const sim = async (o: SimulatorOptions = {}) => (await fast.sim(o)).h;
const EAGLE = [...EAGLE3_TOPK1_ARGS];

describe('sglang flavour surfaces', () => {
  it('answers /health 503 while the model loads, then 200', async () => {
    // long enough that a busy machine still asks before loading ends
    const h = closeAfterTest(await startSimulator({ loadTimeS: 3 }));
    expect(h.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${h.url}/health`)).status).toBe(503);
    await h.ready;
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
    expect((await fetch(`${h.url}/health_generate`)).status).toBe(200);
  });

  it('serves the served configuration at /server_info and /get_server_info', async () => {
    const h = await sim({
      engineArgs: ['--tp-size', '8', ...EAGLE, '--speculative-draft-model-path', 'org/draft'],
    });
    // SGLang reports the average accept length only once a verify step has run
    const before = (await (await fetch(`${h.url}/server_info`)).json()) as Record<string, unknown>;
    expect((before.internal_states as Record<string, unknown>[])[0]).not.toHaveProperty(
      'avg_spec_accept_length',
    );
    await post(`${h.url}/generate`, { text: 'a b', sampling_params: { max_new_tokens: 8 } }).then((r) =>
      r.json(),
    );
    for (const path of ['/server_info', '/get_server_info']) {
      const info = (await (await fetch(h.url + path)).json()) as Record<string, unknown>;
      expect(info).toMatchObject({
        tp_size: 8,
        dp_size: 1,
        max_running_requests: 48,
        disable_overlap_schedule: true,
        speculative_algorithm: 'EAGLE3',
        speculative_draft_model_path: 'org/draft',
        speculative_num_steps: 3,
        speculative_eagle_topk: 1,
        speculative_num_draft_tokens: 4,
        port: h.port,
      });
      for (const k of [
        'model_path',
        'served_model_name',
        'dtype',
        'quantization',
        'context_length',
        'version',
        'max_total_num_tokens',
      ]) {
        expect(info).toHaveProperty(k);
      }
      const states = info.internal_states as Record<string, unknown>[];
      expect(states[0]).toHaveProperty('avg_spec_accept_length');
    }
  });

  it('serves model info and the OpenAI model list', async () => {
    const h = await sim({ engineArgs: ['--model-path', 'org/m', '--served-model-name', 'm'] });
    const mi = (await (await fetch(`${h.url}/get_model_info`)).json()) as Record<string, unknown>;
    expect(mi).toMatchObject({ model_path: 'org/m', is_generation: true });
    expect((await fetch(`${h.url}/model_info`)).status).toBe(200);
    const models = (await (await fetch(`${h.url}/v1/models`)).json()) as { data: Record<string, unknown>[] };
    // SGLang's ModelCard roots the entry at the served name (vLLM's at the model path)
    expect(models.data[0]).toMatchObject({ id: 'm', root: 'm', object: 'model', owned_by: 'sglang' });
  });

  it('streams /generate as cumulative text with cumulative completion_tokens, several tokens per chunk under EAGLE, then [DONE]', async () => {
    const h = await sim({ engineArgs: EAGLE, seed: 7 });
    const events = await sseEvents(
      await post(`${h.url}/generate`, {
        text: 'one two three four',
        sampling_params: { max_new_tokens: 40 },
        stream: true,
      }),
    );
    expect(events.at(-1)).toBe('[DONE]');
    const parsed = events
      .slice(0, -1)
      .map((e) => JSON.parse(e) as { text: string; meta_info: Record<string, unknown> });
    const counts = parsed.map((p) => p.meta_info.completion_tokens as number);
    expect(counts.at(-1)).toBe(40);
    for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThan(counts[i - 1]);
    expect(counts.some((c, i) => i > 0 && c - counts[i - 1] > 1)).toBe(true);
    const last = parsed.at(-1)!;
    expect(last.text.trim().split(/\s+/)).toHaveLength(40);
    expect(last.meta_info).toMatchObject({
      prompt_tokens: 4,
      cached_tokens: 0,
      finish_reason: { type: 'length', length: 40 },
    });
    expect(last.meta_info.spec_verify_ct as number).toBeGreaterThan(0);
    expect(last.meta_info.spec_accept_length as number).toBeGreaterThan(1);
    expect(last.meta_info.e2e_latency as number).toBeGreaterThan(0);
  });

  it('answers non-streaming /generate with one JSON body', async () => {
    const h = await sim();
    const body = (await (
      await post(`${h.url}/generate`, { text: 'a b c', sampling_params: { max_new_tokens: 5 } })
    ).json()) as {
      text: string;
      meta_info: Record<string, unknown>;
    };
    expect(body.meta_info).toMatchObject({ prompt_tokens: 3, completion_tokens: 5 });
    expect(body.meta_info).not.toHaveProperty('spec_verify_ct');
  });

  it('tokenizes consistently with the prompt_tokens it reports, and detokenizes', async () => {
    const h = await sim();
    const prompt = 'alpha beta gamma delta epsilon';
    const tok = (await (await post(`${h.url}/tokenize`, { prompt })).json()) as {
      tokens: number[];
      count: number;
    };
    expect(tok.count).toBe(5);
    const gen = (await (
      await post(`${h.url}/generate`, { text: prompt, sampling_params: { max_new_tokens: 1 } })
    ).json()) as {
      meta_info: { prompt_tokens: number };
    };
    expect(gen.meta_info.prompt_tokens).toBe(tok.count);
    const de = (await (await post(`${h.url}/detokenize`, { tokens: [1, 2, 3] })).json()) as { text: string };
    expect(de.text.split(' ')).toHaveLength(3);
  });

  it('streams /v1/completions with per-chunk usage and a final usage chunk when asked', async () => {
    const h = await sim();
    const events = await sseEvents(
      await post(`${h.url}/v1/completions`, {
        model: 'x',
        prompt: 'a b c d',
        max_tokens: 6,
        stream: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      }),
    );
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as Chunk);
    const final = chunks.at(-1)!;
    expect(final.choices).toEqual([]);
    expect(final.usage).toEqual({ prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 });
    const content = chunks.slice(0, -1);
    expect(content.every((c) => c.usage && typeof c.usage.completion_tokens === 'number')).toBe(true);
    expect(content.at(-1)!.choices[0].finish_reason).toBe('length');
  });

  it('sends no usage chunk without stream_options', async () => {
    const h = await sim();
    const events = await sseEvents(
      await post(`${h.url}/v1/chat/completions`, {
        model: 'x',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 3,
        stream: true,
      }),
    );
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as Chunk);
    expect(chunks.every((c) => c.usage === undefined)).toBe(true);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
  });

  it('exposes sglang metric names and types at /metrics', async () => {
    const h = await sim({ engineArgs: EAGLE });
    await post(`${h.url}/generate`, { text: 'a b', sampling_params: { max_new_tokens: 20 } });
    const text = await (await fetch(`${h.url}/metrics`)).text();
    for (const g of [
      'num_running_reqs',
      'num_queue_reqs',
      'token_usage',
      'gen_throughput',
      'spec_accept_length',
    ]) {
      expect(text).toContain(`# TYPE sglang:${g} gauge`);
    }
    expect(text).toContain('# TYPE sglang:prompt_tokens counter');
    expect(text).toMatch(/^sglang:generation_tokens_total\{.*\} 20$/m);
    expect(text).toMatch(/^process_start_time_seconds \d+/m);
  });

  it('answers /flush_cache and 404s an unknown path like FastAPI', async () => {
    const h = await sim();
    expect((await fetch(`${h.url}/flush_cache`, { method: 'POST' })).status).toBe(200);
    const nf = await fetch(`${h.url}/nope`);
    expect(nf.status).toBe(404);
    expect(await nf.json()).toEqual({ detail: 'Not Found' });
  });

  it('records server-side truth at /_sim/requests (fixed profile: every chunk carries tokensPerChunk tokens)', async () => {
    const h = await sim({ profile: 'fixed', timeScale: 1, ttftMs: 30, itlMs: 5, tokensPerChunk: 2 });
    await post(`${h.url}/v1/completions`, { model: 'x', prompt: 'a', max_tokens: 6, stream: true }).then(
      (r) => r.text(),
    );
    const truth = (await (await fetch(`${h.url}/_sim/requests`)).json()) as {
      requests: RequestTruth[];
      timeOriginEpochMs: number;
    };
    const r = truth.requests.at(-1)!;
    expect(r.chunkTokens).toEqual([2, 2, 2]);
    expect(r.chunkWriteMs[0] - r.arrivalMs).toBeGreaterThanOrEqual(29);
    expect(r.completionTokens).toBe(6);
    expect(truth.timeOriginEpochMs).toBeGreaterThan(0);
  });

  it('rejects a request longer than the context with a 400 error body', async () => {
    const h = await sim({ engineArgs: ['--context-length', '10'] });
    const res = await post(`${h.url}/v1/completions`, { model: 'x', prompt: 'a b c d e f', max_tokens: 8 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { object: string }).object).toBe('error');
  });

  it('refuses a busy port with one clear sentence', async () => {
    const h = await sim();
    await expect(startSimulator({ port: h.port })).rejects.toThrowError(
      `Expected port ${h.port} on 127.0.0.1 to be free; it is already in use.`,
    );
  });
});
