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

describe('every bench flag that sets a plan key is named in its errors', () => {
  it.each([
    ['--cache', { load: { cache: 'sometimes' } }],
    ['--trials', { load: { trials: 0 } }],
    ['--salt', { workload: { salt: -1 } }],
  ])('%s', (flag, fragment) => {
    let err: unknown = null;
    try {
      resolvePlanWithFlags({}, fragment as never, { planPath: null, levelsFlag: '--concurrency' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BenchgateError);
    expect((err as BenchgateError).details.join('\n')).toContain(`${flag} (`);
  });
});
