import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from '../../sim/api.js';
import { startSimulator } from '../../sim/index.js';
import { runCli } from '../test-support/run-cli.js';

// The real CLI, from source, in its own process, against a simulator started here.
const run = (args: string[]) => runCli(['check', ...args]);

describe('benchgate check', () => {
  let sim: SimulatorHandle;
  let dir: string;
  const plan = (name: string, body: string) => {
    const p = join(dir, name);
    writeFileSync(p, body);
    return p;
  };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bg-check-cli-'));
    sim = await startSimulator({
      flavor: 'sglang',
      profile: 'fixed',
      ttftMs: 5,
      itlMs: 1,
      loadTimeS: 0,
      engineArgs: ['--speculative-algorithm', 'EAGLE3', '--speculative-eagle-topk', '4'],
    });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('exits 0 and prints a checklist when every required check passes', async () => {
    const p = plan(
      'ok.yaml',
      `target: { url: ${sim.url} }\nworkload: { output_tokens: { fixed: 8 } }\noutput: ${dir}/results\nexpect:\n  smoke: false\n  config:\n    speculative.topk: 4\n`,
    );
    const r = await run([p]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✔ Config speculative.topk — 4');
    expect(r.stdout).toContain('checkpoint passed');
  });

  it('accepts the base URL with /v1 on it, as vLLM and OpenAI users paste it', async () => {
    const plain = await startSimulator({ flavor: 'vllm', profile: 'fixed', loadTimeS: 0 });
    try {
      await plain.ready;
      const r = await runCli(['check', '--url', `${plain.url}/v1/`, '--json'], { cwd: dir });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).not.toContain('/v1/v1');
    } finally {
      await plain.close();
    }
  });

  it('checks a server named by --url alone, and the target flags override a plan', async () => {
    const plain = await startSimulator({ flavor: 'vllm', profile: 'fixed', loadTimeS: 0 });
    try {
      await plain.ready;
      const bare = await runCli(['check', '--url', plain.url], { cwd: dir });
      expect(bare.code, bare.stdout + bare.stderr).toBe(0);
      expect(bare.stdout).toContain('✔ Engine identified — vllm');
      expect(bare.stdout).toContain('✔ Smoke generation');
      // what is that server running? said in the text, not only in --json
      expect(bare.stdout).toMatch(/^running: vllm \S+ · /m);
      expect(bare.stdout).toMatch(/^ {2}speculative +none$/m);
      // the plan names a port nothing listens on; --url points at the simulator
      const p = plan('elsewhere.yaml', `target: { url: http://127.0.0.1:9 }\noutput: ${dir}/results\n`);
      const over = await run([p, '--url', plain.url, '--engine', 'vllm', '--json']);
      expect(over.code, over.stdout + over.stderr).toBe(0);
      expect(over.stdout).toContain(plain.url);
      expect(over.stdout).not.toContain('127.0.0.1:9"');
    } finally {
      await plain.close();
    }
  });

  it('exits 2 naming what is missing or wrong: neither a plan nor --url, a bad target flag', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('check needs a plan file or --url URL (the server to check)');
    // a wrong target flag names the flag and the plan key it stands for
    const api = await run(['--url', 'http://127.0.0.1:1', '--api', 'bogus']);
    expect(api.code).toBe(2);
    expect(api.stderr).toContain('flags --api (target.api): expected one of: completions, chat, native');
  });

  it('exits 1 naming the failed expectation, and --json carries the findings', async () => {
    const p = plan(
      'topk.yaml',
      `target: { url: ${sim.url} }\noutput: ${dir}/results\nexpect: { smoke: false, config: { speculative.topk: 1 } }\n`,
    );
    const text = await run([p]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('✖ Config speculative.topk — 4');
    const json = await run([p, '--json']);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout);
    expect(doc.ok).toBe(false);
    expect(doc.findings.find((f: { id: string }) => f.id === 'config.speculative.topk').status).toBe('fail');
    expect(doc.verifiedTarget.engine).toBe('sglang');
  });

  it('exits 2 on an invalid plan or an unknown format, with one clear message', async () => {
    const bad = plan('bad.yaml', 'target: { url: 42 }\n');
    const r = await run([bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('BG_E_PLAN_INVALID');
    expect(r.stderr).not.toContain('    at ');
    const f = await run([bad, '--format', 'html']);
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('--format expects one of text, markdown, json; found "html".');
  });

  it('exits 1 with a reachable failure when nothing listens', async () => {
    const p = plan('down.yaml', `target: { url: http://127.0.0.1:9 }\noutput: ${dir}/results\n`);
    const r = await run([p]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✖ Target is reachable');
  });
});
