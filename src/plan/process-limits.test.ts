import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BenchgateError } from '../core/errors.js';
import { loadPlanFile, parsePlanText, resolvePlan } from './load.js';
import { inFlightProblem, MAX_LEVELS, parseOpenFilesLimit, processLimits } from './process-limits.js';

const dir = await mkdtemp(join(tmpdir(), 'bg-limits-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

function planError(run: () => unknown): BenchgateError {
  try {
    run();
  } catch (e) {
    if (e instanceof BenchgateError) return e;
    throw e;
  }
  throw new Error('the plan was accepted');
}

describe('plans asking for more than one process can hold', () => {
  it('rejects a concurrency level beyond the open-file limit or memory, naming key, line and limit', () => {
    const e = planError(() => parsePlanText('load:\n  levels: [1, 100000000]\n', 'p.yaml'));
    expect(e.code).toBe('BG_E_PLAN_INVALID');
    expect(e.details).toHaveLength(1);
    expect(e.details[0]).toMatch(/^p\.yaml:2:15 load\.levels\[1\]: 100000000 requests in flight need /);
    // the limit that applies here: ulimit -n when /proc says it, else memory
    const { openFiles } = processLimits();
    expect(e.details[0]).toContain(
      openFiles === null ? 'client memory' : `open ${openFiles} files (ulimit -n)`,
    );
  });

  it('rejects an open-loop max_concurrency beyond the limit, and names the flag that set a level', () => {
    const e = planError(() =>
      parsePlanText('load: { kind: rate, levels: [5], max_concurrency: 100000000 }\n', 'p.yaml'),
    );
    expect(e.details[0]).toMatch(/^p\.yaml:1:51 load\.max_concurrency: 100000000 requests in flight/);
    const f = planError(() =>
      resolvePlan({ load: { levels: [100000000] } }, 'command line', {
        flags: { 'load.levels': '--concurrency' },
      }),
    );
    expect(f.details[0]).toMatch(/^command line --concurrency \(load\.levels\[0\]\): 100000000 requests/);
  });

  it('says which limit binds: descriptors first, then memory', () => {
    expect(inFlightProblem(1000, { openFiles: 256, memoryBytes: 2 ** 33, cores: 2 })).toContain(
      'at most 192',
    );
    expect(inFlightProblem(1000, { openFiles: null, memoryBytes: 2 ** 20, cores: 2 })).toContain(
      'at most 16;',
    );
    expect(inFlightProblem(100, { openFiles: 1024, memoryBytes: 2 ** 33, cores: 2 })).toBeNull();
    expect(
      parseOpenFilesLimit('Max open files            20000                20000                files\n'),
    ).toBe(20000);
    expect(parseOpenFilesLimit('Max open files  unlimited  unlimited  files\n')).toBeNull();
  });

  it('caps the number of levels', () => {
    const levels = Array.from({ length: MAX_LEVELS + 1 }, (_, i) => i + 1).join(', ');
    const e = planError(() => parsePlanText(`load: { kind: rate, levels: [${levels}] }\n`, 'p.yaml'));
    expect(e.details).toEqual([
      `p.yaml:1:21 load.levels: ${MAX_LEVELS + 1} levels listed; at most ${MAX_LEVELS} are allowed`,
    ]);
  });

  it('ends a 10 MB plan with 1.7 M levels in a plan error, not an internal error', async () => {
    const path = join(dir, 'huge.yaml');
    const levels = Array.from({ length: 1_700_000 }, (_, i) => (i % 9000) + 1000).join(', ');
    await writeFile(path, `load:\n  levels: [${levels}]\n`);
    await expect(loadPlanFile(path)).rejects.toThrow(
      new RegExp(`^plan ${path} is 9\\.7 MiB; a plan may be at most 1 MiB`),
    );
  });
});
