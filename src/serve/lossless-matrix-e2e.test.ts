// A config that fails a required lossless check is invalid on every surface, end to end through the real
// CLI: a matrix of a baseline and an EAGLE-3 config whose draft path corrupts tokens from position 4 (the
// example lossless matrix, made small). `run` exits 1; the config is invalid and failed in `runs`, its
// dashboard page says why, Pareto strikes it off the frontier with the reason, and the matrix's HTML
// report carries the divergences (prompt, both continuations, the baseline's margin).

import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../cli/test-support/run-cli.js';
import { freeLoopbackPorts } from '../matrix/free-port.js';
import { simConfig, uniqueMarker } from '../matrix/test-support/matrix-fixtures.js';
import type { PlanInput } from '../plan/schema.js';
import { EAGLE3_TOPK1_ARGS } from '../sim/testing/fast-sim.js';
import { storeLocation } from '../store/store.js';
import { buildApp } from './app.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-lossless-surfaces-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a config failing a required lossless check', () => {
  it('is invalid in runs, the dashboard, Pareto and the HTML report, and run exits 1', async () => {
    const marker = uniqueMarker();
    const [p0, p1] = await freeLoopbackPorts(2);
    const plan: PlanInput = {
      name: 'lossless-surfaces',
      target: { engine: 'sglang', api: 'native' },
      workload: { input_tokens: { fixed: 16 }, output_tokens: { fixed: 32 }, ignore_eos: true },
      load: { kind: 'concurrency', levels: [1], requests: 12 }, // p50 needs 11 samples (Pareto's x)
      output: dir,
      expect: { config: { tp_size: 8 }, smoke: false },
      lossless: { prompts: 4, max_tokens: 16, required: true, seed: 2 },
      configs: [
        simConfig({ name: 'baseline', port: p0, marker, timeScale: 20 }),
        simConfig({
          name: 'broken',
          port: p1,
          marker,
          extra: [...EAGLE3_TOPK1_ARGS, '--fault', 'spec-diverge=4'],
          timeScale: 20, // slow enough for a TPOT above 0 ms: Pareto's x is 1000 / median TPOT
        }),
      ],
    };
    const planPath = join(dir, 'plan.yaml');
    await writeFile(planPath, stringify(plan));

    const r = await runCli(['run', planPath, '--yes', '--out', dir], { env: { BENCHGATE_STORE: '' } });
    expect(r.code, r.stderr).toBe(1);
    const matrixDir = join(dir, readdirSync(dir).find((e) => e.startsWith('lossless-surfaces-'))!);
    const stored = JSON.parse(readFileSync(join(matrixDir, 'broken', 'validity.json'), 'utf8'));
    expect(stored.validity.status).toBe('invalid');

    // runs: invalid and failed; the baseline is not
    const listed = await runCli(['runs', '--results', dir, '--format', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as {
      id: string;
      name: string;
      validity: string;
      status: string;
    }[];
    const broken = rows.find((x) => x.name === 'broken')!;
    expect(broken).toMatchObject({ validity: 'invalid', status: 'failed' });
    expect(rows.find((x) => x.name === 'baseline')?.validity).not.toBe('invalid');

    // the dashboard: the run page says why; Pareto strikes it off the frontier with the reason
    const app = buildApp({ location: storeLocation({ results: dir }, {}) });
    const page = await (await app.request(`/run?id=${encodeURIComponent(broken.id)}`)).text();
    expect(page).toContain('Lossless check against baseline: diverges early on 4 of 4 prompts');
    const pareto = await (await app.request(`/pareto?matrix=${encodeURIComponent(matrixDir)}`)).text();
    const table = pareto.slice(pareto.indexOf('<table id="pareto"'));
    const brokenRow = table.split('<tr>').find((row) => row.includes('>broken<'))!;
    expect(brokenRow).toContain('<s>');
    expect(brokenRow).toContain('off the frontier: Lossless check against baseline');
    expect(brokenRow).not.toContain('★ frontier');

    // the matrix's HTML report: the config is left out with its divergences shown
    const html = readFileSync(join(matrixDir, 'report', 'report.html'), 'utf8');
    expect(html).toContain('broken');
    expect(html).toMatch(/prompt 1 diverges at token 4 of 16 \(baseline top-1\/top-2 margin \d+\.\d+ nats/);
    expect(html).toContain('invalid (lossless.required)');
  }, 300_000);
});
