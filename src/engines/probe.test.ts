import { describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { startFixtureServer } from './fixture-server.js';
import { salvageTruncatedObject } from './probe.js';
import { sglangAdapter } from './sglang.js';
import { tgiAdapter } from './tgi.js';

// Bodies cut mid-way, as a paste or a proxy limit leaves them: the complete fields a correct reader
// keeps, and the field it must drop because its value may be cut.
const TRUNCATED: { name: string; body: string; kept: Record<string, unknown>; dropped: string | null }[] = [
  {
    name: 'SGLang /server_info cut inside a key',
    body: '{"model_path": "Qwen/Qwen3-8B", "tp_size": 8, "speculative_alg',
    kept: { model_path: 'Qwen/Qwen3-8B', tp_size: 8 },
    dropped: 'speculative_alg',
  },
  {
    name: 'a number that may be cut short (16 → 1)',
    body: '{"dp_size": 2, "max_running_requests": 1',
    kept: { dp_size: 2 },
    dropped: 'max_running_requests',
  },
  {
    name: 'llama.cpp /props cut inside a nested object',
    body: '{"total_slots": 4, "model_path": "/m/q.gguf", "default_generation_settings": {"n_ctx": 8192, "params": {"top_k": 4',
    kept: { total_slots: 4, model_path: '/m/q.gguf' },
    dropped: 'default_generation_settings',
  },
  {
    name: 'TGI /info with JSON literals before the cut',
    body: '{"model_id": "m", "model_dtype": "torch.float16", "max_best_of": null, "sharded": true, "version": "3.',
    kept: { model_id: 'm', model_dtype: 'torch.float16', max_best_of: null, sharded: true },
    dropped: 'version',
  },
];

describe('salvageTruncatedObject', () => {
  it.each(TRUNCATED)('$name', (c) => {
    const r = salvageTruncatedObject(c.body);
    expect(r?.json).toEqual(c.kept);
    expect(r?.truncated.droppedKey).toBe(c.dropped);
  });

  it('salvages nothing from a complete body or from text that is not an object', () => {
    expect(salvageTruncatedObject('{"a": 1}')).toBeNull();
    expect(salvageTruncatedObject('<html>502 Bad Gateway')).toBeNull();
    expect(salvageTruncatedObject('')).toBeNull();
  });
});

describe('live reads of truncated bodies', () => {
  it('keep the complete fields and say the body was truncated (SGLang, TGI)', async () => {
    const server = await startFixtureServer({
      '/server_info': { body: TRUNCATED[0].body },
      '/info': { body: TRUNCATED[3].body },
    });
    try {
      const http = createTargetHttp(server.url);
      const sg = await sglangAdapter.readLive(http);
      expect(sg.facts.tp_size?.value).toBe(8);
      expect(sg.facts['speculative.algorithm']).toBeUndefined();
      expect(sg.facts['sglang.truncated_body']?.value).toContain('GET /server_info was truncated');
      const tgi = await tgiAdapter.readLive(http);
      expect(tgi.facts.dtype?.value).toBe('float16');
      expect(tgi.facts['tgi.truncated_body']?.value).toContain('"version"');
    } finally {
      await server.close();
    }
  });
});
