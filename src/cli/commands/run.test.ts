import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMiniOpenAi } from '../../client/test-support/mini-openai.js';
import { freeLoopbackPorts } from '../../matrix/free-port.js';
import { writeToyServer } from '../../matrix/test-support/toy-server.js';
import type { RunSummary } from '../../metrics/summary.js';
import { bareKillLeftoversFlag } from '../kill-leftovers-flag.js';
import { startCli } from '../test-support/cli-process.js';

const runCli = (args: string[]) => startCli(['run', ...args]).done;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bg-cli-run-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A plan with one config on `port` whose launch command does not exist (it fails right after leftovers). */
async function writePlan(port: number): Promise<string> {
  const path = join(dir, `plan-${port}.yaml`);
  await writeFile(
    path,
    [
      'name: cli-run',
      'target: { engine: sglang, api: native }',
      'load: { kind: concurrency, levels: [1], requests: 2 }',
      `output: ${join(dir, 'out')}`,
      'configs:',
      '  - name: blocked',
      `    url: http://127.0.0.1:${port}`,
      '    launch: { command: /nonexistent/serve, args: [] }',
      '',
    ].join('\n'),
  );
  return path;
}

async function startSquatter(port: number): Promise<ChildProcess> {
  const toy = await writeToyServer(dir);
  const child = spawn(process.execPath, [toy, String(port)], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolve) =>
    child.stdout?.on('data', (c) => String(c).includes('listening') && resolve()),
  );
  return child;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('benchgate run --kill-leftovers', () => {
  it('keeps a bare flag from swallowing the plan path, and leaves PID lists and =forms alone', () => {
    expect(bareKillLeftoversFlag(['run', '--kill-leftovers', 'plan.yaml'])).toEqual([
      'run',
      '--kill-leftovers=',
      'plan.yaml',
    ]);
    expect(bareKillLeftoversFlag(['run', '--kill-leftovers', '12,13', 'p.yaml'])).toContain('12,13');
    expect(bareKillLeftoversFlag(['run', '--kill-leftovers=12', 'p.yaml'])).toContain('--kill-leftovers=12');
  });

  it('ends a process on the port only when the user names its PID; the bare flag reports it', async () => {
    const [port] = await freeLoopbackPorts(1);
    const plan = await writePlan(port);
    const squatter = await startSquatter(port);
    const pid = squatter.pid ?? -1;
    try {
      const bare = await runCli(['--kill-leftovers', plan, '--yes']);
      expect(bare.code).toBe(1);
      expect(bare.stderr).toContain(`--kill-leftovers ${pid}`);
      expect(alive(pid)).toBe(true);

      const named = await runCli([plan, '--yes', `--kill-leftovers=${pid}`]);
      expect(named.stderr).toContain(`port ${port} was held by PID ${pid}`);
      expect(named.stderr).toContain('launching: /nonexistent/serve');
      await new Promise((r) =>
        squatter.exitCode !== null || squatter.signalCode ? r(null) : squatter.once('exit', r),
      );
      expect(alive(pid)).toBe(false);
    } finally {
      squatter.kill('SIGKILL');
    }
  });

  it('rejects a PID list that is not numbers as a usage error', async () => {
    const [port] = await freeLoopbackPorts(1);
    const r = await runCli([await writePlan(port), '--yes', '--kill-leftovers=12,abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--kill-leftovers expects a comma-separated list of positive integers');
  });
});

describe('benchgate run --workers', () => {
  it("sends a single-server plan's levels from worker threads, overriding load.workers", async () => {
    const srv = await startMiniOpenAi();
    try {
      const path = join(dir, 'single.yaml');
      await writeFile(
        path,
        [
          'name: cli-run-workers',
          `target: { url: ${srv.url}, engine: openai, api: completions }`,
          'workload: { dataset: random, input_tokens: { fixed: 8 }, output_tokens: { fixed: 4 } }',
          'load: { kind: concurrency, levels: [3], requests: 9, workers: 1 }',
          `output: ${join(dir, 'single-out')}`,
          '',
        ].join('\n'),
      );
      const r = await runCli([path, '--workers', '2', '--json']);
      expect(r.code).toBe(0);
      const { runDir } = JSON.parse(r.stdout) as { runDir: string };
      const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
      expect(summary.levels[0]?.requests.completed).toBe(9);
      expect(summary.levels[0]?.client.workers).toHaveLength(2);
    } finally {
      await srv.close();
    }
  });
});
