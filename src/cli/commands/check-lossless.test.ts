import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../sim/api.js';
import { startSimulator } from '../../sim/index.js';
import { EAGLE3_TOPK1_ARGS } from '../../sim/testing/fast-sim.js';
import { runCli } from '../test-support/run-cli.js';

// The real CLI against simulators started here: record a reference from a baseline server, then
// re-verify speculative servers against it.
const check = (args: string[]) => runCli(['check', ...args]);

const sims: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function server(engineArgs: readonly string[], faults: string[] = []): Promise<string> {
  const s = await startSimulator({
    profile: 'fixed',
    ttftMs: 2,
    itlMs: 1,
    loadTimeS: 0,
    engineArgs: [...engineArgs],
    faults,
  });
  sims.push(s);
  await s.ready;
  return s.url;
}

describe('benchgate check with a lossless reference', () => {
  it('records a reference, passes a clean speculative server and fails a diverging one with both continuations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-check-lossless-'));
    const ref = join(dir, 'reference.json');
    const plan = (name: string, url: string, lossless: string) => {
      const p = join(dir, name);
      writeFileSync(
        p,
        `target: { url: ${url}, api: native }\noutput: ${dir}/results\nexpect: { smoke: false }\nlossless: { prompts: 4, max_tokens: 16${lossless} }\n`,
      );
      return p;
    };

    const rec = await check([plan('record.yaml', await server([]), ''), '--record-reference', ref]);
    expect(rec.code).toBe(0);
    expect(rec.stdout).toContain('Lossless reference recorded');
    const saved = JSON.parse(readFileSync(ref, 'utf8'));
    expect(saved.answers).toHaveLength(4);
    expect(saved.answers[0].ids).toHaveLength(16);

    const clean = await check([
      plan('clean.yaml', await server(EAGLE3_TOPK1_ARGS), `, reference: ${ref}, required: true`),
    ]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('identical on 4 of 4 prompts');

    const broken = await check([
      plan(
        'broken.yaml',
        await server(EAGLE3_TOPK1_ARGS, ['spec-diverge=3']),
        `, reference: ${ref}, required: true`,
      ),
      '--format',
      'markdown',
    ]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('diverges early on 4 of 4 prompts (earliest at token 3 of 16');
    expect(broken.stdout).toContain('reference:');
    expect(broken.stdout).toContain('server:');
  });

  it('a missing reference file is a failed check naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-check-lossless-'));
    const p = join(dir, 'p.yaml');
    writeFileSync(
      p,
      `target: { url: ${await server([])}, api: native }\noutput: ${dir}/results\nexpect: { smoke: false }\nlossless: { reference: ${dir}/none.json }\n`,
    );
    const r = await check([p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`Expected a benchgate lossless reference`);
    expect(r.stdout).toContain(`${dir}/none.json`);
  });
});
