import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Plan, planSchema } from '../plan/schema.js';
import { writeLosslessAnswers } from '../results/lossless-file.js';
import { judgeMatrixLossless, losslessBaseline } from './lossless-stage.js';

const plan = (lossless: Record<string, unknown> | undefined): Plan =>
  planSchema.parse({
    configs: [{ name: 'base' }, { name: 'spec' }],
    ...(lossless ? { lossless } : {}),
  });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-lossless-stage-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the matrix lossless stage', () => {
  it('takes the first config as baseline, a named one when given, and refuses an unknown name', () => {
    expect(losslessBaseline(plan(undefined), 'p.yaml')).toBeNull();
    expect(losslessBaseline(plan({ enabled: false }), 'p.yaml')).toBeNull();
    expect(losslessBaseline(plan({}), 'p.yaml')).toBe('base');
    expect(losslessBaseline(plan({ baseline: 'spec' }), 'p.yaml')).toBe('spec');
    expect(() => losslessBaseline(plan({ baseline: 'nope' }), 'p.yaml')).toThrow(
      'p.yaml: lossless.baseline expects one of the config names (base, spec); found "nope".',
    );
  });

  it('calls a config unknown (and invalid when required) when the baseline left no answers', async () => {
    const specDir = join(dir, 'spec');
    await mkdir(specDir, { recursive: true });
    writeLosslessAnswers(specDir, {
      schema: 'benchgate.lossless-answers/1',
      maxTokens: 2,
      seed: 1,
      answers: [{ prompt: 'p', ids: [1, 2], text: 'a b', error: null }],
    });
    const judged = await judgeMatrixLossless({
      plan: plan({ required: true }),
      baseline: 'base',
      baselineDir: join(dir, 'base'),
      configs: [{ name: 'spec', dir: specDir }],
    });
    expect(judged.lines[0]).toBe("lossless: greedy answers compared with base (the plan's lossless section)");
    expect(judged.lines[1]).toBe('lossless spec vs base: unknown: the baseline base has no lossless answers');
    expect(judged.invalid.map((i) => i.name)).toEqual(['spec']);
    const written = JSON.parse(await readFile(join(specDir, 'lossless.json'), 'utf8'));
    expect(written).toMatchObject({ valid: false, comparison: { verdict: 'unknown' } });
  });
});
