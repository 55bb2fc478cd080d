// `benchgate compare` of one-trial runs and run-to-run noise, through the real CLI: no confident verdict
// without an estimate; earlier runs of the same config, workload and host in the results store give one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FixtureRun, specs, writeRunDir } from '../../report/test-support.js';
import { runCli } from '../test-support/run-cli.js';

const root = await mkdtemp(join(tmpdir(), 'bg-cli-compare-noise-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** A one-trial run of config `tp` whose requests take e2eMs. */
const run = (name: string, tp: number, e2eMs: number): FixtureRun => ({
  name,
  config: { model: 'm', tp_size: tp },
  varies: ['tp_size'],
  levels: [4].map((c) => ({ concurrency: c, specs: specs(200, { e2eMs, ttftMs: e2eMs / 10, width: 0.1 }) })),
});

describe('compare of one-trial runs', () => {
  it('draws no confident verdict without a run-to-run noise estimate, and says how to get one', async () => {
    const results = join(root, 'bare');
    const a = await writeRunDir(results, run('base', 1, 1000));
    const b = await writeRunDir(results, run('fast', 2, 800));
    const r = await runCli(['compare', a, b, '--iterations', '200', '--metric', 'output_throughput']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'No confident verdict: one trial per run covers request-to-request noise only',
    );
    expect(r.stdout).toContain('--trials 3');
    expect(r.stdout).toMatch(
      /fast vs base: higher output throughput \(\+25% at 4, CI .*\), but run-to-run noise is unknown/,
    );
    expect(r.stdout).not.toContain('fast has higher output throughput');
  });

  it('measures the spread of earlier runs of each config in the results store and draws the verdict', async () => {
    const results = join(root, 'with-history');
    const earlier = [0.99, 1, 1.01];
    for (const [i, f] of earlier.entries()) {
      await writeRunDir(results, run(`base-${i}`, 1, 1000 * f));
      await writeRunDir(results, run(`fast-${i}`, 2, 800 * f));
    }
    const a = await writeRunDir(results, run('base', 1, 1000));
    const b = await writeRunDir(results, run('fast', 2, 800));
    const indexed = await runCli(['index', results]);
    expect(indexed.code, indexed.stderr).toBe(0);
    const r = await runCli(['compare', a, b, '--iterations', '200', '--metric', 'output_throughput']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('fast has higher output throughput than base at concurrency 4');
    expect(r.stdout).toContain(
      'widened by a run-to-run noise estimate (3 earlier runs of the same config, workload and host in the results store)',
    );
  });

  it('refuses a --run-noise that is not a percentage, naming the flag', async () => {
    const results = join(root, 'bad');
    const a = await writeRunDir(results, run('base', 1, 1000));
    const b = await writeRunDir(results, run('fast', 2, 800));
    const r = await runCli(['compare', a, b, '--run-noise', 'lots']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--run-noise expects the run-to-run standard deviation in percent');
  });
});
