// The story profile must reproduce what the engineer sees on the real 8-GPU PCIe box: speculative
// decoding is not a free win, and concurrency beyond max running requests only queues.

import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle, SimulatorOptions } from './api.js';
import { startSimulator } from './index.js';
import { closedLoop } from './testing/closed-loop.js';

const handles: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function sim(engineArgs: string[], env: Record<string, string> = {}, extra: SimulatorOptions = {}) {
  const h = await startSimulator({
    profile: 'story-moe-int4-8xpcie',
    timeScale: 40,
    loadTimeS: 0,
    engineArgs,
    env,
    ...extra,
  });
  handles.push(h);
  await h.ready;
  return h;
}

const EAGLE = ['--speculative-algorithm', 'EAGLE3', '--speculative-draft-model-path', 'story/eagle3-head'];

describe('story profile model orderings', () => {
  it('EAGLE-3 top-k 4 (spec v1, overlap off) has lower output throughput than the baseline at high concurrency', async () => {
    const load = { concurrency: 256, requestsPerWorker: 2, maxTokens: 64, promptWords: 16 };
    const base = await closedLoop((await sim([])).url, load);
    const topk4 = await closedLoop(
      (
        await sim([
          ...EAGLE,
          '--speculative-eagle-topk',
          '4',
          '--speculative-num-steps',
          '3',
          '--speculative-num-draft-tokens',
          '8',
        ])
      ).url,
      load,
    );
    expect(topk4.meanAcceptLen).toBeGreaterThan(1.5);
    expect(topk4.outputTokensPerSimS).toBeLessThan(base.outputTokensPerSimS * 0.9);
  });

  it('EAGLE-3 top-k 1 with spec v2 beats the baseline at low concurrency', async () => {
    const load = { concurrency: 1, requestsPerWorker: 4, maxTokens: 64, promptWords: 16 };
    const base = await closedLoop((await sim([])).url, load);
    const v2 = await closedLoop(
      (
        await sim([...EAGLE, '--speculative-eagle-topk', '1', '--speculative-num-steps', '3'], {
          SGLANG_ENABLE_SPEC_V2: '1',
        })
      ).url,
      load,
    );
    expect(v2.outputTokensPerSimS).toBeGreaterThan(base.outputTokensPerSimS * 1.1);
  });

  it('throughput flattens and latency climbs once concurrency passes max running requests', async () => {
    const url = (await sim(['--max-running-requests', '16'])).url;
    const at16 = await closedLoop(url, {
      concurrency: 16,
      requestsPerWorker: 3,
      maxTokens: 48,
      promptWords: 32,
    });
    const at64 = await closedLoop(url, {
      concurrency: 64,
      requestsPerWorker: 3,
      maxTokens: 48,
      promptWords: 32,
    });
    expect(at64.outputTokensPerSimS).toBeLessThan(at16.outputTokensPerSimS * 1.25);
    expect(at64.meanLatencySimS).toBeGreaterThan(at16.meanLatencySimS * 2.5);
  });
});
