// Replies that do not end where they should: a stream that ignores max_tokens is read only up to a
// bound and failed with what it measured kept; a non-streamed reply bigger than the byte cap fails
// with an excerpt instead of being read whole (a 1.8 GB /v1/models was seen).

import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAdapter } from '../engines/index.js';
import type { SimulatorHandle } from '../sim/api.js';
import { startSimulator } from '../sim/index.js';
import { destroyAgents, streamRequest } from './stream-request.js';
import { outputTokenBound } from './stream-run.js';
import { createTargetHttp } from './target-http.js';
import { planDefaultTimeouts } from './test-support/timeouts.js';

async function simWith(faults: string[]): Promise<SimulatorHandle> {
  const sim = await startSimulator({
    flavor: 'vllm',
    profile: 'fixed',
    ttftMs: 2,
    itlMs: 1,
    loadTimeS: 0,
    faults,
  });
  await sim.ready;
  return sim;
}

describe('a stream that ignores max_tokens', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await simWith(['ignore-max-tokens']);
  });
  afterAll(async () => {
    destroyAgents();
    await sim.close();
  });

  it('is failed with BG_E_OUTPUT_OVERRUN at the bound, keeping the chunks it measured', async () => {
    const maxTokens = 12;
    const request = getAdapter('vllm').requestFor({
      api: 'completions',
      model: 'benchgate/fixed-timing',
      prompt: 'one two three',
      maxTokens,
      ignoreEos: true,
      temperature: 0,
      stream: true,
    });
    const r = await streamRequest({
      baseUrl: sim.url,
      request,
      originMs: performance.now(),
      id: 0,
      levelIndex: 0,
      warmup: false,
      requestedOutputTokens: maxTokens,
      timeouts: planDefaultTimeouts(),
    });
    const bound = outputTokenBound(maxTokens);
    expect(r.error?.code).toBe('BG_E_OUTPUT_OVERRUN');
    expect(r.error?.message).toContain(`max_tokens ${maxTokens}`);
    const counted = r.chunkTokens.reduce((a, b) => a + b, 0);
    expect(counted).toBeGreaterThan(bound);
    expect(counted).toBeLessThanOrEqual(bound + 1);
    expect(r.chunkMs.length).toBe(r.chunkTokens.length);
    // the server was left: it generated about the bound, not its 12,000 tokens
    await new Promise((res) => setTimeout(res, 100));
    const truth = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as {
      requests: { completionTokens: number }[];
    };
    expect(truth.requests.at(-1)?.completionTokens).toBeLessThan(bound + 50);
  });
});

describe('a non-streamed reply over the byte cap', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await simWith(['huge-models=48']);
  });
  afterAll(async () => {
    destroyAgents();
    await sim.close();
  });

  it('fails closed with BG_E_REPLY_TOO_LARGE and an excerpt, holding at most the cap', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const doc = await createTargetHttp(sim.url, { maxReplyBytes: 1024 * 1024 }).request('/v1/models');
    expect(doc.status).toBeNull();
    expect(doc.json).toBeUndefined();
    expect(doc.error?.code).toBe('BG_E_REPLY_TOO_LARGE');
    expect(doc.error?.message).toContain('GET /v1/models sent more than 1 MiB');
    expect(doc.error?.message).toContain('{\\"object\\":\\"list\\"');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('the default cap (32 MiB) stops a 48 MiB model list too', async () => {
    const doc = await createTargetHttp(sim.url).request('/v1/models');
    expect(doc.error?.code).toBe('BG_E_REPLY_TOO_LARGE');
    expect(doc.error?.message).toContain('more than 32 MiB');
  });

  it('other endpoints of the same server still answer over the control channel', async () => {
    const doc = await createTargetHttp(sim.url).request('/health');
    expect(doc.status).toBe(200);
  });
});
