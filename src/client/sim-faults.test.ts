// Every failure code the simulator can provoke, seen through the real client and the real adapters.

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../engines/index.js';
import { startSimulator } from '../sim/index.js';
import { type StreamTimeouts, streamRequest } from './stream-request.js';
import { planDefaultTimeouts } from './test-support/timeouts.js';

async function oneRequest(faults: string[], timeouts: Partial<StreamTimeouts> = {}, simTtftMs = 5) {
  const sim = await startSimulator({
    flavor: 'vllm',
    profile: 'fixed',
    ttftMs: simTtftMs,
    itlMs: 2,
    loadTimeS: 0,
    port: 0,
    host: '127.0.0.1',
    faults,
  });
  try {
    await sim.ready;
    const models = (await (await fetch(`${sim.url}/v1/models`)).json()) as { data: { id: string }[] };
    const request = getAdapter('vllm').requestFor({
      api: 'completions',
      model: models.data[0].id,
      prompt: 'one two three',
      maxTokens: 12,
      ignoreEos: true,
      temperature: 0,
      stream: true,
    });
    return await streamRequest({
      baseUrl: sim.url,
      request,
      originMs: performance.now(),
      id: 0,
      levelIndex: 0,
      warmup: false,
      requestedOutputTokens: 12,
      timeouts: planDefaultTimeouts(timeouts),
    });
  } finally {
    await sim.close();
  }
}

describe('simulator faults become stable error codes', () => {
  it('no fault: a clean record with server per-chunk counts', async () => {
    const r = await oneRequest([]);
    expect(r.error).toBeNull();
    expect(r.outputTokensServer).toBe(12);
    expect(r.chunkTokens.reduce((a, b) => a + b, 0)).toBe(12);
  });

  it('stall-stream (goes quiet halfway) → BG_E_STALL_TIMEOUT, keeping the chunks that arrived', async () => {
    const r = await oneRequest(['stall-stream'], { stallMs: 150 });
    expect(r.error?.code).toBe('BG_E_STALL_TIMEOUT');
    expect(r.chunkMs.length).toBeGreaterThan(0);
  });

  it('TTFT timeout shorter than the first token → BG_E_TTFT_TIMEOUT', async () => {
    const r = await oneRequest([], { ttftMs: 50 }, 1000);
    expect(r.error?.code).toBe('BG_E_TTFT_TIMEOUT');
  });

  it('malformed-chunk → BG_E_MALFORMED_CHUNK', async () => {
    const r = await oneRequest(['malformed-chunk']);
    expect(r.error?.code).toBe('BG_E_MALFORMED_CHUNK');
  });

  it('reset-mid-stream → BG_E_STREAM_TRUNCATED', async () => {
    const r = await oneRequest(['reset-mid-stream']);
    expect(r.error?.code).toBe('BG_E_STREAM_TRUNCATED');
  });

  it('http-errors=1 → BG_E_HTTP_STATUS with the body', async () => {
    const r = await oneRequest(['http-errors=1']);
    expect(r.error?.code).toBe('BG_E_HTTP_STATUS');
    expect(r.httpStatus).toBeGreaterThanOrEqual(500);
    expect(r.error?.message.length).toBeGreaterThan(20);
  });
});
