import { describe, expect, it } from 'vitest';
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

  it('reports a missing fact as unknown, never as false, except for absent', () => {
    expect(judgeExpectation(false, undefined)).toEqual({
      outcome: 'unknown',
      expected: 'false',
      found: 'unknown',
    });
    expect(judgeExpectation({ present: true }, undefined).outcome).toBe('unknown');
    expect(judgeExpectation({ absent: true }, undefined).outcome).toBe('pass');
    expect(judgeExpectation({ absent: true }, fact('x')).outcome).toBe('fail');
  });
});
