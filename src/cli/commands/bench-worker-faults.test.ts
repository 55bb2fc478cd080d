// `benchgate bench --workers 2` when a load worker fails or its event loop blocks, against the real
// simulator and the real CLI: the command ends with the worker's error (or the interrupt), never hangs,
// and the run directory says why it is incomplete. Workers are told to fail by BENCHGATE_TEST_WORKER_FAULT.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_FAULT_ENV } from '../../load/worker-faults.js';
import type { RunSummary } from '../../metrics/summary.js';
import type { SimulatorHandle } from '../../sim/api.js';
import { startSimulator } from '../../sim/index.js';
import { type CliResult, startCli } from '../test-support/cli-process.js';

let sim: SimulatorHandle;
const made: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'bg-worker-fault-'));
  made.push(d);
  return d;
};
beforeAll(async () => {
  sim = await startSimulator({
    host: '127.0.0.1',
    port: 0,
    flavor: 'sglang',
    profile: 'fixed',
    loadTimeS: 0,
  });
  await sim.ready;
});
afterAll(async () => {
  await sim.close();
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** Starts bench with a worker fault; a CLI still running after `limitMs` is killed (the test then fails). */
function benchWithFault(fault: string, out: string, limitMs = 100_000) {
  const args = ['bench', '--url', sim.url, '--engine', 'sglang', '--concurrency', '2', '--requests', '400'];
  const started = startCli(
    [...args, '--input-tokens', '8', '--output-tokens', '16', '--workers', '2', '--out', out],
    {
      [WORKER_FAULT_ENV]: fault,
    },
  );
  const killer = setTimeout(() => started.child.kill('SIGKILL'), limitMs);
  const done = started.done.then((r: CliResult) => {
    clearTimeout(killer);
    return r;
  });
  return { child: started.child, done };
}

function summaryOf(out: string): RunSummary {
  const [dir] = readdirSync(out);
  return JSON.parse(readFileSync(join(out, dir!, 'summary.json'), 'utf8')) as RunSummary;
}

describe('benchgate bench when a load worker fails', () => {
  it('ends with the worker’s error and exit 1 instead of hanging (no telemetry timer outlives the level)', async () => {
    const out = tmp();
    const r = await benchWithFault('throw:0', out).done;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/load worker 0 failed: .*fails on purpose \[BG_E_WORKER\]/);
    expect(summaryOf(out).incomplete?.reason).toMatch(/stopped by an error: load worker 0 failed/);
  }, 120_000);

  it('stops at the first Ctrl-C when a worker busy-loops: exit 130, the run marked interrupted', async () => {
    const out = tmp();
    const { child, done } = benchWithFault('spin:1', out);
    let stderr = '';
    child.stderr?.on('data', (c) => {
      stderr += c;
      if (/level 1\/1/.test(stderr) && !child.killed) child.kill('SIGINT');
    });
    const r = await done;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(130);
    expect(r.stderr.match(/SIGINT received/g)).toHaveLength(1); // one Ctrl-C was enough
    expect(summaryOf(out).incomplete?.reason).toMatch(/interrupted/);
  }, 120_000);
});
