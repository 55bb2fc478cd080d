// End to end through the real CLI: a matrix of three simulated SGLang servers (baseline, a clean
// EAGLE-3 config, and one whose draft path corrupts tokens from position 4) with a required lossless
// check. The clean config must be identical to the baseline; the broken one must diverge early, with
// the prompt and both continuations shown, and fail. Then a matrix with no lossless section at all:
// its configs differ in speculative settings, so the check runs anyway, with the baseline's logprob
// margin at each divergence saying bug, not numerics.

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { losslessPrompts } from '../checkpoint/lossless-prompts.js';
import { runCli } from '../cli/test-support/run-cli.js';
import type { PlanInput } from '../plan/schema.js';
import type { LosslessRecord } from '../results/lossless-file.js';
import { EAGLE3_TOPK1_ARGS } from '../sim/testing/fast-sim.js';
import { freeLoopbackPorts } from './free-port.js';
import { simConfig, uniqueMarker } from './test-support/matrix-fixtures.js';

const SPEC = [...EAGLE3_TOPK1_ARGS];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-lossless-e2e-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('benchgate run with a lossless check', () => {
  it('reports the spec-diverge config as diverging early with both continuations, the clean one as identical', async () => {
    const marker = uniqueMarker();
    const [p0, p1, p2] = await freeLoopbackPorts(3);
    const plan: PlanInput = {
      name: 'lossless',
      target: { engine: 'sglang', api: 'native' },
      workload: { input_tokens: { fixed: 16 }, output_tokens: { fixed: 8 }, ignore_eos: true },
      load: { kind: 'concurrency', levels: [1], requests: 2 },
      output: dir,
      expect: { config: { tp_size: 8 }, smoke: false },
      lossless: { prompts: 4, max_tokens: 16, required: true, seed: 2 },
      configs: [
        simConfig({ name: 'baseline', port: p0, marker }),
        simConfig({ name: 'eagle3', port: p1, marker, extra: SPEC }),
        simConfig({ name: 'broken', port: p2, marker, extra: [...SPEC, '--fault', 'spec-diverge=4'] }),
      ],
    };
    const planPath = join(dir, 'plan.yaml');
    await writeFile(planPath, stringify(plan));

    const r = await runCli(['run', planPath, '--yes', '--out', dir]);
    expect(r.code).toBe(1); // the broken config fails the required check
    expect(r.stdout).toContain('lossless eagle3 vs baseline: identical on 4 of 4 prompts');
    expect(r.stdout).toContain(
      'lossless broken vs baseline: diverges early on 4 of 4 prompts (earliest at token 4 of 16',
    );
    const prompt = losslessPrompts(4, 2)[0];
    // the simulator returns logprobs: the baseline's margin where the broken draft path diverged
    expect(r.stdout).toMatch(
      /prompt 1 diverges at token 4 of 16 \(baseline top-1\/top-2 margin \d+\.\d+ nats: (wide, a bug rather than numerics|a near-tie, numerics)\): /,
    );
    expect(r.stdout).toContain(`: ${JSON.stringify(prompt.slice(0, 119))}`);
    expect(r.stdout).toMatch(/ {4}baseline: +"/);
    expect(r.stdout).toMatch(/ {4}broken: +"/);
    // the comparison's own lossless section (broken is out of it: it failed)
    expect(r.stdout).toContain('Lossless (greedy answers vs baseline)');
    expect(r.stdout).toContain('  eagle3: identical on 4 of 4 prompts');

    const matrixDir = join(dir, (await readdir(dir)).find((e) => e.startsWith('lossless-'))!);
    const broken = JSON.parse(
      await readFile(join(matrixDir, 'broken', 'lossless.json'), 'utf8'),
    ) as LosslessRecord;
    expect(broken).toMatchObject({ valid: false, required: true, baseline: 'baseline' });
    expect(broken.comparison?.prompts[0]).toMatchObject({ unit: 'tokens', commonPrefix: 4, divergeAt: 4 });
    const clean = JSON.parse(
      await readFile(join(matrixDir, 'eagle3', 'lossless.json'), 'utf8'),
    ) as LosslessRecord;
    expect(clean).toMatchObject({ valid: true, comparison: { verdict: 'identical' } });
  });

  it('checks a baseline and a spec-diverge config without a lossless section, and reads the margin as a bug', async () => {
    const marker = uniqueMarker();
    const [p0, p1] = await freeLoopbackPorts(2);
    const plan: PlanInput = {
      name: 'lossless-default',
      target: { engine: 'sglang', api: 'native' },
      workload: { input_tokens: { fixed: 16 }, output_tokens: { fixed: 8 }, ignore_eos: true },
      load: { kind: 'concurrency', levels: [1], requests: 2 },
      output: dir,
      expect: { config: { tp_size: 8 }, smoke: false },
      configs: [
        // the speculative one first: the baseline is still the config without speculation
        simConfig({ name: 'broken', port: p1, marker, extra: [...SPEC, '--fault', 'spec-diverge=8'] }),
        simConfig({ name: 'baseline', port: p0, marker }),
      ],
    };
    const planPath = join(dir, 'plan-default.yaml');
    await writeFile(planPath, stringify(plan));

    const r = await runCli(['run', planPath, '--yes', '--out', dir]);
    expect(r.code).toBe(0); // not required: the divergence is reported, the config kept
    expect(r.stdout).toContain(
      'lossless: greedy answers compared with baseline (on by default: the configs differ in speculative settings (broken EAGLE3, baseline none); `lossless: false` turns it off)',
    );
    expect(r.stdout).toContain(
      'lossless broken vs baseline: diverges early on 16 of 16 prompts (earliest at token 8 of 64',
    );
    // the simulated model's margins are mostly wide: a corrupted draft path, not kernel numerics
    expect(r.stdout).toMatch(
      /the baseline's top-1\/top-2 margin at the first divergent token is wide on 1\d \(median \d+\.\d+ nats, ≥ 0\.25: a bug, not numerics\)/,
    );
    // every report of the matrix says so too
    const matrixDir = join(dir, (await readdir(dir)).find((e) => e.startsWith('lossless-default-'))!);
    const broken = JSON.parse(
      await readFile(join(matrixDir, 'broken', 'lossless.json'), 'utf8'),
    ) as LosslessRecord;
    expect(broken).toMatchObject({
      baseline: 'baseline',
      required: false,
      comparison: { verdict: 'diverges-early' },
    });
    const margins = broken.comparison?.prompts.map((p) => p.margin);
    expect(margins?.every((m) => m && m.nats > 0)).toBe(true);
    const md = await runCli([
      'compare',
      join(matrixDir, 'baseline'),
      join(matrixDir, 'broken'),
      '--format',
      'markdown',
    ]);
    expect(md.stdout).toContain('## Lossless (greedy answers vs baseline)');
    expect(md.stdout).toMatch(/\*\*broken\*\*: diverges early on 16 of 16 prompts .*a bug, not numerics/);
  });
});
