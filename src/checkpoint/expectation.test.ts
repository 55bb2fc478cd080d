import { describe, expect, it } from 'vitest';
import { canonicalFactValue } from '../engines/facts.js';
import { judgeExpectation } from './expectation.js';

const fact = (value: string | number | boolean | null) => ({ value, source: 'GET /server_info' });

describe('judgeExpectation', () => {
  it('treats a bare value as equals, across string/number/boolean spellings', () => {
    expect(judgeExpectation(8, fact('8')).outcome).toBe('pass');
    expect(judgeExpectation(true, fact('True')).outcome).toBe('pass');
    expect(judgeExpectation('EAGLE3', fact('EAGLE')).outcome).toBe('fail');
    expect(judgeExpectation(false, fact(true))).toEqual({
      outcome: 'fail',
      expected: 'false',
      found: 'true',
    });
  });

  it('supports one_of, >=, <= and regex', () => {
    expect(judgeExpectation({ one_of: [1, 4] }, fact(4)).outcome).toBe('pass');
    expect(judgeExpectation({ '>=': 8 }, fact(4))).toMatchObject({
      outcome: 'fail',
      expected: '>= 8',
      found: '4',
    });
    expect(judgeExpectation({ '<=': 256 }, fact(128)).outcome).toBe('pass');
    expect(judgeExpectation({ regex: '^Qwen/' }, fact('Qwen/Qwen3-8B')).outcome).toBe('pass');
    expect(judgeExpectation({ regex: '(' }, fact('x')).outcome).toBe('fail');
  });

  it('reports a missing fact as unknown, never as false, for absent too (absent means the engine said none)', () => {
    expect(judgeExpectation(false, undefined)).toEqual({
      outcome: 'unknown',
      expected: 'false',
      found: 'unknown',
    });
    expect(judgeExpectation({ present: true }, undefined).outcome).toBe('unknown');
    expect(judgeExpectation({ absent: true }, undefined).outcome).toBe('unknown');
    expect(judgeExpectation({ absent: true }, fact(null)).outcome).toBe('pass');
    expect(judgeExpectation({ absent: true }, fact('x')).outcome).toBe('fail');
  });

  it('compares a key in its canonical form, whatever case or spelling the plan uses', () => {
    expect(judgeExpectation('eagle3', fact('EAGLE3'), 'speculative.algorithm').outcome).toBe('pass');
    expect(
      judgeExpectation({ one_of: ['eagle', 'Eagle3'] }, fact('EAGLE3'), 'speculative.algorithm').outcome,
    ).toBe('pass');
    expect(judgeExpectation({ regex: '^eagle' }, fact('EAGLE3'), 'speculative.algorithm').outcome).toBe(
      'pass',
    );
    expect(judgeExpectation('torch.bfloat16', fact('bfloat16'), 'dtype').outcome).toBe('pass');
    expect(judgeExpectation('float16', fact('bfloat16'), 'dtype').outcome).toBe('fail');
    // SGLang starts a NEXTN server as EAGLE: a plan naming NEXTN passes on what the server reports
    expect(judgeExpectation('NEXTN', fact('EAGLE'), 'speculative.algorithm').outcome).toBe('pass');
    expect(judgeExpectation('nextn', fact('EAGLE3'), 'speculative.algorithm').outcome).toBe('fail');
    // vLLM (from 2025-09-26) starts a deepseek_mtp server as mtp; SGLang's FROZEN_KV_MTP stays itself
    // (facts are stored in the canonical form, as setFact stores them)
    const stored = (v: string) => fact(canonicalFactValue('speculative.algorithm', v));
    expect(judgeExpectation('deepseek_mtp', stored('mtp'), 'speculative.algorithm').outcome).toBe('pass');
    expect(judgeExpectation('MTP', stored('qwen3_next_mtp'), 'speculative.algorithm').outcome).toBe('pass');
    expect(judgeExpectation('MTP', stored('FROZEN_KV_MTP'), 'speculative.algorithm').outcome).toBe('fail');
    // SGLang promotes EAGLE/NEXTN to FROZEN_KV_MTP for a Gemma4 assistant draft: met, and said so
    const gemma = judgeExpectation('NEXTN', stored('FROZEN_KV_MTP'), 'speculative.algorithm');
    expect(gemma).toMatchObject({ outcome: 'pass' });
    expect(gemma.found).toBe(
      '"FROZEN_KV_MTP" (SGLang runs EAGLE and NEXTN as FROZEN_KV_MTP for a Gemma4 assistant draft)',
    );
    expect(judgeExpectation('EAGLE3', stored('FROZEN_KV_MTP'), 'speculative.algorithm').outcome).toBe('fail');
    // keys without a canonical case stay exact
    expect(judgeExpectation('org/Model', fact('org/model'), 'model').outcome).toBe('fail');
  });
});
