import { describe, expect, it } from 'vitest';
import { compareLossless, type LosslessAnswer, type LosslessAnswers, losslessValidity } from './lossless.js';

const answers = (list: Partial<LosslessAnswer>[]): LosslessAnswers => ({
  schema: 'benchgate.lossless-answers/1',
  maxTokens: 8,
  seed: 1,
  answers: list.map((a) => ({ prompt: 'p', ids: null, text: '', error: null, ...a })),
});

const cmp = (b: LosslessAnswers, c: LosslessAnswers, lateShare = 0.5) =>
  compareLossless({
    baseline: { name: 'base', answers: b },
    candidate: { name: 'cand', answers: c },
    lateShare,
  });

describe('compareLossless', () => {
  it('finds the common prefix and first diverging token, early or late by the share of the answer', () => {
    const base = answers([{ ids: [1, 2, 3, 4, 5, 6, 7, 8], text: 'a b c d e f g h' }]);
    const early = cmp(base, answers([{ ids: [1, 2, 9, 9, 9, 9, 9, 9], text: 'a b x x x x x x' }]));
    expect(early.prompts[0]).toMatchObject({ commonPrefix: 2, divergeAt: 2, verdict: 'diverges-early' });
    expect(early.prompts[0].excerpt).toEqual({
      before: 'a b ',
      baseline: 'c d e f g h',
      candidate: 'x x x x x x',
    });
    const late = cmp(base, answers([{ ids: [1, 2, 3, 4, 9, 9, 9, 9], text: 'a b c d x x x x' }]));
    expect(late.prompts[0]).toMatchObject({ divergeAt: 4, verdict: 'diverges-late' });
    expect(losslessValidity(late, true)).toEqual({ valid: true, reason: null });
  });

  it('a shorter answer that is a prefix of the baseline diverges where it stops', () => {
    const c = cmp(answers([{ ids: [1, 2, 3, 4], text: 'a b c d' }]), answers([{ ids: [1], text: 'a' }]));
    expect(c.prompts[0]).toMatchObject({ commonPrefix: 1, divergeAt: 1, verdict: 'diverges-early' });
  });

  it('an unread answer or another prompt set is unknown, and only a required check invalidates', () => {
    const base = answers([
      { ids: [1], text: 'a' },
      { ids: [2], text: 'b' },
    ]);
    const c = cmp(base, answers([{ ids: [1], text: 'a' }, { error: 'HTTP 500' }]));
    expect(c.verdict).toBe('unknown');
    expect(losslessValidity(c, false).valid).toBe(true);
    expect(losslessValidity(c, true)).toMatchObject({ valid: false });
    expect(cmp(base, answers([{ prompt: 'other', ids: [1], text: 'a' }])).prompts[0].error).toContain(
      'prompts differ',
    );
  });

  it("reads the baseline's top-1/top-2 margin at the first divergent token: a near-tie is numerics, a wide margin a bug", () => {
    const lp = (top1: number, top2: number, token: string | null = null) => ({ token, top1, top2 });
    // by ids: the divergence at token 2, where the baseline's runner-up was 0.05 nats behind
    const base = answers([
      {
        ids: [1, 2, 3, 4],
        text: 'a b c d',
        logprobs: [lp(-0.1, -3), lp(-0.2, -2), lp(-0.7, -0.75), lp(-0.1, -4)],
      },
    ]);
    const tie = cmp(base, answers([{ ids: [1, 2, 9, 9], text: 'a b x x' }]));
    expect(tie.prompts[0].margin).toEqual({ nats: expect.closeTo(0.05, 9), nearTie: true });
    expect(tie.summary).toContain('a near-tie on 1 (median 0.050 nats, < 0.25: numerics)');
    // by text: the divergent character falls in the baseline's third token, whose margin is wide
    const text = answers([
      {
        text: ' a b c d',
        logprobs: [lp(-0.1, -3, ' a'), lp(-0.2, -2, ' b'), lp(-0.1, -2.6, ' c'), lp(-0.1, -4, ' d')],
      },
    ]);
    const wide = cmp(text, answers([{ text: ' a b x y' }]));
    expect(wide.prompts[0]).toMatchObject({ unit: 'characters', divergeAt: 5, margin: { nearTie: false } });
    expect(wide.prompts[0].margin?.nats).toBeCloseTo(2.5, 9);
    expect(wide.summary).toContain('wide on 1 (median 2.50 nats, ≥ 0.25: a bug, not numerics)');
    // no logprobs: the cause is unknown, said so
    const none = cmp(answers([{ ids: [1, 2], text: 'a b' }]), answers([{ ids: [1, 3], text: 'a c' }]));
    expect(none.prompts[0].margin).toBeNull();
    expect(none.summary).toContain('the baseline returned no logprobs there');
  });
});
