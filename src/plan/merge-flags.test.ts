import { describe, expect, it } from 'vitest';
import { BenchgateError } from '../core/errors.js';
import { mergePlanInput, resolvePlanWithFlags } from './merge-flags.js';

describe('flags over a plan file', () => {
  it('lets flags win key by key, keeps the file elsewhere, and replaces arrays whole', () => {
    const merged = mergePlanInput(
      { target: { url: 'http://a', model: 'm' }, load: { levels: [1, 2, 4] } },
      { target: { url: 'http://b' }, load: { levels: [8] } },
    );
    expect(merged).toEqual({ target: { url: 'http://b', model: 'm' }, load: { levels: [8] } });
  });

  it('names the flag the user typed when a flag value is invalid', () => {
    let err: unknown = null;
    try {
      resolvePlanWithFlags({}, { target: { engine: 'nope' } } as never, {
        planPath: null,
        levelsFlag: '--concurrency',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BenchgateError);
    expect((err as BenchgateError).details.join('\n')).toMatch(/--engine/);
  });
});
