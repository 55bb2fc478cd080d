import { describe, expect, it } from 'vitest';
import { parseFaults } from './faults.js';
import { EAGLE3_TOPK1_ARGS, simulatorsClosedAfterEach } from './testing/fast-sim.js';
import { post } from './testing/sse.js';

const { sim } = simulatorsClosedAfterEach();

const PROMPT = 'Explain in two sentences why the sky is blue.';

/** Output ids of one greedy native /generate (not streamed) on a simulator with these flags and faults. */
async function greedyIds(
  engineArgs: readonly string[],
  faults: string[] = [],
  temperature = 0,
): Promise<number[]> {
  const { h } = await sim({ engineArgs: [...engineArgs], faults });
  const res = await post(`${h.url}/generate`, {
    text: PROMPT,
    sampling_params: { max_new_tokens: 24, temperature },
  });
  const body = (await res.json()) as { output_ids: number[]; text: string };
  expect(body.output_ids).toHaveLength(24);
  expect(body.text.trim().split(/\s+/)).toHaveLength(24);
  return body.output_ids;
}

describe('greedy output of the simulator', () => {
  it('gives the same tokens for the same prompt with and without speculative decoding', async () => {
    const baseline = await greedyIds([]);
    const speculative = await greedyIds(EAGLE3_TOPK1_ARGS);
    expect(speculative).toEqual(baseline);
  });

  it('spec-diverge=POS changes every token from POS under speculative decoding, and nothing without it', async () => {
    const baseline = await greedyIds([]);
    const broken = await greedyIds(EAGLE3_TOPK1_ARGS, ['spec-diverge=5']);
    expect(broken.slice(0, 5)).toEqual(baseline.slice(0, 5));
    for (let i = 5; i < 24; i++) expect(broken[i]).not.toBe(baseline[i]);
    expect(await greedyIds([], ['spec-diverge=5'])).toEqual(baseline);
  });

  it('sampled requests (temperature above 0) are not tied to the prompt', async () => {
    const a = await greedyIds([], [], 1);
    const b = await greedyIds([], [], 0);
    expect(a).not.toEqual(b);
  });

  it('refuses spec-diverge without a whole position', () => {
    expect(parseFaults(['spec-diverge=8']).specDivergeAt).toBe(8);
    expect(() => parseFaults(['spec-diverge'])).toThrow(/token position/);
    expect(() => parseFaults(['spec-diverge=1.5'])).toThrow(/token position/);
  });
});
