// The real CLI (check and bench, in its own process) against the simulator's llamacpp flavour, with
// and without a draft model: the behaviours a real llama-server was checked for, covered without it.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.js';
import { startSimulatorProcess } from '../session/simulator-process.js';
import type { SimulatorHandle } from '../sim/api.js';

const cli = runCli;

const BASE = ['-m', 'main.gguf', '--metrics', '-np', '4', '-c', '2048'];

describe('benchgate against the llamacpp simulator flavour', () => {
  let spec: SimulatorHandle;
  let plain: SimulatorHandle;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bg-llamacpp-'));
    const o = { flavor: 'llamacpp' as const, profile: 'dense-8b-1gpu', timeScale: 50, loadTimeS: 0 };
    spec = await startSimulatorProcess({
      ...o,
      engineArgs: [...BASE, '-md', 'draft.gguf', '--spec-type', 'draft-simple'],
    });
    plain = await startSimulatorProcess({ ...o, engineArgs: BASE });
    await Promise.all([spec.ready, plain.ready]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([spec?.close(), plain?.close()]);
  });

  const checkJson = async (url: string, config: string, smoke = true) => {
    const p = join(dir, `check-${url.replace(/\D/g, '')}.yaml`);
    writeFileSync(
      p,
      `target: { url: ${url} }\nworkload: { output_tokens: { fixed: 32 } }\noutput: ${dir}/results\nexpect:\n  smoke: ${smoke}\n  config:\n${config}`,
    );
    const r = await cli(['check', p, '--json']);
    const doc = JSON.parse(r.stdout);
    const failed = (doc.findings as { id: string; status: string }[]).filter((f) => f.status === 'fail');
    return { code: r.code, doc, failed: JSON.stringify(failed) };
  };
  const finding = (doc: { findings: { id: string; status: string }[] }, id: string) =>
    doc.findings.find((f) => f.id === id);

  it('check: engine, speculative on, per-slot n_ctx, and acceptance above 1', async () => {
    const { code, doc, failed } = await checkJson(
      spec.url,
      '    speculative.algorithm: draft-simple\n    context_length: 512\n',
    );
    expect(code, failed).toBe(0);
    expect(doc.verifiedTarget.engine).toBe('llamacpp');
    expect(doc.verifiedTarget.config['llamacpp.speculative'].value).toBe(true);
    expect(finding(doc, 'config.speculative.algorithm')?.status).toBe('pass');
    expect(finding(doc, 'config.context_length')?.status).toBe('pass');
    expect(finding(doc, 'smoke.acceptance')?.status).toBe('pass');
    // named by the field it came from, not SGLang's meta_info
    const where = doc.findings.find((f: { id: string }) => f.id === 'smoke.acceptance').evidence[0].where;
    expect(where).toMatch(/^timings\.draft_n_accepted of the smoke request/);
    expect(where).not.toMatch(/meta_info/);
  }, 120_000);

  it('check: no draft model reads as speculation absent, and an expectation of it fails', async () => {
    const ok = await checkJson(plain.url, '    speculative.algorithm: null\n', false);
    expect(ok.code, ok.failed).toBe(0);
    expect(ok.doc.verifiedTarget.config['speculative.algorithm'].value).toBeNull();
    const wrong = await checkJson(plain.url, '    speculative.algorithm: draft-simple\n', false);
    expect(wrong.code).toBe(1);
    expect(finding(wrong.doc, 'config.speculative.algorithm')?.status).toBe('fail');
  }, 120_000);

  it('bench: server prompt tokens equal the requested length, and acceptance length is reported', async () => {
    const out = join(dir, 'runs');
    const r = await cli([
      'bench',
      '--url',
      spec.url,
      '--concurrency',
      '1,4',
      '--requests',
      '8',
      '--input-tokens',
      '64',
      '--output-tokens',
      '32',
      '--out',
      out,
      '--json',
    ]);
    expect(r.code).toBe(0);
    const run = join(out, readdirSync(out)[0]);
    const records = readFileSync(join(run, 'requests.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { inputTokensServer: number; specVerifySteps: number | null; error: unknown },
      );
    expect(records.length).toBeGreaterThanOrEqual(16);
    for (const rec of records) {
      expect(rec.error).toBeNull();
      expect(rec.inputTokensServer).toBe(64);
      expect(rec.specVerifySteps).toBeGreaterThan(0);
    }
    const summary = JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8')) as {
      levels: { speculative: { acceptanceLength: number } | null }[];
    };
    for (const level of summary.levels) expect(level.speculative?.acceptanceLength).toBeGreaterThan(1);
  }, 120_000);
});
