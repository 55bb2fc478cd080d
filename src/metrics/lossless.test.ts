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
});
