// A 48 MiB GET /v1/models (issue 33 item 9) from a real local server (the simulator's huge-models fault):
// the checkpoint's model finding carries the reply's coded failure as evidence, and `bench` ends with
// BG_E_REPLY_TOO_LARGE, never "could not reach the target" (BG_E_CONNECT) with nothing to show.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/test-support/run-cli.js';
import type { SimulatorHandle } from '../../sim/api.js';
import { startSimulator } from '../../sim/index.js';

const out = mkdtempSync(join(tmpdir(), 'bg-oversize-models-'));
let sim: SimulatorHandle;

beforeAll(async () => {
  sim = await startSimulator({
    host: '127.0.0.1',
    port: 0,
    loadTimeS: 0,
    flavor: 'vllm',
    faults: ['huge-models=48'],
  });
  await sim.ready;
});
afterAll(async () => {
  await sim?.close();
  rmSync(out, { recursive: true, force: true });
});

describe('an oversize /v1/models', () => {
  it('fails the model finding with BG_E_REPLY_TOO_LARGE and the reply it began with as evidence', async () => {
    const r = await runCli(['check', '--url', sim.url, '--format', 'json']);
    expect(r.code, r.stderr).toBe(1);
    const findings = JSON.parse(r.stdout).findings as {
      id: string;
      status: string;
      found: string;
      evidence: { where: string; excerpt: string }[];
    }[];
    const model = findings.find((f) => f.id === 'model');
    expect(model?.status).toBe('fail');
    expect(model?.found).toContain('BG_E_REPLY_TOO_LARGE');
    expect(model?.evidence).toHaveLength(1);
    expect(model?.evidence[0].where).toBe(`GET ${sim.url}/v1/models`);
    expect(model?.evidence[0].excerpt).toContain('sent more than 32 MiB');
    expect(model?.evidence[0].excerpt).toContain('huge-models fault');
    expect(model?.evidence[0].excerpt).toContain('[BG_E_REPLY_TOO_LARGE]');
  }, 180_000);

  it('ends bench --force with BG_E_REPLY_TOO_LARGE, not BG_E_CONNECT', async () => {
    const r = await runCli([
      ...['bench', '--url', sim.url, '--concurrency', '1', '--requests', '2', '--out', out, '--force'],
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('[BG_E_REPLY_TOO_LARGE]');
    expect(r.stderr).toContain('/v1/models failed');
    expect(r.stderr).not.toContain('BG_E_CONNECT');
    expect(r.stderr).not.toContain('could not reach the target');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 180_000);
});
