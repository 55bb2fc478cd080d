import { describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { startFixtureServer } from './fixture-server.js';
import { ADAPTERS, detectEngine, getAdapter } from './index.js';

async function detectFor(routes: Record<string, object>) {
  const server = await startFixtureServer(routes);
  try {
    return await detectEngine(createTargetHttp(server.url));
  } finally {
    await server.close();
  }
}

describe('engine registry', () => {
  it('has one adapter per engine name', () => {
    for (const [name, adapter] of Object.entries(ADAPTERS)) expect(adapter.name).toBe(name);
    expect(getAdapter('vllm')).toBe(ADAPTERS.vllm);
  });
});

describe('detectEngine', () => {
  it('trusts /v1/models owned_by when it names an engine', async () => {
    expect(await detectFor({ '/v1/models': { data: [{ id: 'a', owned_by: 'vllm' }] } })).toBe('vllm');
    expect(await detectFor({ '/v1/models': { data: [{ id: 'a', owned_by: 'sglang' }] } })).toBe('sglang');
    expect(await detectFor({ '/v1/models': { data: [{ id: 'a', owned_by: 'llamacpp' }] } })).toBe('llamacpp');
  });

  it('falls back to engine-specific endpoints', async () => {
    expect(await detectFor({ '/get_model_info': { model_path: '/m' } })).toBe('sglang');
    expect(await detectFor({ '/version': { version: '0.6.0' } })).toBe('vllm');
    expect(await detectFor({ '/props': { total_slots: 1 } })).toBe('llamacpp');
    expect(await detectFor({ '/info': { model_id: 'x', router: 'text-generation-router' } })).toBe('tgi');
  });

  it("says 'openai' for anything else, including an unreachable target", async () => {
    expect(await detectFor({ '/v1/models': { data: [{ id: 'a', owned_by: 'acme' }] } })).toBe('openai');
    expect(await detectEngine(createTargetHttp('http://127.0.0.1:9', { timeoutMs: 500 }))).toBe('openai');
  });
});
