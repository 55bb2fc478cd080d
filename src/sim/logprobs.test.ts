import { describe, expect, it } from 'vitest';
import { greedyTokenId, greedyTokenIds } from './greedy-tokens.js';
import { answerLogprobs, logprobAsk, logprobFields } from './logprobs.js';

describe('simulated logprobs', () => {
  it('read what each API asks for', () => {
    expect(logprobAsk('native', { return_logprob: true, top_logprobs_num: 2 })).toBe(2);
    expect(logprobAsk('native', { top_logprobs_num: 2 })).toBeNull();
    expect(logprobAsk('completions', { logprobs: 3 })).toBe(3);
    expect(logprobAsk('chat', { logprobs: true, top_logprobs: 2 })).toBe(2);
    expect(logprobAsk('chat', { logprobs: false, top_logprobs: 2 })).toBeNull();
  });

  it('look like a confident model: most top-1/top-2 margins are wide, a few are near-ties', () => {
    const margins: number[] = [];
    for (let key = 1; key <= 500; key++) {
      const ids = greedyTokenIds(key, 0, 16, null);
      for (const t of answerLogprobs(key, ids, 2)) margins.push(t.top[0].logprob - t.top[1].logprob);
    }
    margins.sort((a, b) => a - b);
    const median = margins[margins.length >> 1];
    const nearTies = margins.filter((m) => m < 0.25).length / margins.length;
    expect(median).toBeGreaterThan(1);
    expect(median).toBeLessThan(3);
    expect(nearTies).toBeGreaterThan(0.01);
    expect(nearTies).toBeLessThan(0.1);
    expect(margins[0]).toBeGreaterThanOrEqual(0);
  });

  it("rank the greedy token first, and give a corrupted draft token a low logprob outside the model's top list", () => {
    const key = 1234;
    const clean = answerLogprobs(key, greedyTokenIds(key, 0, 8, null), 2);
    expect(
      clean.every((t, pos) => t.top[0].id === greedyTokenId(key, pos) && t.logprob === t.top[0].logprob),
    ).toBe(true);
    const broken = answerLogprobs(key, greedyTokenIds(key, 0, 8, 4), 2);
    expect(broken[4].top.map((r) => r.id)).toEqual(clean[4].top.map((r) => r.id));
    expect(broken[4].logprob).toBeLessThan(Math.log(0.02));
  });

  it("render each API's shape", () => {
    const lps = answerLogprobs(7, [greedyTokenId(7, 0), greedyTokenId(7, 1)], 2);
    const native = logprobFields('native', lps) as { output_top_logprobs: unknown[][] };
    expect(native.output_top_logprobs[0]).toEqual([
      [lps[0].top[0].logprob, lps[0].top[0].id, null],
      [lps[0].top[1].logprob, lps[0].top[1].id, null],
    ]);
    const comp = logprobFields('completions', lps) as { tokens: string[]; text_offset: number[] };
    expect(comp.text_offset).toEqual([0, comp.tokens[0].length]);
    const chat = logprobFields('chat', lps) as { content: { top_logprobs: unknown[] }[] };
    expect(chat.content[1].top_logprobs).toHaveLength(2);
  });
});
