// Kept-alive client sockets must not hold a finished command open: the real CLI's `check`, with its
// smoke request, against a simulator that keeps idle connections open a long time, must exit once it
// has printed its result (before a 20 s kill timer; the bug idled about 30 s).

import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliNodeArgs } from '../cli/test-support/cli-argv.js';
import type { SimulatorHandle } from '../sim/api.js';
import { startSimulator } from '../sim/index.js';

describe('benchgate check exits after printing its result', () => {
  let sim: SimulatorHandle;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bg-client-exit-'));
    sim = await startSimulator({ flavor: 'vllm', profile: 'fixed', ttftMs: 5, itlMs: 1, loadTimeS: 0 });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('leaves no kept-alive socket holding the process', async () => {
    const plan = join(dir, 'plan.yaml');
    writeFileSync(
      plan,
      `target: { url: ${sim.url} }\nworkload: { output_tokens: { fixed: 8 } }\noutput: ${dir}/results\n`,
    );
    const child = spawn(process.execPath, [...cliNodeArgs(), 'check', plan], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    let killed = false;
    const kill = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    clearTimeout(kill);
    expect(stdout).toContain('checkpoint passed');
    expect(killed).toBe(false);
    expect(code).toBe(0);
  }, 40_000);
});
