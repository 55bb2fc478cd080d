import { afterAll, describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { type SimulatorHandle, type SimulatorOptions, startSimulator } from '../sim/index.js';
import { flushLlamacpp, flushSglang, flushVllm } from './cache-flush.js';
import { startFixtureServer } from './fixture-server.js';

// Each engine's way of emptying its prefix cache, against the simulator's surface of that engine: what
// is sent, what counts as flushed, and what the user is told when the server offers no way.

const handles: SimulatorHandle[] = [];
afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
});

async function sim(opts: SimulatorOptions) {
  const h = await startSimulator({ host: '127.0.0.1', port: 0, loadTimeS: 0, timeScale: 50, ...opts });
  handles.push(h);
  await h.ready;
  return { h, http: createTargetHttp(h.url) };
}

/** Sends the same prompt twice, returning the cached tokens SGLang's native route says for the second. */
async function cachedOnRepeat(url: string): Promise<number> {
  const body = JSON.stringify({
    text: 'one two three four five six seven eight',
    sampling_params: { max_new_tokens: 2 },
  });
  await fetch(`${url}/generate`, { method: 'POST', body });
  const r = (await (await fetch(`${url}/generate`, { method: 'POST', body })).json()) as {
    meta_info: { cached_tokens: number };
  };
  return r.meta_info.cached_tokens;
}

describe('emptying the prefix cache before a level', () => {
  it('SGLang: POST /flush_cache empties the radix cache', async () => {
    const { h, http } = await sim({ flavor: 'sglang' });
    expect(await cachedOnRepeat(h.url)).toBeGreaterThan(0);
    const f = await flushSglang(http);
    expect(f).toMatchObject({ flushed: true, how: 'POST /flush_cache' });
    expect(f.evidence).toMatch(/^HTTP 200: Cache flushed\./);
    const body = JSON.stringify({
      text: 'one two three four five six seven eight',
      sampling_params: { max_new_tokens: 2 },
    });
    const again = (await (await fetch(`${h.url}/generate`, { method: 'POST', body })).json()) as {
      meta_info: { cached_tokens: number };
    };
    expect(again.meta_info.cached_tokens).toBe(0);
  });

  it('SGLang without /flush_cache (the Rust HTTP server) is not flushed, and is told why', async () => {
    const rust = await startFixtureServer({});
    try {
      const f = await flushSglang(createTargetHttp(rust.url));
      expect(f).toMatchObject({ flushed: false, how: 'POST /flush_cache' });
      expect(f.evidence).toMatch(/^HTTP 404/);
      expect(f.hint).toMatch(/SGLANG_RUST_SERVER=1/);
      expect(rust.requested).toEqual(['/flush_cache']);
    } finally {
      await rust.close();
    }
  });

  it('vLLM: /reset_prefix_cache only with VLLM_SERVER_DEV_MODE=1, otherwise says how to enable it', async () => {
    const off = await sim({ flavor: 'vllm', env: {} });
    const refused = await flushVllm(off.http);
    expect(refused).toMatchObject({ flushed: false, how: 'POST /reset_prefix_cache' });
    expect(refused.evidence).toMatch(/^HTTP 404/);
    expect(refused.hint).toMatch(/VLLM_SERVER_DEV_MODE=1/);
    const on = await sim({ flavor: 'vllm', env: { VLLM_SERVER_DEV_MODE: '1' } });
    expect(await flushVllm(on.http)).toMatchObject({ flushed: true, evidence: 'HTTP 200' });
  });

  it('llama.cpp: erases every slot with --slot-save-path; without it, the 501 and the flag to add', async () => {
    const off = await sim({ flavor: 'llamacpp', engineArgs: ['-np', '2'] });
    const refused = await flushLlamacpp(off.http);
    expect(refused).toMatchObject({ flushed: false, how: 'POST /slots/{0..1}?action=erase' });
    expect(refused.evidence).toMatch(/^slot 0: HTTP 501: .*--slot-save-path/);
    expect(refused.hint).toMatch(/--slot-save-path DIR/);
    const on = await sim({ flavor: 'llamacpp', engineArgs: ['-np', '2', '--slot-save-path', '/tmp/slots'] });
    const done = await flushLlamacpp(on.http);
    expect(done).toMatchObject({ flushed: true });
    expect(done.evidence).toMatch(/^2 slots erased, \d+ cached tokens dropped$/);
  });

  it('says the slots are unknown when /props does not give total_slots', async () => {
    const { http } = await sim({ flavor: 'sglang' });
    const f = await flushLlamacpp(http);
    expect(f).toMatchObject({ flushed: false });
    expect(f.evidence).toMatch(/no total_slots/);
  });
});
